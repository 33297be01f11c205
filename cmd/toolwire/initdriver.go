package main

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/toolwire/toolwire/examples/drivers"
)

// initDriver writes the minimal driver for lang (python, node or go) into
// dir and prints what it wrote and the commands that run the suite on it.
func initDriver(lang, dir string, out io.Writer) error {
	written, err := drivers.Write(lang, dir)
	if err != nil {
		return err
	}
	for _, path := range written {
		fmt.Fprintln(out, "wrote", path)
	}
	source := written[0]
	var build, line, loops string
	switch lang {
	case "python":
		line, loops = "python3 "+shellQuote(source), "run_*"
	case "node":
		line, loops = "node "+shellQuote(source), "run*"
	case "go":
		binary := filepath.Join(dir, "driver")
		if runtime.GOOS == "windows" {
			binary += ".exe"
		}
		// A bare name would be looked up in PATH, not in dir.
		if !strings.ContainsRune(binary, filepath.Separator) {
			binary = "." + string(filepath.Separator) + binary
		}
		build = "go build -o " + shellQuote(binary) + " " + shellQuote(source)
		line, loops = shellQuote(binary), "run*"
	}
	fmt.Fprintf(out, "\nIt drives the mock over raw HTTP. Make it drive your library: replace the four\n%s loops", loops)
	fmt.Fprintln(out, " with calls into it; keep the result picking and the final JSON line. Then run:")
	fmt.Fprintln(out)
	if build != "" {
		fmt.Fprintln(out, "  "+build)
	}
	// The minimal drivers do not stream and send no images or documents:
	// declare more features as your driver supports them.
	fmt.Fprintf(out, "  toolwire conform --driver %s --features %s\n", argQuote(line), strings.Join(drivers.MinimalFeatures, ","))
	return nil
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./@%+=:,-]+$`)

// shellQuote makes s one word for sh (the driver command runs with sh -c).
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// argQuote makes s one word for the user's shell, in double quotes when
// nothing inside them would be expanded.
func argQuote(s string) string {
	if strings.ContainsAny(s, "\"$`\\!") {
		return shellQuote(s)
	}
	return `"` + s + `"`
}

// Package drivers carries the complete minimal drivers of the driver
// contract (Python, Node, Go; raw HTTP, all four dialects, no streaming)
// so that `toolwire conform --init-driver` can write one out as the
// starting point of a user's own driver.
package drivers

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed driver.py driver.mjs go/driver.go
var sources embed.FS

// MinimalFeatures are the features every minimal driver supports: all but
// streaming, images and documents (they do not stream and send no media).
var MinimalFeatures = []string{"core", "errors", "large", "multi-turn", "parallel", "reasoning", "robustness", "signatures", "strict", "structured", "structured-output", "tool-choice", "unicode"}

// skeleton is one language's driver.
type skeleton struct {
	// Lang is the name --init-driver takes.
	Lang string
	// Source is the path inside this package; File is the name it is
	// written under.
	Source, File string
}

var skeletons = []skeleton{
	{Lang: "go", Source: "go/driver.go", File: "driver.go"},
	{Lang: "node", Source: "driver.mjs", File: "driver.mjs"},
	{Lang: "python", Source: "driver.py", File: "driver.py"},
}

// Languages lists the languages Write knows, sorted.
func Languages() []string {
	langs := make([]string, len(skeletons))
	for i, s := range skeletons {
		langs[i] = s.Lang
	}
	return langs
}

func lookup(lang string) (skeleton, error) {
	i := slices.IndexFunc(skeletons, func(s skeleton) bool { return s.Lang == lang })
	if i < 0 {
		return skeleton{}, fmt.Errorf("unknown driver language %q (valid: %s)", lang, strings.Join(Languages(), ", "))
	}
	return skeletons[i], nil
}

// Write writes the skeleton for lang (python, node or go) into dir,
// creating dir if needed, and returns the paths written. It never
// overwrites: if a file it would write exists, nothing is written.
func Write(lang, dir string) ([]string, error) {
	s, err := lookup(lang)
	if err != nil {
		return nil, err
	}
	text, err := sources.ReadFile(s.Source)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, s.File)
	// Scripts start with a #! line, so they may be run directly.
	mode := fs.FileMode(0o644)
	if strings.HasPrefix(string(text), "#!") {
		mode = 0o755
	}
	// O_EXCL: a file that appears between a check and the write is not
	// overwritten either.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s already exists; not overwriting it (remove it or choose another directory)", path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, err
	}
	return []string{path}, nil
}

package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// within runs f, failing the test if it has not returned after a generous
// while: the inputs here once ran for minutes, so a regression should fail
// rather than stall the suite. Not a timing assertion.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return", what)
	}
}

// aliasBomb is a "billion laughs" file: nine aliases of nine aliases, nine
// levels deep — 387 million values from a few hundred bytes.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("name: bomb\nturns: [{text: hi}]\nx0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		prev := "*x" + string(rune('0'+i-1))
		b.WriteString("x" + string(rune('0'+i)) + ": &x" + string(rune('0'+i)) + " [" + strings.Repeat(prev+", ", 8) + prev + "]\n")
	}
	return b.String()
}

func TestParseRefusesAliasBomb(t *testing.T) {
	src := aliasBomb()
	want := "more than 100000 values, aliases counted as often as they are expanded"
	within(t, "Parse", func() {
		_, err := Parse("bomb.yaml", []byte(src))
		var le *LoadError
		// The line is the alias whose expansion went over the bound (x5,
		// the first to stand for 9^6 values, on line 8), the path where
		// it happened.
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "bomb.yaml:8: x5[0]") || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse = %v, want a bomb.yaml:8: x5[0]… error saying %q", err, want)
		}
	})
	within(t, "Validate", func() {
		probs := Validate("bomb.yaml", []byte(src))
		if len(probs) != 1 || !strings.Contains(probs[0].Error(), want) {
			t.Errorf("Validate = %v", probs)
		}
	})
}

// Anchors used the ordinary way stay well under the bound: a tool's
// parameters shared by a hundred calls.
func TestParseAcceptsAliasesWithinBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: shared\ntools:\n  - name: t\n    parameters: &p {type: object, properties: {q: {type: string}}}\n")
	for i := range 100 {
		b.WriteString("  - name: t" + strconv.Itoa(i) + "\n    parameters: *p\n")
	}
	b.WriteString("turns: [{text: hi}]\n")
	if _, err := Parse("shared.yaml", []byte(b.String())); err != nil {
		t.Fatal(err)
	}
}

func TestParseRefusesOversizedData(t *testing.T) {
	data := []byte("name: big\nturns: [{text: hi}]\n# " + strings.Repeat("x", MaxFileSize) + "\n")
	_, err := Parse("big.yaml", data)
	if err == nil || err.Error() != "big.yaml: larger than 1 MiB, the limit for a scenario file" {
		t.Errorf("Parse = %v", err)
	}
}

func TestLoadDirRefusesWhatIsNotARegularFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real.yml"), "name: real\nturns: [{text: hi}]\n")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skip("symlinks:", err)
		}
	}
	// A symlink to a regular file is a scenario like any other.
	link(filepath.Join(dir, "real.yml"), "linked.yaml")
	list, err := LoadDir(dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("LoadDir = %v, %v", list, err)
	}
	// A symlink to a device that never ends is refused before a byte is read.
	link("/dev/zero", "zero.yaml")
	within(t, "LoadDir", func() {
		_, err = LoadDir(dir)
	})
	if want := filepath.Join(dir, "zero.yaml") + ": not a regular file (a character device)"; err == nil || err.Error() != want {
		t.Errorf("LoadDir = %v, want %s", err, want)
	}
	within(t, "ReadFile", func() {
		_, err = ReadFile(filepath.Join(dir, "zero.yaml"))
	})
	if err == nil || !strings.HasSuffix(err.Error(), "zero.yaml: not a regular file (a character device)") {
		t.Errorf("ReadFile = %v", err)
	}
}

func TestReadFileRefusesOversizedFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "big.yaml")
	writeFile(t, name, "name: big\nturns: [{text: hi}]\n# "+strings.Repeat("x", MaxFileSize)+"\n")
	if _, err := ReadFile(name); err == nil || err.Error() != name+": larger than 1 MiB, the limit for a scenario file" {
		t.Errorf("ReadFile = %v", err)
	}
	if _, err := LoadDir(dir); err == nil || err.Error() != name+": larger than 1 MiB, the limit for a scenario file" {
		t.Errorf("LoadDir = %v", err)
	}
	// At the limit exactly, the file is read.
	writeFile(t, name, "name: big\nturns: [{text: hi}]\n#"+strings.Repeat("x", MaxFileSize-32)+"\n")
	if b, err := ReadFile(name); err != nil || len(b) != MaxFileSize {
		t.Errorf("ReadFile at the limit: %d bytes, %v", len(b), err)
	}
}

func writeFile(t *testing.T, name, body string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

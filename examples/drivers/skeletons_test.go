package drivers_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/examples/drivers"
)

func TestWriteCopiesEachSkeletonVerbatim(t *testing.T) {
	for lang, want := range map[string]struct {
		source, file string
		executable   bool
	}{
		"python": {"driver.py", "driver.py", true},
		"node":   {"driver.mjs", "driver.mjs", true},
		"go":     {"go/driver.go", "driver.go", false},
	} {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new", "dir") // created on the way
			written, err := drivers.Write(lang, dir)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, want.file)
			if !slices.Equal(written, []string{path}) {
				t.Fatalf("written %q, want [%q]", written, path)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			source, err := os.ReadFile(want.source)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, source) {
				t.Errorf("%s differs from %s", path, want.source)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if executable := info.Mode().Perm()&0o100 != 0; executable != want.executable {
				t.Errorf("%s mode %v, want executable=%v", path, info.Mode(), want.executable)
			}
		})
	}
}

func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "driver.py")
	if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	written, err := drivers.Write("python", dir)
	if err == nil || !strings.Contains(err.Error(), path+" already exists") {
		t.Fatalf("Write over an existing file: %v, want an error naming %s", err, path)
	}
	if written != nil {
		t.Errorf("written %q on error", written)
	}
	if got, _ := os.ReadFile(path); string(got) != "mine\n" {
		t.Errorf("existing file changed to %q", got)
	}
	// Another language's file beside it is not in the way.
	if _, err := drivers.Write("node", dir); err != nil {
		t.Errorf("node beside an existing driver.py: %v", err)
	}
}

func TestWriteUnknownLanguageListsTheValidOnes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	_, err := drivers.Write("rust", dir)
	if err == nil || err.Error() != `unknown driver language "rust" (valid: go, node, python)` {
		t.Fatalf("got %v", err)
	}
	if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
		t.Errorf("an unknown language created %s", dir)
	}
	if !slices.IsSorted(drivers.Languages()) {
		t.Errorf("Languages() not sorted: %q", drivers.Languages())
	}
}

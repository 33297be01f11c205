package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --init-driver writes the skeleton and returns before the mock or the
// options file is touched; a bad language is an error (exit 2 in main).
func TestConformInitDriverFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mine")
	out, err := runCmd(t, newConformCommand(), "--init-driver", "python", "--init-dir", dir, "--options", "does-not-exist.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "driver.py")); err != nil {
		t.Fatalf("no driver written: %v\n%s", err, out)
	}
	if !strings.Contains(out, "toolwire conform --driver") {
		t.Errorf("no run line printed:\n%s", out)
	}
	_, err = runCmd(t, newConformCommand(), "--init-driver", "ruby", "--init-dir", t.TempDir())
	var ee exitError
	if err == nil || errors.As(err, &ee) || !strings.Contains(err.Error(), "valid: go, node, python") {
		t.Errorf("unknown language: %v", err)
	}
}

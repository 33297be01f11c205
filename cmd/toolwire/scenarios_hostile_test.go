//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Files that are not scenarios — a named pipe, a link to /dev/zero, an
// alias bomb — are each reported as a problem of that file, and the rest
// are still validated. Before, the pipe blocked the command, the link read
// without end and the bomb expanded for minutes.
func TestScenariosValidateRefusesHostileFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Skip("symlink:", err)
	}
	bomb := "name: bomb\nturns: [{text: hi}]\nx0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for _, l := range "12345678" {
		prev := "*x" + string(l-1)
		bomb += "x" + string(l) + ": &x" + string(l) + " [" + strings.Repeat(prev+", ", 8) + prev + "]\n"
	}
	for name, body := range map[string]string{"bomb.yaml": bomb, "good.yaml": "name: ok\nturns: [{text: hi}]\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := newScenariosCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"validate", dir})
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("validate did not return")
	}
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("err = %v; want exit 1\n%s", err, out.String())
	}
	for _, want := range []string{
		filepath.Join(dir, "pipe.yaml") + ": not a regular file (a named pipe)",
		filepath.Join(dir, "zero.yaml") + ": not a regular file (a character device)",
		filepath.Join(dir, "bomb.yaml") + ":8: x5[0]",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "3 of 4 files") {
		t.Errorf("stderr: %s", errOut.String())
	}
}

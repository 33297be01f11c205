//go:build unix

package scenario

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe among the fixtures is refused without being opened: opening
// one blocks until a writer comes, and none will.
func TestLoadDirRefusesNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	var err error
	within(t, "LoadDir", func() { _, err = LoadDir(dir) })
	if want := fifo + ": not a regular file (a named pipe)"; err == nil || err.Error() != want {
		t.Errorf("LoadDir = %v, want %s", err, want)
	}
	within(t, "ReadFile", func() { _, err = ReadFile(fifo) })
	if want := fifo + ": not a regular file (a named pipe)"; err == nil || err.Error() != want {
		t.Errorf("ReadFile = %v, want %s", err, want)
	}
}

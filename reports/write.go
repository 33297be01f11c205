package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File names written by WriteAll.
const (
	JUnitFile   = "junit.xml"
	JSONFile    = "report.json"
	YAMLFile    = "conformance-report.yaml"
	SummaryFile = "summary.md"
	HTMLFile    = "report.html"
)

// WriteAll writes the five reports into dir (created if missing). One
// report that cannot be rendered or written never stops the others: the
// errors are collected and returned together, and the caller should keep
// the run's exit code (a read-only results directory is not a conformance
// failure).
func WriteAll(dir string, run *Run) error {
	if run == nil {
		return errors.New("reports: nil run")
	}
	var errs []error
	if err := os.MkdirAll(dir, 0o755); err != nil {
		// Keep going: each write reports its own error, and a partially
		// existing tree might still accept some files.
		errs = append(errs, fmt.Errorf("reports: %w", err))
	}
	writers := []struct {
		name  string
		write func(io.Writer, *Run) error
	}{
		{JUnitFile, WriteJUnit},
		{JSONFile, WriteJSON},
		{YAMLFile, WriteConformanceReport},
		{SummaryFile, WriteSummary},
		{HTMLFile, WriteHTML},
	}
	for _, w := range writers {
		if err := writeFile(filepath.Join(dir, w.name), run, w.write); err != nil {
			errs = append(errs, fmt.Errorf("reports: %s: %w", w.name, err))
		}
	}
	return errors.Join(errs...)
}

// writeFile renders into memory first, so a rendering error leaves no
// half-written file, then replaces the target through a temporary file in
// the same directory, so a reader never sees a truncated report.
func writeFile(path string, run *Run, render func(io.Writer, *Run) error) (err error) {
	defer func() {
		// A writer bug must cost one file, not the whole run.
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error rendering: %v", p)
		}
	}()
	var buf bytes.Buffer
	if err := render(&buf, run); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

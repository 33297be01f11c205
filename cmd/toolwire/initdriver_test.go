package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/examples/drivers"
)

// TestInitDriver writes each skeleton, checks it compiles with its own
// toolchain, then runs the printed commands the way a user's shell would:
// the go build line, and the --driver command, which must start the
// driver (asked to stream, a minimal driver refuses with its own message).
// The suite itself runs these drivers in examples/drivers.
func TestInitDriver(t *testing.T) {
	for _, tc := range []struct {
		lang, tool string
		check      func(t *testing.T, source string)
	}{
		{"python", "python3", func(t *testing.T, source string) {
			run(t, "python3", "-m", "py_compile", source)
		}},
		{"node", "node", func(t *testing.T, source string) {
			run(t, "node", "--check", source)
		}},
		{"go", "go", nil}, // the printed go build line is the check
	} {
		for _, where := range []string{"a dir with a space", "."} {
			t.Run(tc.lang+"/"+where, func(t *testing.T) {
				if _, err := exec.LookPath(tc.tool); err != nil {
					t.Skipf("%s not installed", tc.tool)
				}
				cwd := t.TempDir()
				t.Chdir(cwd)
				var out bytes.Buffer
				if err := initDriver(tc.lang, where, &out); err != nil {
					t.Fatal(err)
				}
				t.Log("\n" + out.String())
				written := strings.TrimPrefix(firstLine(out.String(), "wrote "), "wrote ")
				if _, err := os.Stat(written); err != nil {
					t.Fatalf("printed %q: %v", written, err)
				}
				if tc.check != nil {
					tc.check(t, written)
				}
				if build := firstLine(out.String(), "  go build "); build != "" {
					run(t, "sh", "-c", build)
				} else if tc.lang == "go" {
					t.Fatal("no go build line printed")
				}
				conform := firstLine(out.String(), "  toolwire conform ")
				args := shellWords(t, strings.TrimPrefix(conform, "  toolwire conform "))
				want := []string{"--driver", "", "--features", strings.Join(drivers.MinimalFeatures, ",")}
				if len(args) != 4 || args[0] != want[0] || !slices.Equal(args[2:], want[2:]) {
					t.Fatalf("printed %q; want --driver CMD %s", conform, strings.Join(want[2:], " "))
				}
				// Started as the suite starts it: sh -c in the directory
				// toolwire conform runs in, with a task to read.
				taskFile := filepath.Join(t.TempDir(), "task.json")
				if err := os.WriteFile(taskFile, []byte(`{"model":"m","prompt":"p","max_turns":1,"tools":[]}`), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("sh", "-c", args[1])
				cmd.Env = append(os.Environ(), "TOOLWIRE_TASK="+taskFile, "TOOLWIRE_DIALECT=openai-chat", "TOOLWIRE_STREAM=1")
				got, err := cmd.CombinedOutput()
				if err == nil || !strings.Contains(string(got), "this minimal driver does not stream") {
					t.Fatalf("driver %q asked to stream: %v\n%s", args[1], err, got)
				}
			})
		}
	}
}

func TestInitDriverErrors(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := initDriver("ruby", dir, &out)
	if err == nil || !strings.Contains(err.Error(), "(valid: go, node, python)") {
		t.Errorf("unknown language: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.mjs"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := initDriver("node", dir, &out); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("existing driver.mjs: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed on error: %q", out.String())
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
}

func firstLine(text, prefix string) string {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSuffix(line, "\n")
		}
	}
	return ""
}

// shellWords splits line as sh would.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `for a in `+line+`; do printf '%s\000' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh cannot split %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

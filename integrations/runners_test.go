package integrations

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// python returns an interpreter that can import pytest, or skips.
func python(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("TOOLWIRE_PYTHON"), "python3", "/usr/bin/python3"}
	var why []string
	for _, c := range candidates {
		if c == "" {
			continue
		}
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		// From an empty directory: here, integrations/pytest would import
		// as a namespace package called pytest.
		out, err := run(t, time.Minute, t.TempDir(), nil, p, "-c", "import sys, pytest; pytest.main; print(sys.executable)")
		if err != nil {
			why = append(why, p+": "+lastLine(out))
			continue
		}
		return lastLine(out)
	}
	t.Skip("no python3 with pytest (Debian: apt-get install python3-pytest): " + strings.Join(why, "; "))
	return ""
}

func TestPytestPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest against a live toolwire serve")
	}
	py := python(t)
	bin := toolwireBinary(t)
	dir := filepath.Join(repoRoot(t), "integrations", "pytest")
	out, err := run(t, 10*time.Minute, dir,
		[]string{"TOOLWIRE_BIN=" + bin, "PYTHONPATH=" + dir, "PYTHONDONTWRITEBYTECODE=1"},
		py, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests")
	if err != nil {
		t.Fatalf("pytest: %v\n%s", err, out)
	}
	t.Logf("pytest:\n%s", lastLine(out))
}

// vitest returns the package folder with vitest installed, or skips.
func vitest(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "integrations", "node")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "vitest")); err != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("vitest is not installed in integrations/node and there is no npm to install it")
		}
		if out, err := run(t, 10*time.Minute, dir, nil, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
			t.Skipf("npm ci in integrations/node failed (no registry?): %v\n%s", err, lastLine(out))
		}
	}
	return dir
}

func TestVitestPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs vitest against a live toolwire serve")
	}
	dir := vitest(t)
	bin := toolwireBinary(t)
	env := []string{"TOOLWIRE_BIN=" + bin, "CI=1", "NO_COLOR=1"}
	vitestBin := filepath.Join(dir, "node_modules", ".bin", "vitest")

	out, err := run(t, 10*time.Minute, dir, env, vitestBin, "run", "--config", "test/vitest.config.js")
	if err != nil {
		t.Fatalf("vitest (the package's own tests): %v\n%s", err, out)
	}

	// A file where one test leaves a MUST violation: exactly that test
	// fails, and its error names the rule.
	report := filepath.Join(t.TempDir(), "report.json")
	out, err = run(t, 10*time.Minute, dir, env, vitestBin, "run", "--config", "test/fixtures/vitest.config.js", "--reporter=json", "--outputFile="+report)
	if err == nil {
		t.Fatalf("vitest passed a test that broke a MUST rule:\n%s", out)
	}
	raw, rerr := os.ReadFile(report)
	if rerr != nil {
		t.Fatalf("no JSON report (%v); vitest said:\n%s", rerr, out)
	}
	var rep struct {
		NumPassedTests int
		NumFailedTests int
		TestResults    []struct {
			AssertionResults []struct {
				Title           string
				Status          string
				FailureMessages []string
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.NumPassedTests != 1 || rep.NumFailedTests != 1 {
		t.Fatalf("want 1 passed and 1 failed, got %d and %d:\n%s", rep.NumPassedTests, rep.NumFailedTests, out)
	}
	for _, f := range rep.TestResults {
		for _, a := range f.AssertionResults {
			if a.Status != "failed" {
				continue
			}
			msg := strings.Join(a.FailureMessages, "\n")
			if a.Title != "orphan tool result fails at the end of the test" || !strings.Contains(msg, "broke") || !strings.Contains(msg, "openai-chat.") {
				t.Errorf("failed test %q with %q; want the orphan test naming the rule", a.Title, msg)
			}
		}
	}
}

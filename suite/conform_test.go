package suite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
)

// TestConformChild is the body of a `toolwire conform` run in a child
// process (Ginkgo runs once per process); the options come as JSON.
func TestConformChild(t *testing.T) {
	raw := os.Getenv("TOOLWIRE_CONFORM_CHILD")
	if raw == "" {
		t.Skip("runs only as a child of TestConform")
	}
	var o suite.ConformOptions
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		t.Fatal(err)
	}
	os.Exit(suite.Conform(context.Background(), o, os.Stdout, os.Stderr))
}

func conformChild(t *testing.T, o suite.ConformOptions) (int, string) {
	t.Helper()
	b, _ := json.Marshal(o)
	cmd := exec.Command(os.Args[0], "-test.run=^TestConformChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TOOLWIRE_CONFORM_CHILD="+string(b))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// TestConform runs the conform entry point end to end: exit codes, the
// five reports, baselines, configuration errors.
func TestConform(t *testing.T) {
	dir := t.TempDir()
	code, out := conformChild(t, suite.ConformOptions{Reference: true, Scenarios: []string{"single-call", "error-result"}, Parallel: 2, ReportDir: dir})
	if code != 0 {
		t.Fatalf("honest run exit %d\n%s", code, out)
	}
	for _, f := range []string{"junit.xml", "report.json", "conformance-report.yaml", "summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("report %s: %v", f, err)
		}
	}
	if !strings.Contains(out, "conformant") {
		t.Errorf("no verdict line in output:\n%s", out)
	}

	broken := suite.ConformOptions{Reference: true, ReferenceBreak: "omit-is-error", Scenarios: []string{"error-result"}, Dialects: []string{"anthropic"}, NoStream: true, ReportDir: t.TempDir()}
	if code, out := conformChild(t, broken); code != 1 {
		t.Errorf("omit-is-error exit %d, want 1\n%s", code, out)
	}
	// The same failure listed in a baseline is expected: exit 0.
	base := filepath.Join(t.TempDir(), "expected-failures.yaml")
	if err := os.WriteFile(base, []byte("- anthropic.error-flagged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken.Baseline = base
	if code, out := conformChild(t, broken); code != 0 {
		t.Errorf("baselined run exit %d, want 0\n%s", code, out)
	}
	// Configuration errors: exit 2.
	if code, _ := conformChild(t, suite.ConformOptions{ReportDir: t.TempDir()}); code != 2 {
		t.Errorf("no driver: exit %d, want 2", code)
	}
	if code, _ := conformChild(t, suite.ConformOptions{Reference: true, Scenarios: []string{"nope"}, ReportDir: t.TempDir()}); code != 2 {
		t.Errorf("unknown scenario: exit %d, want 2", code)
	}
}

// A `toolwire conform` run split in shards and merged has the results of
// the whole run in the same order — the plan's, whatever order Ginkgo
// ran the containers in — so `toolwire report merge` writes the reports
// the whole run writes.
func TestConformShardsMergeToTheWholeRun(t *testing.T) {
	o := suite.ConformOptions{Reference: true, ReferenceBreak: string(refdriver.DropLastCall.Name), Parallel: 2,
		Scenarios: []string{"single-call", "parallel-same-tool", "error-result"}, Dialects: []string{"openai-chat", "gemini"}}
	load := func(o suite.ConformOptions) *reports.Run {
		t.Helper()
		o.ReportDir = t.TempDir()
		if code, out := conformChild(t, o); code != 1 {
			t.Fatalf("shard %q: exit %d, want 1 (drop-last-call fails)\n%s", o.Shard, code, out)
		}
		run, err := reports.LoadJSON(filepath.Join(o.ReportDir, reports.JSONFile))
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	whole := load(o)
	var parts []*reports.Run
	for _, shard := range []string{"1/2", "2/2"} {
		part := o
		part.Shard = shard
		parts = append(parts, load(part))
	}
	merged, err := reports.Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Results) != len(whole.Results) || len(whole.Results) == 0 {
		t.Fatalf("merged %d results, whole %d", len(merged.Results), len(whole.Results))
	}
	for i := range whole.Results {
		m, w := merged.Results[i], whole.Results[i]
		m.Duration, w.Duration = 0, 0
		if !reflect.DeepEqual(m, w) {
			t.Fatalf("result %d differs:\nmerged %s\nwhole  %s", i, reports.TestName(m), reports.TestName(w))
		}
	}
}

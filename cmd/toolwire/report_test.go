package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/reports"
)

// `toolwire report merge` joins shard directories into the five reports,
// with the verdict and exit code of the whole run.
func TestReportMerge(t *testing.T) {
	shard := func(scenario string, outcome reports.Outcome) string {
		dir := t.TempDir()
		run := &reports.Run{Implementation: reports.Implementation{Name: "impl"}, Mode: "driver", Dialects: []string{"anthropic"},
			Results: []reports.Result{{Rule: "anthropic.final-text", Level: "MUST", Scenario: scenario, Dialect: "anthropic", Outcome: outcome}}}
		if err := reports.WriteAll(dir, run); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	out := t.TempDir()
	stdout, err := runCmd(t, newReportCommand(), "merge", "--report-dir", out, shard("a", reports.Pass), filepath.Join(shard("b", reports.Fail), reports.JSONFile))
	var exit exitError
	if !errors.As(err, &exit) || exit.code != 1 {
		t.Fatalf("merge of a failing shard: %v\n%s", err, stdout)
	}
	for _, f := range []string{reports.JUnitFile, reports.JSONFile, reports.YAMLFile, reports.SummaryFile, reports.HTMLFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	merged, err := reports.LoadJSON(filepath.Join(out, reports.JSONFile))
	if err != nil || len(merged.Results) != 2 {
		t.Fatalf("merged report: %v, %+v", err, merged)
	}
	if !strings.Contains(stdout, "1 fail") {
		t.Errorf("verdict line: %s", stdout)
	}
	dup := shard("a", reports.Pass)
	if _, err := runCmd(t, newReportCommand(), "merge", "--report-dir", t.TempDir(), dup, dup); err == nil {
		t.Error("overlapping shards merged")
	}
}

package suite_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/reference"
)

// TestShardedRunsMergeToOneRun: a run split in three shards, merged, has
// the verdicts, counts, results and reports of the same run made at once.
// A break variant makes some of the results failures.
func TestShardedRunsMergeToOneRun(t *testing.T) {
	scenarios := []string{"single-call", "parallel-same-tool", "error-result", "unknown-tool", "forced-tool-choice"}
	run := func(shard reports.Shard) *reports.Run {
		h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.DropLastCall.Name), Parallel: 4, Scenarios: scenarios, Shard: shard, Mock: selftestMock(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		return h.RunAll(context.Background())
	}
	whole := run(reports.Shard{})
	var parts []*reports.Run
	for i := 1; i <= 3; i++ {
		p := run(reports.Shard{Index: i, Total: 3})
		if len(p.Results) == 0 || len(p.Results) == len(whole.Results) {
			t.Fatalf("shard %d/3 has %d of %d results", i, len(p.Results), len(whole.Results))
		}
		// Through report.json, as `toolwire report merge` reads them.
		dir := t.TempDir()
		if err := reports.WriteAll(dir, p); err != nil {
			t.Fatal(err)
		}
		back, err := reports.LoadJSON(filepath.Join(dir, reports.JSONFile))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, back)
	}
	merged, err := reports.Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Verdict() != whole.Verdict() || whole.Verdict() != reports.VerdictFailures {
		t.Errorf("verdict: merged %s, whole %s (want both %s)", merged.Verdict(), whole.Verdict(), reports.VerdictFailures)
	}
	if got, want := reports.Summarize(merged), reports.Summarize(whole); !reflect.DeepEqual(got, want) {
		t.Errorf("summary differs:\nmerged %+v\nwhole  %+v", got, want)
	}
	// Same results in the same order, and the same five reports, once the
	// clocks are set equal.
	for _, r := range []*reports.Run{merged, whole} {
		r.Date, r.Duration = time.Unix(0, 0).UTC(), 0
		for i := range r.Results {
			r.Results[i].Duration = 0
		}
	}
	if len(merged.Results) != len(whole.Results) {
		t.Fatalf("merged %d results, whole %d", len(merged.Results), len(whole.Results))
	}
	for i := range whole.Results {
		if !reflect.DeepEqual(merged.Results[i], whole.Results[i]) {
			t.Fatalf("result %d differs:\nmerged %+v\nwhole  %+v", i, merged.Results[i], whole.Results[i])
		}
	}
	a, b := t.TempDir(), t.TempDir()
	if err := reports.WriteAll(a, merged); err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteAll(b, whole); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{reports.JUnitFile, reports.JSONFile, reports.YAMLFile, reports.SummaryFile, reports.HTMLFile} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between the merged and the whole run", f)
		}
	}
	// Overlapping shards are refused.
	if _, err := reports.Merge(parts[0], parts[0]); err == nil {
		t.Error("merging a shard with itself succeeded")
	}
}

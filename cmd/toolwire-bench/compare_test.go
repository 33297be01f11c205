package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCompareCell: each build's figure is the median of its runs, and a
// later build's factor is its median over the first build's; a run that
// lacks the figure (an older build) does not count.
func TestCompareCell(t *testing.T) {
	headline := func(rs ...float64) []*Result {
		var out []*Result
		for _, r := range rs {
			out = append(out, &Result{Dialects: map[string]DialectStats{"openai-chat": {Ratio: r}}})
		}
		return out
	}
	old := build{"old", headline(0.50, 0.60, 0.55)}
	cur := build{"new", append(headline(0.44, 0.40, 0.48), &Result{})}
	c := compareCell([]build{old, cur}, func(r *Result) (float64, bool) {
		st, ok := r.Dialects["openai-chat"]
		return st.Ratio, ok
	})
	if !reflect.DeepEqual(c.medians, []float64{0.55, 0.44}) || !reflect.DeepEqual(c.factors, []float64{1, 0.8}) {
		t.Errorf("medians %v factors %v, want [0.55 0.44] [1 0.8]", c.medians, c.factors)
	}
	if !reflect.DeepEqual(c.values[1], []float64{0.44, 0.40, 0.48}) {
		t.Errorf("values in run order: %v", c.values[1])
	}
}

// TestRunCompare reads bench.json files and prints both builds' figures,
// the long-conversation cells only where a run measured them.
func TestRunCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r Result) string {
		b, _ := json.Marshal(r)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", Result{Dialects: map[string]DialectStats{"gemini": {Ratio: 0.6}}})
	b := write("b.json", Result{Dialects: map[string]DialectStats{"gemini": {Ratio: 0.3}},
		Long: &LongTable{Rows: []LongRow{{Dialect: "gemini", Rounds: 400, Ratio: 0.07}}}})
	var out bytes.Buffer
	if err := runCompare([]string{"old=" + a, "new=" + b}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0.6 (0.6)", "0.3 (0.3) = 0.50×", "not measured", "0.07 (0.07)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "CPU") {
		t.Errorf("a figure no run measured (CPU) is printed:\n%s", out.String())
	}
	for _, bad := range [][]string{{}, {"old=" + a, "new"}, {"old=" + a, "new=" + filepath.Join(dir, "missing.json")}} {
		if err := runCompare(bad, &out); err == nil {
			t.Errorf("runCompare(%q) accepted", bad)
		}
	}
}

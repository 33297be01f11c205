package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rule the run gave nothing to judge is counted apart from pass in
// every report, and a run of nothing else is not green.
func TestNotExercisedCountedApartFromPass(t *testing.T) {
	run := &Run{Dialects: []string{"gemini"}, Results: []Result{
		{Rule: "gemini.final-text", Level: "MUST", Scenario: "single-call", Dialect: "gemini", Outcome: Pass},
		{Rule: "gemini.image-parts", Level: "MUST", Scenario: "single-call", Dialect: "gemini", Feature: "images", Outcome: NotExercised,
			Message: "nothing to judge"},
	}}
	c := run.Counts()
	if c.Passed != 1 || c.NotExercised != 1 || c.Total != 2 {
		t.Fatalf("counts %+v", c)
	}
	if run.Verdict() != VerdictConformant {
		t.Errorf("verdict %v", run.Verdict())
	}
	if !strings.Contains(VerdictLine(run), "1 pass, 1 not-exercised") {
		t.Errorf("verdict line: %s", VerdictLine(run))
	}
	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if j := read("junit.xml"); !strings.Contains(j, `skipped="1"`) || !strings.Contains(j, "not exercised: nothing to judge") {
		t.Errorf("junit.xml:\n%s", j)
	}
	js := read("report.json")
	if !strings.Contains(js, `"not_exercised": 1`) {
		t.Errorf("report.json lacks not_exercised:\n%.1500s", js)
	}
	if y := read("conformance-report.yaml"); !strings.Contains(y, "notExercised: 1") {
		t.Errorf("conformance-report.yaml:\n%s", y)
	}
	if md := read("summary.md"); !strings.Contains(md, "Not exercised") || !strings.Contains(md, "| gemini | success | 1 | 0 | 0 | 0 | 0 | 1 | 0 |") {
		t.Errorf("summary.md:\n%s", md)
	}
	if h := read("report.html"); !bytes.Contains([]byte(h), []byte("Not exercised")) || !strings.Contains(h, "1 n/e") {
		t.Errorf("report.html lacks the not-exercised count")
	}
}

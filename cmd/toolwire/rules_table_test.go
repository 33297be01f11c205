package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The terminal table fits 100 columns; --wide has the whole summaries and
// the sources.
func TestRulesTableFits100Columns(t *testing.T) {
	out, err := runCmd(t, newRulesCommand())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 50 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("short or headless table:\n%s", out)
	}
	cut := 0
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("%d columns: %s", n, l)
		}
		if strings.HasSuffix(l, "…") {
			cut++
		}
	}
	if cut == 0 {
		t.Error("no summary was cut: the test no longer tests the cut")
	}
	wide, err := runCmd(t, newRulesCommand(), "--wide")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wide, "SOURCE") || !strings.Contains(wide, "https://") || strings.Contains(wide, "…\n") {
		t.Errorf("--wide lacks sources or whole summaries:\n%.2000s", wide)
	}
}

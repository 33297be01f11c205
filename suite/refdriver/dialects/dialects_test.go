package dialects

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

func TestMainFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"--list-breaks"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "swapped-ids") ||
		!strings.Contains(out.String(), "fails (mock --strict-roles): anthropic.strict-role-alternation") {
		t.Errorf("--list-breaks: %d %q", code, out.String())
	}
	if code := Main([]string{"--break", "nonsense"}, &out, &errb); code != 2 {
		t.Errorf("unknown break: exit %d", code)
	}
	t.Setenv(task.EnvTask, "")
	if code := Main(nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "TOOLWIRE_TASK") {
		t.Errorf("no task: exit %d %q", code, errb.String())
	}
}

// TestTablesAgree: a mistake several dialects make is one mistake: one
// description, and under each mock configuration one scenario set, so
// the kill matrix gathered from the tables means the same for each.
func TestTablesAgree(t *testing.T) {
	type config struct {
		name                       refdriver.Break
		strictRoles, geminiCallIDs bool
	}
	description := map[refdriver.Break]string{}
	scenarios := map[config][]string{}
	for _, d := range All() {
		seen := map[refdriver.Break]bool{}
		for _, m := range d.Mistakes {
			if m.Name == refdriver.None || m.Description == "" {
				t.Errorf("%s: a row without a name or a description: %+v", d.Name, m)
			}
			if seen[m.Name] {
				t.Errorf("%s: %s twice", d.Name, m.Name)
			}
			seen[m.Name] = true
			if prev, ok := description[m.Name]; ok && prev != m.Description {
				t.Errorf("%s: %s described as %q and %q", d.Name, m.Name, prev, m.Description)
			}
			description[m.Name] = m.Description
			for _, k := range append([]refdriver.Kill{m.Kill}, m.Also...) {
				c := config{m.Name, k.StrictRoles, k.GeminiCallIDs}
				if prev, ok := scenarios[c]; ok && !slices.Equal(prev, k.Scenarios) {
					t.Errorf("%s: %+v runs on %v and %v", d.Name, c, prev, k.Scenarios)
				}
				scenarios[c] = k.Scenarios
			}
		}
	}
	for _, b := range Breaks() {
		if info, ok := LookupBreak(string(b.Name)); !ok || info.Description != b.Description {
			t.Errorf("LookupBreak(%q) = %+v, %v", b.Name, info, ok)
		}
	}
}

// TestRulesInTheirDialect: a dialect's table names only its own rules
// (or the shared scenario checks' patterns), so each expectation is
// declared where its rule is.
func TestRulesInTheirDialect(t *testing.T) {
	for _, d := range All() {
		for _, m := range d.Mistakes {
			for _, k := range append([]refdriver.Kill{m.Kill}, m.Also...) {
				for _, id := range append(slices.Clone(k.Fails), k.MayFail...) {
					if !strings.HasPrefix(id, string(d.Name)+".") && !strings.HasPrefix(id, "*.") {
						t.Errorf("%s: %s names %s", d.Name, m.Name, id)
					}
				}
			}
		}
	}
}

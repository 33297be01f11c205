package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func runCmd(t *testing.T, cmd *cobra.Command, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestRulesJSONListsEveryFamily(t *testing.T) {
	out, err := runCmd(t, newRulesCommand(), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ ID, Dialect, Level, Summary, Source string }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range list {
		if r.ID == "" || r.Summary == "" || r.Source == "" {
			t.Errorf("incomplete rule %+v", r)
		}
		seen[r.Dialect] = true
	}
	for _, d := range []string{"openai-chat", "openai-responses", "anthropic", "gemini", "rap"} {
		if !seen[d] {
			t.Errorf("no %s rules", d)
		}
	}
	out, _ = runCmd(t, newRulesCommand(), "--dialect", "gemini")
	if !strings.Contains(out, "gemini.thought-signature") || strings.Contains(out, "anthropic.") {
		t.Errorf("--dialect gemini filtered wrongly:\n%s", out)
	}
}

func TestCheckFindsTheViolationAndPassesTheFix(t *testing.T) {
	out, err := runCmd(t, newCheckCommand(), "--dialect", "anthropic", "testdata/anthropic-text-first.json")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("want exit 1 on a MUST violation, got %v\n%s", err, out)
	}
	if !strings.Contains(out, "anthropic.tool-result-first") || !strings.Contains(out, "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.") {
		t.Fatalf("violation not reported verbatim:\n%s", out)
	}
	out, err = runCmd(t, newCheckCommand(), "--dialect", "anthropic", "testdata/anthropic-good.json")
	if err != nil || !strings.Contains(out, "no violations") {
		t.Fatalf("corrected request: %v\n%s", err, out)
	}
	if _, err := runCmd(t, newCheckCommand(), "--dialect", "klingon", "testdata/anthropic-good.json"); err == nil {
		t.Fatal("unknown dialect accepted")
	}
}

// docs/rules.md is the catalog as `rules --markdown` prints it; `make docs`
// regenerates it.
func TestRulesDocIsCurrent(t *testing.T) {
	out, err := runCmd(t, newRulesCommand(), "--markdown")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), out) {
		t.Fatal("docs/rules.md is stale: run `make docs`")
	}
}

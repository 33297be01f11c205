package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/reports"
)

func testLibrary() library {
	return library{dir: "lib", run: &reports.Run{
		Implementation: reports.Implementation{Name: "Lib", Version: "lib 1.0"},
		Dialects:       []string{"openai-chat", "gemini"},
		Results: []reports.Result{
			{Rule: "openai-chat.error-flagged", Level: "SHOULD", Scenario: "error-result", Dialect: "openai-chat", Feature: "errors", Outcome: reports.Warn},
			{Rule: "gemini.error-flagged", Level: "MUST", Scenario: "error-result", Dialect: "gemini", Feature: "errors", Outcome: reports.Fail},
			{Rule: "gemini.error-flagged", Level: "MUST", Scenario: "error-result", Dialect: "gemini", Feature: "errors", Stream: true, Outcome: reports.Fail},
			{Rule: "gemini.structured-response-object", Level: "SHOULD", Scenario: "structured-content", Dialect: "gemini", Feature: "structured", Outcome: reports.Warn},
			{Rule: "openai-chat.final-text", Level: "MUST", Scenario: "single-call", Dialect: "openai-chat", Feature: "core", Outcome: reports.Pass},
			{Rule: "gemini.thought-signature-issued", Level: "MUST", Scenario: "gemini3-signature-parallel", Dialect: "gemini", Feature: "signatures", Outcome: reports.Fail},
			{Rule: "openai-chat.final-text", Level: "MUST", Scenario: "image-result", Dialect: "openai-chat", Feature: "images", Outcome: reports.NotSupported},
			{Rule: "openai-chat.n-range", Level: "MUST", Scenario: "single-call", Dialect: "openai-chat", Feature: "choices", Outcome: reports.NotExercised},
		},
	}}
}

// The table's cells: a false failure of toolwire does not count against the
// library, a MUST defect fails, a SHOULD one warns, an undeclared feature
// did not run, nor did a feature whose rules had nothing to judge.
func TestCells(t *testing.T) {
	lib := testLibrary()
	findings := []Finding{
		{Library: "lib", Rule: "openai-*.error-flagged", Scenario: "*", Verdict: "toolwire", Note: "no flag on OpenAI"},
		{Library: "lib", Rule: "gemini.error-flagged", Scenario: "error-*", Verdict: "bug", Note: "no error key"},
		{Library: "other", Rule: "*", Scenario: "*", Verdict: "toolwire", Note: "another library's finding"},
		{Library: "lib", Rule: "gemini.thought-signature-issued", Scenario: "*", Verdict: "unconfirmed", Note: "a made-up signature"},
	}
	fails := failuresOf(lib, findings)
	for _, c := range []struct{ dialect, feature, want string }{
		{"openai-chat", "errors", "pass\\*"},
		{"gemini", "errors", "**fail**"},
		{"gemini", "structured", "warn"},
		{"gemini", "signatures", "unconfirmed"},
		{"openai-chat", "core", "pass"},
		{"openai-chat", "images", "—"},
		{"openai-chat", "choices", "—"},
	} {
		if got := cell(lib, fails, c.dialect, c.feature); got != c.want {
			t.Errorf("cell(%s, %s) = %q, want %q", c.dialect, c.feature, got, c.want)
		}
	}
	// both stream modes of one failure fold into one row
	for _, f := range fails {
		if f.rule == "gemini.error-flagged" && strings.Join(f.modes, ",") != "non-streamed,streamed" {
			t.Errorf("gemini.error-flagged modes = %v", f.modes)
		}
	}
	page := string(render([]library{lib}, findings))
	for _, want := range []string{
		"## Lib (lib 1.0)",
		"| errors | pass\\* | **fail** |",
		"no error key",
		"not investigated yet: ", // the structured warning has no finding
		"### Unconfirmed",
		"a made-up signature",
		"### toolwire false failures",
		"no flag on OpenAI",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "another library's finding") {
		t.Error("a finding of another library was applied")
	}
	if strings.Contains(page, "| choices |") {
		t.Error("a feature nothing judged has a row")
	}
}

func TestFindingsVerdictChecked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "findings.json")
	if err := os.WriteFile(p, []byte(`[{"library":"lib","rule":"x","scenario":"*","verdict":"maybe","note":"n"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadFindings(p); err == nil || !strings.Contains(err.Error(), "not bug, toolwire or unconfirmed") {
		t.Fatalf("loadFindings accepted an unknown verdict: %v", err)
	}
	if err := os.WriteFile(p, []byte(`[{"library":"lib","rule":"x","scenario":"*","verdict":"bug","typo":1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadFindings(p); err == nil {
		t.Fatal("loadFindings accepted an unknown member")
	}
}

func TestNoReports(t *testing.T) {
	if _, err := loadLibraries(t.TempDir()); err == nil || !strings.Contains(err.Error(), "make libraries") {
		t.Fatalf("an empty reports directory gave %v", err)
	}
}

// The committed findings file must load: a typo there would only show at
// the end of a long make libraries run.
func TestCommittedFindingsLoad(t *testing.T) {
	fs, err := loadFindings("../../examples/libraries/findings.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Verdict == "bug" && f.Source == "" {
			t.Errorf("%s %s %s: a defect without the library's source line", f.Library, f.Rule, f.Scenario)
		}
		if f.Note == "" {
			t.Errorf("%s %s %s: no note", f.Library, f.Rule, f.Scenario)
		}
	}
}

// make libraries runs langchaingo's Gemini apart, without the strict
// feature, and merges it with the Chat Completions run: the page shows one
// library with both dialects, strict run on Chat Completions and not run
// (—) on Gemini, whose strict-tools results are not-supported.
func TestMergedRunsOfDisjointDialects(t *testing.T) {
	impl := reports.Implementation{Name: "Lib", Version: "1.0"}
	chat := &reports.Run{Implementation: impl, Dialects: []string{"openai-chat"}, Features: []string{"core", "strict"}, Results: []reports.Result{
		{Rule: "openai-chat.final-text", Level: "MUST", Scenario: "single-call", Dialect: "openai-chat", Feature: "core", Outcome: reports.Pass},
		{Rule: "openai-chat.strict-sent", Level: "MUST", Scenario: "strict-tools", Dialect: "openai-chat", Feature: "strict", Outcome: reports.Pass},
	}}
	gemini := &reports.Run{Implementation: impl, Dialects: []string{"gemini"}, Features: []string{"core"}, Results: []reports.Result{
		{Rule: "gemini.final-text", Level: "MUST", Scenario: "single-call", Dialect: "gemini", Feature: "core", Outcome: reports.Pass},
		{Rule: "gemini.strict-sent", Level: "MUST", Scenario: "strict-tools", Dialect: "gemini", Feature: "strict", Outcome: reports.NotSupported},
	}}
	run, err := reports.Merge(chat, gemini)
	if err != nil {
		t.Fatalf("merge of two runs with different dialects and features: %v", err)
	}
	dir := t.TempDir()
	if err := reports.WriteAll(filepath.Join(dir, "lib"), run); err != nil {
		t.Fatal(err)
	}
	libs, err := loadLibraries(dir)
	if err != nil || len(libs) != 1 {
		t.Fatalf("libraries %v, %v: want the one merged report", libs, err)
	}
	fails := failuresOf(libs[0], nil)
	for _, c := range []struct{ dialect, feature, want string }{
		{"openai-chat", "strict", "pass"},
		{"gemini", "strict", "—"},
		{"gemini", "core", "pass"},
	} {
		if got := cell(libs[0], fails, c.dialect, c.feature); got != c.want {
			t.Errorf("cell(%s, %s) = %q, want %q", c.dialect, c.feature, got, c.want)
		}
	}
	if page := string(render(libs, nil)); !strings.Contains(page, "| feature | openai-chat | gemini |") {
		t.Errorf("the page does not show both dialects:\n%s", page)
	}
}

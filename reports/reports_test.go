package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite testdata/sample-report.html")

// baselinedSample is the sample run after its baseline: 7 pass, 2 fail
// (one real, one stale baseline entry), 1 warn, 1 baselined, 1 error,
// 1 not-supported.
func baselinedSample(t *testing.T) *Run {
	t.Helper()
	run := sampleRun()
	ApplyBaseline(run, sampleBaseline())
	return run
}

func render(t *testing.T, write func(*bytes.Buffer, *Run) error, run *Run) string {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, run); err != nil {
		t.Fatalf("render: %v", err)
	}
	return buf.String()
}

func junitOf(b *bytes.Buffer, r *Run) error { return WriteJUnit(b, r) }
func yamlOf(b *bytes.Buffer, r *Run) error  { return WriteConformanceReport(b, r) }
func mdOf(b *bytes.Buffer, r *Run) error    { return WriteSummary(b, r) }
func htmlOf(b *bytes.Buffer, r *Run) error  { return WriteHTML(b, r) }
func jsonOf(b *bytes.Buffer, r *Run) error  { return WriteJSON(b, r) }

func TestCountsAfterBaseline(t *testing.T) {
	got := baselinedSample(t).Counts()
	want := Counts{Total: 13, Passed: 7, Failed: 2, Warned: 1, NotSupported: 1, Errors: 1, Baselined: 1}
	if got != want {
		t.Fatalf("counts = %+v, want %+v", got, want)
	}
}

func TestJUnitParsesBackWithCounts(t *testing.T) {
	out := render(t, junitOf, baselinedSample(t))
	var parsed JUnitTestSuites
	if err := xml.Unmarshal([]byte(out), &parsed); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, out)
	}
	if parsed.Tests != 13 || parsed.Failures != 2 || parsed.Errors != 1 || parsed.Skipped != 2 {
		t.Errorf("totals tests=%d failures=%d errors=%d skipped=%d, want 13/2/1/2 (skipped = not-supported + baselined)",
			parsed.Tests, parsed.Failures, parsed.Errors, parsed.Skipped)
	}
	var names []string
	for _, s := range parsed.Suites {
		names = append(names, s.Name)
	}
	if want := []string{"openai-chat", "openai-responses", "anthropic", "gemini", "rap"}; !slices.Equal(names, want) {
		t.Errorf("suites = %v, want one per dialect %v", names, want)
	}
	cases := map[string]JUnitTestCase{}
	for _, s := range parsed.Suites {
		n := 0
		for _, c := range s.Cases {
			cases[c.Name] = c
			if c.Failure != nil {
				n++
			}
		}
		if n != s.Failures {
			t.Errorf("suite %s failures attr %d, but %d failure elements", s.Name, s.Failures, n)
		}
	}
	fail, ok := cases["anthropic.tool-result-first [parallel-same-tool/anthropic/stream]"]
	if !ok || fail.Failure == nil || fail.Failure.Type != "MUST" {
		t.Fatalf("MUST failure testcase missing or wrong: %+v", fail)
	}
	if !strings.Contains(fail.Failure.Body, "<script>alert('x')</script>") {
		t.Errorf("failure body should carry the exact excerpt (XML-escaped on the wire, intact once parsed)")
	}
	if outside := regexp.MustCompile(`(?s)<!\[CDATA\[.*?\]\]>`).ReplaceAllString(out, ""); strings.Contains(outside, "<script") {
		t.Errorf("<script> from an excerpt appears in junit.xml outside CDATA")
	}
	warn := cases["openai-chat.parallel-results-order [parallel-same-tool/openai-chat/nonstream]"]
	if warn.Failure != nil || warn.SystemOut == nil || !strings.Contains(warn.SystemOut.Text, "WARNING (SHOULD)") {
		t.Errorf("warn should pass with system-out when not strict: %+v", warn)
	}
	if c := cases["gemini.function-response-name [multimodal-result/gemini/stream]"]; c.Error == nil {
		t.Errorf("harness error should be an <error>: %+v", c)
	}
	if c := cases["gemini.multimodal-function-response [multimodal-result/gemini/nonstream]"]; c.Skipped == nil || !strings.Contains(c.Skipped.Message, "multimodal-results") {
		t.Errorf("not-supported should be skipped naming the feature: %+v", c)
	}
	if c := cases["openai-responses.function-call-output-id [tool-error-result/openai-responses/nonstream]"]; c.Skipped == nil || c.Failure != nil {
		t.Errorf("baselined failure should be skipped, not failed: %+v", c)
	}
	if c := cases["anthropic.tool-use-id-echo [single-call/anthropic/nonstream]"]; c.Failure == nil || !strings.Contains(c.Failure.Message, StaleBaselineMessage) {
		t.Errorf("stale baseline entry should fail: %+v", c)
	}
}

func TestJUnitSurvivesHostileText(t *testing.T) {
	run := &Run{Implementation: Implementation{Name: "x\x00"}, Results: []Result{{
		Rule: "a.b", Level: "MUST", Scenario: "s", Dialect: "d", Outcome: Fail,
		Message: "bad \x01 byte", Excerpt: "data: {\"x\":\"]]>\x1b[0m\"}\n\x00",
	}, {
		Rule: "a.c", Level: "SHOULD", Scenario: "s", Dialect: "d", Outcome: Warn, Excerpt: "]]><script>",
	}}}
	out := render(t, junitOf, run)
	var parsed JUnitTestSuites
	if err := xml.Unmarshal([]byte(out), &parsed); err != nil {
		t.Fatalf("junit.xml with control characters and ]]> does not parse: %v\n%s", err, out)
	}
	body := parsed.Suites[0].Cases[0].Failure.Body
	if !strings.Contains(body, `"]]>`) || !strings.Contains(body, "\uFFFD[0m") {
		t.Errorf("body lost the excerpt: %q", body)
	}
	if so := parsed.Suites[0].Cases[1].SystemOut; so == nil || !strings.Contains(so.Text, "]]><script>") {
		t.Errorf("system-out lost the excerpt: %+v", so)
	}
}

func TestJUnitStrictTurnsWarningsIntoFailures(t *testing.T) {
	run := baselinedSample(t)
	run.Strict = true
	var parsed JUnitTestSuites
	if err := xml.Unmarshal([]byte(render(t, junitOf, run)), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Failures != 3 {
		t.Fatalf("failures = %d, want 3 (2 MUST + 1 strict SHOULD)", parsed.Failures)
	}
	for _, s := range parsed.Suites {
		for _, c := range s.Cases {
			if c.Name == "openai-chat.parallel-results-order [parallel-same-tool/openai-chat/nonstream]" {
				if c.Failure == nil || c.Failure.Type != "SHOULD" {
					t.Fatalf("strict warn should be a SHOULD failure: %+v", c)
				}
				return
			}
		}
	}
	t.Fatal("warn testcase not found")
}

func TestConformanceReportYAMLParsesBack(t *testing.T) {
	out := render(t, yamlOf, baselinedSample(t))
	var rep ConformanceReport
	if err := yaml.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("yaml does not parse: %v\n%s", err, out)
	}
	if rep.Kind != "ConformanceReport" || rep.Implementation.Name != "acme-llm-adapter" || rep.Implementation.Version != "1.4.2" ||
		rep.ToolwireVersion != "0.3.0" || rep.Mode != "driver" || rep.Date != "2026-09-30T14:05:00Z" {
		t.Errorf("header wrong: %+v", rep)
	}
	got := map[string]DialectReport{}
	for _, d := range rep.Dialects {
		got[d.Name] = d
	}
	wantResult := map[string]DialectResult{
		"openai-chat":      ResultPartial, // a SHOULD warning
		"openai-responses": ResultPartial, // a baselined failure
		"anthropic":        ResultFailure, // a MUST failure + a stale baseline entry
		"gemini":           ResultFailure, // a harness error
		"rap":              ResultSuccess,
	}
	for d, want := range wantResult {
		if got[d].Result != want {
			t.Errorf("%s result = %q, want %q (%s)", d, got[d].Result, want, got[d].Summary)
		}
	}
	if a := got["anthropic"]; a.Statistics != (Statistics{Passed: 2, Failed: 2}) ||
		!slices.Equal(a.FailedRules, []string{"anthropic.tool-result-first", "anthropic.tool-use-id-echo"}) {
		t.Errorf("anthropic stats/failedRules = %+v %v", a.Statistics, a.FailedRules)
	}
	if g := got["gemini"]; g.Statistics.Skipped != 1 || g.Statistics.Errors != 1 ||
		!slices.Equal(g.UnsupportedFeatures, []string{"multimodal-results"}) {
		t.Errorf("gemini = %+v", g)
	}
	if rep.Verdict != VerdictHarnessError || rep.ExitCode != 2 {
		t.Errorf("verdict %q exit %d", rep.Verdict, rep.ExitCode)
	}
	if !slices.Equal(rep.UnmatchedBaseline, []string{"gemini.removed-rule"}) {
		t.Errorf("unmatched baseline = %v", rep.UnmatchedBaseline)
	}
}

func TestSummaryMarkdownListsFailures(t *testing.T) {
	out := render(t, mdOf, baselinedSample(t))
	for _, want := range []string{
		"## ⚠️ Harness error: acme-llm-adapter 1.4.2",
		"| anthropic | failure | 2 | 2 | 0 | 0 | 0 | 0 |",
		"| rap | success | 1 | 0 | 0 | 0 | 0 | 0 |",
		"### Failures (2 checks in 2 rules)",
		"- `anthropic.tool-result-first` (MUST), 1 occurrence\n",
		"  - parallel-same-tool / anthropic / stream: tool\\_result blocks must come first",
		"- `anthropic.tool-use-id-echo` (MUST), 1 occurrence\n",
		"  - single-call / anthropic / nonstream: " + StaleBaselineMessage,
		"### Harness errors (1 check, 1 cause)",
		"- adapter process exited with status 2 before sending a request\n  - multimodal-result / gemini / stream\n",
		"### Warnings (SHOULD) (1 check in 1 rule)",
		"### Expected failures (baseline) (1 check in 1 rule)",
		"`gemini.removed-rule`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary.md lacks %q\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 60 {
		t.Errorf("summary.md has %d lines; it should stay short", n)
	}
}

func TestSummaryMarkdownEscapesMarkup(t *testing.T) {
	run := &Run{Implementation: Implementation{Name: "x"}, Results: []Result{{
		Rule: "a.b", Level: "MUST", Scenario: "s", Dialect: "d", Outcome: Fail,
		Message: "got <img src=x onerror=alert(1)> | [link](javascript:x)",
	}}}
	out := render(t, mdOf, run)
	if regexp.MustCompile(`(^|[^\\])[<\[|]`).MatchString(out[strings.Index(out, "### Failures"):]) {
		t.Fatalf("markup leaked into summary.md:\n%s", out)
	}
}

func TestHTMLMatrixAndEscapedExcerpt(t *testing.T) {
	out := render(t, htmlOf, baselinedSample(t))
	for _, want := range []string{
		`<td class="cell fail"><a href="#d-anthropic.tool-result-first--anthropic"`, // worst outcome colours the cell
		`>1 fail · 2 pass<span class="sr">, see details</span></a>`,
		`<td class="cell warn"><a href="#d-openai-chat.parallel-results-order--openai-chat"`,
		`<td class="cell baselined">`,
		`<td class="cell error">`,
		`<td class="cell not-supported">1 n/s</td>`,
		`<td class="cell pass">1 pass</td>`,
		`<td class="cell empty">—<span class="sr">not run</span></td>`,
		`id="d-anthropic.tool-result-first--anthropic"`,
		`&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;`, // the excerpt, escaped
		`18°C &amp; sunny`,
		`<a href="https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use#handling-results-from-client-tools">`,
		`Source: an offline note §3.3`,                                              // not a URL: plain text
		"<span class=\"del\">-      &#34;text&#34;: &#34;here you go&#34;\n</span>", // unified diff of the indented JSON
		`How to fix:`,
		`<span class="big">Harness error</span>`,
		`acme-llm-adapter`,
		`<code>gemini.removed-rule</code>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(out, "<script") {
		t.Errorf("report.html contains a raw <script>: an excerpt was not escaped, or the page is not script-free")
	}
	for _, external := range []string{`<link`, `src="http`, `@import`, `url(`} {
		if strings.Contains(out, external) {
			t.Errorf("report.html references an external asset (%q); it must be self-contained", external)
		}
	}
}

func TestHTMLDoesNotLinkNonHTTPSources(t *testing.T) {
	run := &Run{Implementation: Implementation{Name: "x"}, Results: []Result{{
		Rule: "a.b", Level: "MUST", Scenario: "s", Dialect: "d", Outcome: Fail, Source: "javascript:alert(1)",
	}}}
	out := render(t, htmlOf, run)
	if strings.Contains(out, `href="javascript`) {
		t.Fatal("a javascript: source became a link")
	}
}

// A source of several references links each address on its own.
func TestHTMLLinksEachReferenceOfASource(t *testing.T) {
	run := &Run{Implementation: Implementation{Name: "x"}, Results: []Result{{
		Rule: "a.b", Level: "MUST", Scenario: "s", Dialect: "d", Outcome: Fail,
		Source: "https://a.example/x (the answer, verbatim); https://b.example/y; testdata/corpus/z.jsonl (recorded 400); the text [I]",
	}}}
	out := render(t, htmlOf, run)
	want := `Source: <a href="https://a.example/x">https://a.example/x</a> (the answer, verbatim); <a href="https://b.example/y">https://b.example/y</a>; testdata/corpus/z.jsonl (recorded 400); the text [I]`
	if !strings.Contains(out, want) {
		t.Errorf("report.html lacks %q", want)
	}
}

func TestVerdictAndExitCodes(t *testing.T) {
	base := func(outcomes ...Outcome) *Run {
		run := &Run{}
		for i, o := range outcomes {
			run.Results = append(run.Results, Result{Rule: "x.r", Dialect: "d", Scenario: string(rune('a' + i)), Outcome: o})
		}
		return run
	}
	cases := []struct {
		name   string
		run    *Run
		strict bool
		want   Verdict
		exit   int
	}{
		{"all pass", base(Pass, Pass), false, VerdictConformant, 0},
		{"not-supported does not count", base(Pass, NotSupported), false, VerdictConformant, 0},
		{"warn passes when not strict", base(Pass, Warn), false, VerdictConformant, 0},
		{"warn fails when strict", base(Pass, Warn), true, VerdictFailures, 1},
		{"MUST failure", base(Pass, Fail), false, VerdictFailures, 1},
		{"harness error wins", base(Fail, Error), false, VerdictHarnessError, 2},
		{"unknown outcome is a harness error", base(Pass, Outcome("weird")), false, VerdictHarnessError, 2},
		{"nothing ran", base(NotSupported), false, VerdictHarnessError, 2},
		{"empty run", base(), false, VerdictHarnessError, 2},
		{"nil run", nil, false, VerdictHarnessError, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.run != nil {
				c.run.Strict = c.strict
			}
			v := c.run.Verdict()
			if v != c.want || v.ExitCode() != c.exit {
				t.Fatalf("verdict %q exit %d, want %q exit %d", v, v.ExitCode(), c.want, c.exit)
			}
		})
	}
	failing := base(Pass, Fail)
	ApplyBaseline(failing, []BaselineEntry{{Rule: "x.r"}})
	if v := failing.Verdict(); v != VerdictConformant {
		t.Fatalf("baselined failure should not fail the run, got %q", v)
	}
}

func TestDialectResult(t *testing.T) {
	mk := func(strict bool, rs ...Result) *Run {
		for i := range rs {
			rs[i].Dialect = "d"
		}
		return &Run{Strict: strict, Results: rs}
	}
	cases := []struct {
		name string
		run  *Run
		want DialectResult
	}{
		{"all pass", mk(false, Result{Outcome: Pass}, Result{Outcome: NotSupported}), ResultSuccess},
		{"warn", mk(false, Result{Outcome: Pass}, Result{Outcome: Warn}), ResultPartial},
		{"strict warn", mk(true, Result{Outcome: Pass}, Result{Outcome: Warn}), ResultFailure},
		{"baselined", mk(false, Result{Outcome: Pass}, Result{Outcome: Fail, Baselined: true}), ResultPartial},
		{"only not-supported", mk(false, Result{Outcome: NotSupported}), ResultPartial},
		{"fail", mk(false, Result{Outcome: Pass}, Result{Outcome: Fail}), ResultFailure},
		{"error", mk(false, Result{Outcome: Pass}, Result{Outcome: Error}), ResultFailure},
	}
	for _, c := range cases {
		if got := c.run.DialectResult("d"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestApplyBaseline(t *testing.T) {
	run := baselinedSample(t)
	find := func(rule, scenario string) Result {
		for _, r := range run.Results {
			if r.Rule == rule && r.Scenario == scenario {
				return r
			}
		}
		t.Fatalf("no result %s/%s", rule, scenario)
		return Result{}
	}
	if r := find("openai-responses.function-call-output-id", "tool-error-result"); !r.Baselined || r.Outcome != Fail {
		t.Errorf("listed failure should be Baselined and stay a Fail: %+v", r)
	}
	if r := find("openai-responses.function-call-output-id", "single-call"); r.Baselined || r.Outcome != Pass {
		t.Errorf("scenario-scoped entry must not touch another scenario: %+v", r)
	}
	stale := find("anthropic.tool-use-id-echo", "single-call")
	if stale.Outcome != Fail || !stale.StaleBaseline || stale.Message != StaleBaselineMessage || !strings.Contains(stale.Fix, "anthropic.tool-use-id-echo") {
		t.Errorf("stale entry should turn the pass into a Fail: %+v", stale)
	}
	if r := find("anthropic.tool-result-first", "parallel-same-tool"); r.Baselined {
		t.Errorf("unlisted failure got baselined")
	}
	if !slices.Equal(run.UnmatchedBaseline, []string{"gemini.removed-rule"}) {
		t.Errorf("unmatched = %v", run.UnmatchedBaseline)
	}
	if run.Verdict() != VerdictHarnessError {
		t.Errorf("sample has a harness error")
	}

	// Idempotent: applying the same baseline again changes nothing.
	before, _ := json.Marshal(run)
	ApplyBaseline(run, sampleBaseline())
	after, _ := json.Marshal(run)
	if !bytes.Equal(before, after) {
		t.Errorf("ApplyBaseline is not idempotent:\n%s\n%s", before, after)
	}
}

func TestApplyBaselineScopes(t *testing.T) {
	mk := func() *Run {
		return &Run{Results: []Result{
			{Rule: "r.x", Scenario: "s1", Dialect: "a", Outcome: Fail},
			{Rule: "r.x", Scenario: "s1", Dialect: "b", Outcome: Pass},
			{Rule: "r.x", Scenario: "s2", Dialect: "a", Outcome: Warn},
			{Rule: "r.y", Scenario: "s1", Dialect: "a", Outcome: Error},
		}}
	}
	t.Run("rule covers every scenario and dialect; a still-failing broad entry is not stale", func(t *testing.T) {
		run := mk()
		ApplyBaseline(run, []BaselineEntry{{Rule: "r.x"}})
		if !run.Results[0].Baselined || !run.Results[2].Baselined || run.Results[1].Outcome != Pass {
			t.Fatalf("%+v", run.Results)
		}
	})
	t.Run("rule:scenario:dialect is exact and can go stale", func(t *testing.T) {
		run := mk()
		e, err := ParseBaselineEntry("r.x:s1:b")
		if err != nil {
			t.Fatal(err)
		}
		ApplyBaseline(run, []BaselineEntry{e})
		if run.Results[0].Baselined || run.Results[1].Outcome != Fail || run.Results[1].Message != StaleBaselineMessage {
			t.Fatalf("%+v", run.Results)
		}
		if run.Verdict() != VerdictHarnessError { // r.y error still there
			t.Fatalf("verdict %q", run.Verdict())
		}
	})
	t.Run("errors are never baselined", func(t *testing.T) {
		run := mk()
		ApplyBaseline(run, []BaselineEntry{{Rule: "r.y"}})
		if run.Results[3].Baselined || run.Results[3].Outcome != Error {
			t.Fatalf("%+v", run.Results[3])
		}
		if !slices.Equal(run.UnmatchedBaseline, []string{"r.y"}) {
			t.Fatalf("unmatched = %v", run.UnmatchedBaseline)
		}
	})
	t.Run("wildcard scenario", func(t *testing.T) {
		run := mk()
		ApplyBaseline(run, []BaselineEntry{{Rule: "r.x", Scenario: "*", Dialect: "a"}})
		if !run.Results[0].Baselined || !run.Results[2].Baselined || run.Results[1].Outcome != Pass {
			t.Fatalf("%+v", run.Results)
		}
	})
}

func TestParseBaseline(t *testing.T) {
	good := map[string][]string{
		"":                                      nil,
		"# nothing\n":                           nil,
		"- a.b\n- a.b:s1\n- a.b:s1:anthropic\n": {"a.b", "a.b:s1", "a.b:s1:anthropic"},
		"expected-failures:\n  - a.b # flaky upstream\n  - rule: c.d\n    dialect: gemini\n    reason: issue 12\n": {"a.b", "c.d:*:gemini"},
		"expected-failures:\n": nil,
	}
	for in, want := range good {
		entries, err := ParseBaseline([]byte(in))
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", in, got, want)
		}
	}
	for _, bad := range []string{
		"- a:b:c:d\n",
		"- ':s1'\n",
		"other: [a.b]\n",
		"- [a, b]\n",
		"a.b\n",
		"- rule: ''\n",
		"- {rule: [x]}\n",
		"- : :\n",
		"\t- broken",
	} {
		if _, err := ParseBaseline([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestLoadBaseline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expected-failures.yaml")
	if err := os.WriteFile(path, []byte("- anthropic.tool-result-first:parallel-same-tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := LoadBaseline(path)
	if err != nil || len(entries) != 1 || entries[0] != (BaselineEntry{Rule: "anthropic.tool-result-first", Scenario: "parallel-same-tool"}) {
		t.Fatalf("entries %+v err %v", entries, err)
	}
	if _, err := LoadBaseline(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Fatal("missing file should be an error")
	}
}

func TestJSONRoundTripAndSummary(t *testing.T) {
	run := baselinedSample(t)
	out := render(t, jsonOf, run)
	var raw struct {
		Format  string  `json:"format"`
		Summary Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Format != ReportFormat || raw.Summary.Verdict != VerdictHarnessError || raw.Summary.ExitCode != 2 ||
		raw.Summary.Counts != run.Counts() || len(raw.Summary.Dialects) != 5 {
		t.Errorf("summary = %+v", raw.Summary)
	}
	if !strings.Contains(out, `<script>alert('x')</script>`) {
		t.Errorf("report.json should keep excerpts readable (no HTML escaping)")
	}
	back, err := ReadJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if back.Counts() != run.Counts() || back.Implementation != run.Implementation || !back.Date.Equal(run.Date) ||
		back.Duration != run.Duration || len(back.Results) != len(run.Results) {
		t.Errorf("round trip lost data: %+v", back)
	}
}

func TestWriteAllWritesFiveFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "results")
	if err := WriteAll(dir, baselinedSample(t)); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{YAMLFile, JUnitFile, JSONFile, HTMLFile, SummaryFile}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("files = %v, want %v (and no temporary leftovers)", names, want)
	}
}

func TestWriteAllKeepsGoingAfterOneFailure(t *testing.T) {
	dir := t.TempDir()
	// A directory where junit.xml should go makes that one write fail.
	if err := os.Mkdir(filepath.Join(dir, JUnitFile), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteAll(dir, baselinedSample(t))
	if err == nil || !strings.Contains(err.Error(), JUnitFile) {
		t.Fatalf("want an error naming %s, got %v", JUnitFile, err)
	}
	for _, name := range []string{JSONFile, YAMLFile, SummaryFile, HTMLFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written after another file failed: %v", name, err)
		}
	}
	if err := WriteAll(dir, nil); err == nil {
		t.Errorf("nil run should be an error")
	}
}

func TestWritersRejectNilRun(t *testing.T) {
	for name, w := range map[string]func(*bytes.Buffer, *Run) error{"junit": junitOf, "json": jsonOf, "yaml": yamlOf, "md": mdOf, "html": htmlOf} {
		if err := w(&bytes.Buffer{}, nil); !errors.Is(err, errNilRun) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestWritersHandleEmptyRun(t *testing.T) {
	run := &Run{}
	for name, w := range map[string]func(*bytes.Buffer, *Run) error{"junit": junitOf, "json": jsonOf, "yaml": yamlOf, "md": mdOf, "html": htmlOf} {
		if err := w(&bytes.Buffer{}, run); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, 84)
	run := sampleRun()
	var group []Result
	for _, r := range run.Results {
		if r.Dialect == "anthropic" && r.Scenario == "parallel-same-tool" {
			group = append(group, r)
		}
	}
	p.Done("anthropic", "parallel-same-tool", true, group)
	p.Done("rap", "single-call", false, nil)
	p.Finish(baselinedSample(t))
	want := "[1/84] anthropic parallel-same-tool stream: 1 pass, 1 fail (anthropic.tool-result-first)\n" +
		"[2/84] rap single-call nonstream: no checks\n" +
		"toolwire: harness error (exit 2): 7 pass, 2 fail, 1 warn, 1 baselined, 1 not-supported, 1 error\n"
	if buf.String() != want {
		t.Fatalf("progress output:\n%s\nwant:\n%s", buf.String(), want)
	}

	var nilProgress *Progress
	nilProgress.Done("a", "b", false, group) // must not panic
	nilProgress.Finish(run)
}

func TestProgressConcurrentCounter(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, 0)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Done("d", "s", false, []Result{{Outcome: Pass}})
		}()
	}
	wg.Wait()
	if !strings.Contains(buf.String(), "[20] d s nonstream: 1 pass\n") || strings.Count(buf.String(), "\n") != 20 {
		t.Fatalf("output:\n%s", buf.String())
	}
}

// TestRenderSampleReport renders report.html for a failing sample run into
// testdata/sample-report.html, the page shown when reviewing the layout.
// It is written when missing or with -update, and compared otherwise, so
// a template change shows up as a diff of the committed sample.
func TestRenderSampleReport(t *testing.T) {
	run := sampleRun()
	// The sample shows a plain conformance failure: drop the harness
	// error, which would otherwise decide the verdict.
	run.Results = slices.DeleteFunc(run.Results, func(r Result) bool { return r.Outcome == Error })
	ApplyBaseline(run, sampleBaseline())
	if run.Verdict() != VerdictFailures {
		t.Fatalf("sample verdict %q, want failures", run.Verdict())
	}
	out := render(t, htmlOf, run)
	path := filepath.Join("testdata", "sample-report.html")
	committed, err := os.ReadFile(path)
	if *update || errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != out {
		t.Fatalf("%s is out of date; run `go test ./reports -run TestRenderSampleReport -update`", path)
	}
}

package reports

import (
	"bytes"
	"strings"
	"testing"
)

// Two user turns answer tool calls; the second names an id never issued.
// The violation is at the second one: the first must not be highlighted.
const twoResults = `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"x"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"y"}]}]}`

const wrongIDPath = "messages.1.content.0.tool_use_id"

func pathRun(excerpt, path string) *Run {
	return &Run{Dialects: []string{"anthropic"}, Results: []Result{{
		Rule: "anthropic.tool-result-matches", Level: "MUST", Scenario: "single-call", Dialect: "anthropic", Outcome: Fail,
		Message: wrongIDPath + ": unexpected tool_use_id", Excerpt: excerpt, Path: path, Fix: "echo the id",
	}}}
}

func TestHTMLHighlightsTheOffendingMember(t *testing.T) {
	out := render(t, htmlOf, pathRun(twoResults, wrongIDPath))
	if got := marked(out, wrongIDPath); got != `&#34;tool_use_id&#34;: &#34;toolu_9&#34;,` {
		t.Errorf("highlight %q:\n%s", got, excerptOf(out))
	}
	if n := strings.Count(out, "<mark"); n != 1 {
		t.Errorf("%d highlights, want 1:\n%s", n, excerptOf(out))
	}
	if !strings.Contains(out, `Offending member <code>`+wrongIDPath+`</code>, highlighted below.`) {
		t.Errorf("the path is not named above the excerpt:\n%s", excerptOf(out))
	}
}

// A path naming a whole message highlights it from its "{" to its "}".
func TestHTMLHighlightsAContainerAsOneMark(t *testing.T) {
	out := render(t, htmlOf, pathRun(twoResults, "messages.0"))
	got := marked(out, "messages.0")
	if strings.Count(out, "<mark") != 1 || !strings.HasPrefix(got, "{") || !strings.HasSuffix(got, "},") ||
		!strings.Contains(got, "toolu_0") || strings.Contains(got, "toolu_9") {
		t.Errorf("mark covers %q:\n%s", got, excerptOf(out))
	}
}

func TestHTMLSaysWhenThePathIsNotInTheExcerpt(t *testing.T) {
	for _, tc := range []struct{ name, excerpt, note string }{
		{"clipped body", twoResults[:120] + "…(95 more bytes)", "not in the excerpt, which is not a whole JSON body (the request was clipped)"},
		{"path absent", twoResults, "not in the excerpt."},
	} {
		out := render(t, htmlOf, pathRun(tc.excerpt, "messages.2.content.0.tool_use_id"))
		if strings.Contains(out, "<mark") {
			t.Errorf("%s: something is highlighted:\n%s", tc.name, excerptOf(out))
		}
		if !strings.Contains(out, "Offending member <code>messages.2.content.0.tool_use_id</code>: "+tc.note) {
			t.Errorf("%s: no word that the path is missing:\n%s", tc.name, excerptOf(out))
		}
	}
}

// A result without a path shows its excerpt as before: JSON laid out,
// nothing highlighted, no path line.
func TestHTMLExcerptWithoutPath(t *testing.T) {
	out := render(t, htmlOf, pathRun(twoResults, ""))
	if strings.Contains(out, "<mark") || strings.Contains(out, "Offending member") || !strings.Contains(out, `&#34;tool_use_id&#34;: &#34;toolu_9&#34;`) {
		t.Errorf("excerpt without a path:\n%s", excerptOf(out))
	}
}

func TestSummaryMarksTheOffendingLine(t *testing.T) {
	out := render(t, mdOf, pathRun(twoResults, wrongIDPath))
	block := "  - at `" + wrongIDPath + "` (single-call / anthropic / nonstream):\n    ```jsonc\n"
	if !strings.Contains(out, block) {
		t.Fatalf("summary.md lacks %q:\n%s", block, out)
	}
	marked := `          "tool_use_id": "toolu_9",  // ← ` + wrongIDPath + "\n"
	if !strings.Contains(out, marked) {
		t.Errorf("summary.md lacks the marked line %q:\n%s", marked, out)
	}
	if n := strings.Count(out, "// ←"); n != 1 {
		t.Errorf("%d marked lines, want 1:\n%s", n, out)
	}
	if strings.Contains(out, "toolu_0") {
		t.Errorf("the window reaches the first message, far from the path:\n%s", out)
	}
	// Three lines of context either side; the rest left out, in comments.
	if !strings.Contains(out, "    ```jsonc\n          // … 15 more lines\n          \"content\": [\n") || !strings.Contains(out, "        // … 3 more lines\n    ```\n") {
		t.Errorf("window not elided or not closed:\n%s", out)
	}
}

func TestSummarySaysWhenThePathIsNotInTheExcerpt(t *testing.T) {
	out := render(t, mdOf, pathRun(twoResults[:120], wrongIDPath))
	want := "  - at `" + wrongIDPath + "` (single-call / anthropic / nonstream): not in the excerpt, which is not a whole JSON body (the request was clipped)\n"
	if !strings.Contains(out, want) || strings.Contains(out, "```") {
		t.Errorf("summary.md lacks %q:\n%s", want, out)
	}
}

func TestSummaryPathWithoutExcerpt(t *testing.T) {
	out := render(t, mdOf, pathRun("", wrongIDPath))
	if !strings.Contains(out, "(single-call / anthropic / nonstream): no excerpt was recorded\n") {
		t.Errorf("summary.md:\n%s", out)
	}
}

// A backtick run inside the excerpt cannot close the block early.
func TestSummaryFenceOutlastsBackticks(t *testing.T) {
	out := render(t, mdOf, pathRun(`{"messages":[{"content":"`+"```"+`"}]}`, "messages.0.content"))
	if !strings.Contains(out, "    ````jsonc\n") || !strings.Contains(out, "\n    ````\n") {
		t.Errorf("fence not lengthened:\n%s", out)
	}
}

// A long member shows its first lines, an elision, and its last line.
func TestSummaryWindowCutsALongMember(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"messages":[{"role":"user","content":[`)
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"type":"text","text":"t"}`)
	}
	b.WriteString(`]}]}`)
	lines, found := excerptLines(Result{Excerpt: b.String(), Path: "messages.0.content"})
	if !found {
		t.Fatal("path not found")
	}
	window := markdownExcerpt(lines, "messages.0.content")
	if len(window) > summaryHitLines+2*summaryContext+3 {
		t.Errorf("window of %d lines:\n%s", len(window), strings.Join(window, "\n"))
	}
	got := strings.Join(window, "\n")
	for _, want := range []string{`      "content": [  // ← messages.0.content`, "more lines", "      ]\n    }\n  ]"} {
		if !strings.Contains(got, want) {
			t.Errorf("window lacks %q:\n%s", want, got)
		}
	}
}

func TestJSONReportCarriesThePath(t *testing.T) {
	out := render(t, jsonOf, pathRun(twoResults, wrongIDPath))
	if !strings.Contains(out, `"path": "`+wrongIDPath+`"`) {
		t.Errorf("report.json lacks the path:\n%s", out)
	}
	run, err := ReadJSON(bytes.NewReader([]byte(out)))
	if err != nil || run.Results[0].Path != wrongIDPath {
		t.Errorf("path lost on the way back: %v %+v", err, run)
	}
}

// marked is the text report.html highlights for path, without the
// indentation of its first line.
func marked(html, path string) string {
	open := `<mark title="` + path + `">`
	i := strings.Index(html, open)
	if i < 0 {
		return "(nothing marked)"
	}
	rest := html[i+len(open):]
	return strings.TrimLeft(rest[:strings.Index(rest, "</mark>")], " ")
}

// excerptOf is the excerpt part of report.html, for failure messages.
func excerptOf(html string) string {
	i := strings.Index(html, "<h5>Exchange excerpt</h5>")
	if i < 0 {
		return "(no excerpt)"
	}
	j := strings.Index(html[i:], "</pre>")
	if j < 0 {
		return html[i:]
	}
	return html[i : i+j]
}

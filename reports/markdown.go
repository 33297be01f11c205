package reports

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits that keep summary.md short enough for a PR comment or a CI step
// summary (GitHub caps step summaries at 1 MiB); report.html has it all.
const (
	maxSummaryItems   = 50
	maxSummaryMessage = 240
)

// WriteSummary writes summary.md: a headline verdict, a dialect × outcome
// table, then the failures (and warnings, errors, unmatched baseline
// entries), each list capped.
func WriteSummary(w io.Writer, run *Run) error {
	if run == nil {
		return errNilRun
	}
	var b bytes.Buffer
	v := run.Verdict()
	c := run.Counts()
	icon := map[Verdict]string{VerdictConformant: "✅", VerdictFailures: "❌", VerdictHarnessError: "⚠️"}[v]
	name := run.Implementation.Name
	if run.Implementation.Version != "" {
		name += " " + run.Implementation.Version
	}
	fmt.Fprintf(&b, "## %s %s: %s\n\n", icon, md(v.Title()), md(name))
	fmt.Fprintf(&b, "%s — %s.", verdictSentence(v, c, run.Strict), countsPhrase(c))
	var meta []string
	if run.ToolwireVersion != "" {
		meta = append(meta, "toolwire "+md(run.ToolwireVersion))
	}
	if run.Mode != "" {
		meta = append(meta, "mode "+md(run.Mode))
	}
	if run.Strict {
		meta = append(meta, "strict")
	}
	if !run.Date.IsZero() {
		meta = append(meta, run.Date.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if len(meta) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(meta, ", "))
	}
	b.WriteString("\n\n")

	b.WriteString("| Dialect | Result | Pass | Fail | Warn | Baselined | Not supported | Not exercised | Error |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, d := range run.AllDialects() {
		dc := run.DialectCounts(d)
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", md(d), run.DialectResult(d),
			dc.Passed, dc.Failed, dc.Warned, dc.Baselined, dc.NotSupported, dc.NotExercised, dc.Errors)
	}
	fmt.Fprintf(&b, "| **total** | **%s** | %d | %d | %d | %d | %d | %d | %d |\n", v,
		c.Passed, c.Failed, c.Warned, c.Baselined, c.NotSupported, c.NotExercised, c.Errors)

	failTitle := "Failures"
	if run.Strict {
		failTitle = "Failures (MUST, and SHOULD under --strict)"
	}
	summaryList(&b, failTitle, run.Results, func(r Result) bool { return IsFailing(r, run.Strict) })
	harnessErrors(&b, run.Results)
	if !run.Strict {
		summaryList(&b, "Warnings (SHOULD)", run.Results, func(r Result) bool { return r.Outcome == Warn && !r.Baselined })
	}
	summaryList(&b, "Expected failures (baseline)", run.Results, func(r Result) bool { return r.Baselined })
	if len(run.UnmatchedBaseline) > 0 {
		b.WriteString("\n### Baseline entries that matched no check\n\n")
		for _, e := range run.UnmatchedBaseline {
			fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(e, "`", "'"))
		}
	}
	b.WriteString("\nFull details: `report.html` (rule, exchange excerpt, expected vs got, fix).\n")
	_, err := w.Write(b.Bytes())
	return err
}

func verdictSentence(v Verdict, c Counts, strict bool) string {
	switch v {
	case VerdictConformant:
		return "**Conformant**"
	case VerdictFailures:
		n := c.Failed
		if strict {
			n += c.Warned
		}
		return "**" + plural(n, "failure") + "**"
	default:
		if c.Errors == 0 {
			return "**No check ran**"
		}
		return "**" + plural(c.Errors, "harness error") + "**"
	}
}

// summaryList lists the kept results grouped by rule, causes first: one
// entry per rule with its expected vs got and fix, then one line per
// occurrence, so one bug reads as one entry and not as dozens of bullets.
func summaryList(b *bytes.Buffer, title string, results []Result, keep func(Result) bool) {
	var picked []Result
	for _, r := range results {
		if keep(r) {
			picked = append(picked, r)
		}
	}
	if len(picked) == 0 {
		return
	}
	groups := GroupByRule(CauseFirst(picked))
	fmt.Fprintf(b, "\n### %s (%s in %s)\n\n", title, plural(len(picked), "check"), plural(len(groups), "rule"))
	for gi, g := range groups {
		if gi == maxSummaryItems {
			fmt.Fprintf(b, "- … and %s more (see report.html)\n", plural(len(groups)-gi, "rule"))
			break
		}
		first := g[0]
		fmt.Fprintf(b, "- `%s` (%s), %s", strings.ReplaceAll(first.Rule, "`", "'"), md(levelOr(first.Level, "?")), plural(len(g), "occurrence"))
		if first.Cause {
			b.WriteString(" — the mock rejected the request: fix this first, later checks may follow from it")
		}
		b.WriteString("\n")
		if first.Expected != "" {
			fmt.Fprintf(b, "  - expected: %s\n", md(truncate(oneLine(first.Expected), maxSummaryMessage)))
		}
		if first.Got != "" {
			fmt.Fprintf(b, "  - got: %s\n", md(truncate(oneLine(first.Got), maxSummaryMessage)))
		}
		if first.Fix != "" {
			fmt.Fprintf(b, "  - fix: %s\n", md(truncate(oneLine(first.Fix), maxSummaryMessage)))
		}
		summaryExcerpt(b, g)
		for i, r := range g {
			if i == maxSummaryItems {
				fmt.Fprintf(b, "  - … and %d more\n", len(g)-i)
				break
			}
			fmt.Fprintf(b, "  - %s / %s / %s", md(r.Scenario), md(r.Dialect), StreamMode(r.Stream))
			if msg := truncate(oneLine(r.Message), maxSummaryMessage); msg != "" {
				fmt.Fprintf(b, ": %s", md(msg))
			}
			b.WriteString("\n")
		}
	}
}

// summaryExcerpt shows where the first occurrence of a group that names
// a JSON path went wrong: the path, then the excerpt around it as a jsonc
// block with that member's line marked, or a word that the excerpt does
// not reach it. Baselined failures are known and go without, which keeps
// the summary short.
func summaryExcerpt(b *bytes.Buffer, g []Result) {
	i := slices.IndexFunc(g, func(r Result) bool { return r.Path != "" && !r.Baselined })
	if i < 0 {
		return
	}
	res := g[i]
	fmt.Fprintf(b, "  - at `%s` (%s / %s / %s)", strings.ReplaceAll(res.Path, "`", "'"), md(res.Scenario), md(res.Dialect), StreamMode(res.Stream))
	lines, found := excerptLines(res)
	if !found {
		fmt.Fprintf(b, ": %s\n", notInExcerpt(res))
		return
	}
	window := markdownExcerpt(lines, res.Path)
	fence := "```"
	for strings.Contains(strings.Join(window, "\n"), fence) {
		fence += "`"
	}
	b.WriteString(":\n")
	const indent = "    " // the block belongs to the "at" item
	fmt.Fprintf(b, "%s%sjsonc\n", indent, fence)
	for _, l := range window {
		fmt.Fprintf(b, "%s%s\n", indent, l)
	}
	fmt.Fprintf(b, "%s%s\n", indent, fence)
}

// harnessErrors lists the harness errors by message: a driver that cannot
// start breaks every rule of every run the same way, and reads as one
// entry with one line per run.
func harnessErrors(b *bytes.Buffer, results []Result) {
	type run struct{ scenario, dialect, stream string }
	var messages []string
	runs := map[string][]run{}
	checks := 0
	for _, r := range results {
		if r.Outcome != Error {
			continue
		}
		checks++
		if _, ok := runs[r.Message]; !ok {
			messages = append(messages, r.Message)
		}
		x := run{r.Scenario, r.Dialect, StreamMode(r.Stream)}
		if !slices.Contains(runs[r.Message], x) {
			runs[r.Message] = append(runs[r.Message], x)
		}
	}
	if checks == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Harness errors (%s, %s)\n\n", plural(checks, "check"), plural(len(messages), "cause"))
	for i, m := range messages {
		if i == maxSummaryItems {
			fmt.Fprintf(b, "- … and %s more (see report.html)\n", plural(len(messages)-i, "cause"))
			break
		}
		fmt.Fprintf(b, "- %s\n", md(truncate(oneLine(m), 3*maxSummaryMessage)))
		for j, x := range runs[m] {
			if j == maxSummaryItems {
				fmt.Fprintf(b, "  - … and %d more runs\n", len(runs[m])-j)
				break
			}
			fmt.Fprintf(b, "  - %s / %s / %s\n", md(x.scenario), md(x.dialect), x.stream)
		}
	}
}

// CauseFirst orders results so that breaches the mock rejected (causes)
// come before the rest, keeping the order within each part.
func CauseFirst(results []Result) []Result {
	out := make([]Result, 0, len(results))
	for _, cause := range []bool{true, false} {
		for _, r := range results {
			if r.Cause == cause {
				out = append(out, r)
			}
		}
	}
	return out
}

// GroupByRule groups results by rule ID, groups in order of first
// appearance.
func GroupByRule(results []Result) [][]Result {
	index := map[string]int{}
	var groups [][]Result
	for _, r := range results {
		i, ok := index[r.Rule]
		if !ok {
			i = len(groups)
			index[r.Rule] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// md escapes text for Markdown: every ASCII punctuation character that
// could start markup (including '<', which GitHub would otherwise treat as
// raw HTML) gets a backslash, as CommonMark allows for any punctuation.
func md(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#!~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

package reports

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

//go:embed templates/report.html.tmpl
var templateFS embed.FS

// reportTemplate is parsed once; a broken template is a build-time bug
// that the package tests catch, hence Must.
var reportTemplate = template.Must(template.New("report.html.tmpl").
	Funcs(template.FuncMap{"inc": func(n int) int { return n + 1 }}).
	ParseFS(templateFS, "templates/report.html.tmpl"))

// WriteHTML writes report.html: a single self-contained page (inline CSS,
// no scripts, no external assets) with the verdict, the rules × dialects
// matrix and a details entry for every failure, warning, error and
// expected failure.
func WriteHTML(w io.Writer, run *Run) error {
	if run == nil {
		return errNilRun
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, buildHTMLView(run)); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

type htmlView struct {
	Run          *Run
	Title        string
	Verdict      Verdict
	VerdictTitle string
	VerdictLine  string
	ExitCode     int
	Date         string
	Duration     string
	Counts       Counts
	Dialects     []htmlDialect
	Groups       []htmlRuleGroup
	Problems     []htmlProblemLink
	Details      []htmlDetailGroup
	Features     []string
	Unmatched    []string
}

type htmlDialect struct {
	Name   string
	Result DialectResult
	Counts Counts
}

type htmlRuleGroup struct {
	Name string // rule ID prefix: the dialect the rule belongs to
	Rows []htmlRow
}

type htmlRow struct {
	Rule, Level, Summary string
	Cells                []htmlCell
}

type htmlCell struct {
	Class  string // pass, fail, warn, baselined, not-supported, not-exercised, error, empty
	Text   string // "1 fail · 3 pass"
	Label  string // extra words for screen readers
	Anchor string // id of the details group, "" when there is nothing to show
}

type htmlProblemLink struct {
	Anchor, Class, Outcome, Name, Message string
	Cause                                 bool // the mock rejected the request: listed first
}

type htmlDetailGroup struct {
	Anchor, Rule, Dialect, Level, Summary string
	Refs                                  []htmlRef // the rule's source, one reference each
	Items                                 []htmlItem
	Cause                                 bool // an item the mock rejected: read first
}

// htmlRef is one reference of a rule's source: a link (http or https
// only), or a place shown as text (a repository file), with what it says.
type htmlRef struct {
	Link, Place, Quote string
	Inferred           bool
}

// htmlRefs splits a rule's source line into its references (the form
// rules.SourceText writes), so each address becomes its own link.
func htmlRefs(source string) []htmlRef {
	var out []htmlRef
	for _, r := range rules.ParseSource(source) {
		ref := htmlRef{Link: httpURL(r.URL), Quote: r.Quote, Inferred: r.Inferred}
		if ref.Link == "" {
			ref.Place = r.URL
		}
		out = append(out, ref)
	}
	return out
}

type htmlItem struct {
	Anchor, Class, Outcome           string
	Scenario, Dialect, Mode, Feature string
	Message, Excerpt, Expected, Got  string
	Diff                             []htmlDiffLine
	Fix                              string
	Duration                         string
	// Path is the offending member's JSON path: PathFound when it is
	// highlighted in Segments, else PathNote says why not.
	Path, PathNote string
	PathFound      bool
	Segments       []excerptSegment // the excerpt laid out as JSON; nil when it is not JSON
}

type htmlDiffLine struct{ Class, Text string }

// Severity order of a matrix cell: the worst outcome colours it.
var severity = map[string]int{"empty": 0, "not-supported": 1, "not-exercised": 1, "pass": 2, "baselined": 3, "warn": 4, "fail": 5, "error": 6}

// cellOutcome is the class a result contributes to its cell: a strict
// warning fails the run, so it is drawn as a failure.
func cellOutcome(res Result, strict bool) string {
	switch {
	case res.Baselined && (res.Outcome == Fail || res.Outcome == Warn):
		return "baselined"
	case res.Outcome == Warn && strict:
		return "fail"
	case res.Outcome == Pass, res.Outcome == Fail, res.Outcome == Warn, res.Outcome == NotSupported, res.Outcome == NotExercised:
		return string(res.Outcome)
	default:
		return "error"
	}
}

// itemLabel names a result's outcome for humans.
func itemLabel(res Result, strict bool) string {
	switch {
	case res.StaleBaseline:
		return "stale baseline"
	case res.Baselined:
		return "expected failure"
	case res.Outcome == Warn && strict:
		return "warn (strict: fails)"
	case res.Outcome == Error:
		return "harness error"
	}
	return string(res.Outcome)
}

func buildHTMLView(run *Run) htmlView {
	v := run.Verdict()
	view := htmlView{
		Run:          run,
		Title:        "toolwire conformance report: " + orDash(run.Implementation.Name),
		Verdict:      v,
		VerdictTitle: v.Title(),
		VerdictLine:  verdictSentencePlain(v, run.Counts(), run.Strict),
		ExitCode:     v.ExitCode(),
		Counts:       run.Counts(),
		Features:     sortedUnique(run.Features),
		Unmatched:    run.UnmatchedBaseline,
	}
	if !run.Date.IsZero() {
		view.Date = run.Date.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if run.Duration > 0 {
		view.Duration = run.Duration.Round(time.Millisecond).String()
	}
	dialects := run.AllDialects()
	for _, d := range dialects {
		view.Dialects = append(view.Dialects, htmlDialect{Name: d, Result: run.DialectResult(d), Counts: run.DialectCounts(d)})
	}

	// Index results by rule and by (rule, dialect), keeping run order.
	type key struct{ rule, dialect string }
	byCell := map[key][]Result{}
	ruleInfo := map[string]Result{}
	var rules []string
	for _, res := range run.Results {
		if _, ok := ruleInfo[res.Rule]; !ok {
			ruleInfo[res.Rule] = res
			rules = append(rules, res.Rule)
		}
		k := key{res.Rule, res.Dialect}
		byCell[k] = append(byCell[k], res)
	}
	// Rows are grouped by the rule ID prefix (the dialect a rule belongs
	// to) in column order, so dialect-specific rules form a diagonal that
	// reads top-left to bottom-right; other prefixes follow alphabetically.
	column := map[string]int{}
	for i, d := range dialects {
		column[d] = i
	}
	groupRank := func(rule string) (int, string) {
		prefix := rulePrefix(rule)
		if i, ok := column[prefix]; ok {
			return i, ""
		}
		return len(dialects), prefix
	}
	sort.Slice(rules, func(i, j int) bool {
		ri, pi := groupRank(rules[i])
		rj, pj := groupRank(rules[j])
		if ri != rj {
			return ri < rj
		}
		if pi != pj {
			return pi < pj
		}
		return rules[i] < rules[j]
	})

	ids := anchorSet{}
	for _, rule := range rules {
		info := ruleInfo[rule]
		prefix := rulePrefix(rule)
		if n := len(view.Groups); n == 0 || view.Groups[n-1].Name != prefix {
			view.Groups = append(view.Groups, htmlRuleGroup{Name: prefix})
		}
		row := htmlRow{Rule: rule, Level: info.Level, Summary: info.Summary}
		for _, d := range dialects {
			results := byCell[key{rule, d}]
			cell := htmlCell{Class: "empty", Text: "—", Label: "not run"}
			if len(results) > 0 {
				cell = buildCell(results, run.Strict)
				if anyAttention(results) {
					group := htmlDetailGroup{
						Anchor:  ids.make("d-" + rule + "--" + d),
						Rule:    rule,
						Dialect: d,
						Level:   info.Level,
						Summary: info.Summary,
						Refs:    htmlRefs(info.Source),
					}
					cell.Anchor = group.Anchor
					for _, res := range results {
						if !needsAttention(res) {
							continue
						}
						item := buildItem(res, run.Strict)
						item.Anchor = ids.make(group.Anchor + "-" + res.Scenario + "-" + item.Mode)
						group.Items = append(group.Items, item)
						group.Cause = group.Cause || res.Cause
						if item.Class != "warn" && item.Class != "baselined" {
							view.Problems = append(view.Problems, htmlProblemLink{
								Anchor: item.Anchor, Class: item.Class, Outcome: item.Outcome,
								Name: TestName(res), Message: truncate(oneLine(res.Message), maxSummaryMessage), Cause: res.Cause,
							})
						}
					}
					view.Details = append(view.Details, group)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		view.Groups[len(view.Groups)-1].Rows = append(view.Groups[len(view.Groups)-1].Rows, row)
	}
	// Details read worst first (errors, failures, warnings, expected
	// failures); within a severity they keep the matrix order.
	// A cause (a request the mock rejected) reads before the checks that
	// follow from it.
	sort.SliceStable(view.Details, func(i, j int) bool {
		a, b := view.Details[i], view.Details[j]
		if sa, sb := groupSeverity(a), groupSeverity(b); sa != sb {
			return sa > sb
		}
		return a.Cause && !b.Cause
	})
	sort.SliceStable(view.Problems, func(i, j int) bool {
		return view.Problems[i].Cause && !view.Problems[j].Cause
	})
	return view
}

func groupSeverity(g htmlDetailGroup) int {
	worst := 0
	for _, it := range g.Items {
		worst = max(worst, severity[it.Class])
	}
	return worst
}

func rulePrefix(rule string) string {
	prefix, _, found := strings.Cut(rule, ".")
	if !found || prefix == "" {
		return "other"
	}
	return prefix
}

func anyAttention(results []Result) bool {
	for _, r := range results {
		if needsAttention(r) {
			return true
		}
	}
	return false
}

func buildCell(results []Result, strict bool) htmlCell {
	counts := map[string]int{}
	worst := "empty"
	for _, res := range results {
		o := cellOutcome(res, strict)
		counts[o]++
		if severity[o] > severity[worst] {
			worst = o
		}
	}
	var parts []string
	for _, o := range []string{"error", "fail", "warn", "baselined", "pass", "not-supported", "not-exercised"} {
		if n := counts[o]; n > 0 {
			word := o
			switch o {
			case "not-supported":
				word = "n/s"
			case "not-exercised":
				word = "n/e"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	return htmlCell{Class: worst, Text: strings.Join(parts, " · ")}
}

func buildItem(res Result, strict bool) htmlItem {
	item := htmlItem{
		Class:    cellOutcome(res, strict),
		Outcome:  itemLabel(res, strict),
		Scenario: res.Scenario,
		Dialect:  res.Dialect,
		Mode:     StreamMode(res.Stream),
		Feature:  res.Feature,
		Message:  res.Message,
		Excerpt:  res.Excerpt,
		Fix:      res.Fix,
	}
	if res.Excerpt != "" {
		lines, found := excerptLines(res)
		item.Path, item.PathFound = res.Path, found
		if lines != nil {
			item.Segments = excerptSegments(lines, res.Path)
		}
		if res.Path != "" && !found {
			item.PathNote = notInExcerpt(res)
		}
	}
	if res.Duration > 0 {
		item.Duration = res.Duration.Round(time.Millisecond).String()
	}
	item.Expected, item.Got = prettyPair(res.Expected, res.Got)
	if item.Expected != item.Got && strings.Contains(item.Expected, "\n") && strings.Contains(item.Got, "\n") {
		item.Diff = unifiedDiff(item.Expected, item.Got)
	}
	return item
}

// prettyPair indents expected/got when both are JSON documents, so the
// side-by-side view and the diff line up field by field. Anything else is
// shown exactly as recorded.
func prettyPair(expected, got string) (string, string) {
	e, eok := prettyJSON(expected)
	g, gok := prettyJSON(got)
	if eok && gok {
		return e, g
	}
	return expected, got
}

func prettyJSON(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return s, false
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(t), "", "  "); err != nil {
		return s, false
	}
	return buf.String(), true
}

func unifiedDiff(expected, got string) []htmlDiffLine {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(ensureNewline(expected)),
		B:        difflib.SplitLines(ensureNewline(got)),
		FromFile: "expected",
		ToFile:   "got",
		Context:  3,
	})
	if err != nil || text == "" {
		return nil
	}
	var out []htmlDiffLine
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		class := "ctx"
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			class = "file"
		case strings.HasPrefix(line, "@@"):
			class = "hunk"
		case strings.HasPrefix(line, "+"):
			class = "add"
		case strings.HasPrefix(line, "-"):
			class = "del"
		}
		out = append(out, htmlDiffLine{Class: class, Text: line})
	}
	return out
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// httpURL returns s when it is an absolute http(s) URL, so only real links
// become anchors ("an offline note §3.3" stays text).
func httpURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

var anchorUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// anchorSet mints unique, readable element ids.
type anchorSet map[string]bool

func (a anchorSet) make(base string) string {
	id := strings.Trim(anchorUnsafe.ReplaceAllString(base, "-"), "-")
	if id == "" {
		id = "d"
	}
	candidate := id
	for n := 2; a[candidate]; n++ {
		candidate = fmt.Sprintf("%s-%d", id, n)
	}
	a[candidate] = true
	return candidate
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// verdictSentencePlain is verdictSentence without Markdown.
func verdictSentencePlain(v Verdict, c Counts, strict bool) string {
	return strings.ReplaceAll(verdictSentence(v, c, strict), "**", "") + ": " + countsPhrase(c)
}

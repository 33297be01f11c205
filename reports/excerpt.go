package reports

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/jsonview"
)

// excerptLines lays a result's excerpt out one JSON member per line with
// its offending path marked. lines is nil when the excerpt is not JSON
// (a body clipped as text); found reports whether the path is in it.
func excerptLines(res Result) (lines []jsonview.Line, found bool) {
	lines, ok := jsonview.Lines([]byte(res.Excerpt))
	if !ok {
		return nil, false
	}
	return lines, jsonview.Mark(lines, res.Path, res.Path)
}

// notInExcerpt says why a path has no highlight.
func notInExcerpt(res Result) string {
	if res.Excerpt == "" {
		return "no excerpt was recorded"
	}
	if _, ok := jsonview.Lines([]byte(res.Excerpt)); !ok {
		return "not in the excerpt, which is not a whole JSON body (the request was clipped)"
	}
	return "not in the excerpt"
}

// excerptSegment is a run of excerpt text, highlighted or not.
type excerptSegment struct {
	Text, Title string
	Hit         bool
}

// excerptSegments is the excerpt as report.html shows it: the lines of
// the marked member (from its key to its closing bracket) one highlighted
// segment, indentation included so that its lines line up.
func excerptSegments(lines []jsonview.Line, path string) []excerptSegment {
	var out []excerptSegment
	plain := func(s string) {
		if n := len(out); n > 0 && !out[n-1].Hit {
			out[n-1].Text += s
			return
		}
		out = append(out, excerptSegment{Text: s})
	}
	for i, l := range lines {
		if !l.Hit {
			plain(l.String() + "\n")
			continue
		}
		if i == 0 || !lines[i-1].Hit {
			out = append(out, excerptSegment{Text: l.String(), Title: path, Hit: true})
		} else {
			out[len(out)-1].Text += "\n" + l.String()
		}
		if i == len(lines)-1 || !lines[i+1].Hit {
			plain("\n")
		}
	}
	return out
}

// Lines of context summary.md shows around the marked member, and the
// most lines of the member itself.
const (
	summaryContext   = 3
	summaryHitLines  = 12
	summaryMarkArrow = "// ← "
)

// markdownExcerpt is the excerpt window summary.md shows: a few lines
// around the marked member, the member's first line ending in a
// `// ← path` comment, and `// …` for what is left out (jsonc renders
// both as comments).
func markdownExcerpt(lines []jsonview.Line, path string) []string {
	first, last := -1, -1
	for i, l := range lines {
		if l.Hit {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	cut := -1 // the member is too long: lines from cut to its last are left out
	if last-first+1 > summaryHitLines {
		cut = first + summaryHitLines - 1
	}
	from, to := max(first-summaryContext, 0), min(last+summaryContext, len(lines)-1)
	elided := func(n, indent int) string {
		return fmt.Sprintf("%s// … %d more line%s", strings.Repeat("  ", indent), n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	var out []string
	if from > 0 {
		out = append(out, elided(from, lines[from].Indent))
	}
	for i := from; i <= to; i++ {
		if cut >= 0 && i == cut {
			out = append(out, elided(last-cut, lines[cut].Indent))
			i = last
		}
		text := lines[i].String()
		if i == first {
			text += "  " + summaryMarkArrow + path
		}
		out = append(out, text)
	}
	if to < len(lines)-1 {
		out = append(out, elided(len(lines)-1-to, lines[to+1].Indent))
	}
	return out
}

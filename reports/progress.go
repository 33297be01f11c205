package reports

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Progress prints one line per finished result group (one scenario in one
// dialect and stream mode) so a long run shows where it is:
//
//	[12/84] anthropic parallel-same-tool stream: 9 pass, 1 fail (anthropic.tool-result-first)
//
// A nil *Progress is valid and prints nothing, so callers can pass nil for
// quiet runs. It is safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	done  int
}

// NewProgress writes to w; total is the number of groups expected (0 when
// unknown, the line then shows only the running count).
func NewProgress(w io.Writer, total int) *Progress {
	return &Progress{w: w, total: total}
}

// SetTotal changes the expected number of groups.
func (p *Progress) SetTotal(total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.total = total
	p.mu.Unlock()
}

// maxNamedRules caps how many failing rule IDs a progress line names.
const maxNamedRules = 3

// Done records one finished group and prints its line.
func (p *Progress) Done(dialect, scenario string, stream bool, results []Result) {
	if p == nil || p.w == nil {
		return
	}
	line := groupLine(dialect, scenario, stream, results)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	counter := fmt.Sprintf("[%d/%d]", p.done, p.total)
	if p.total <= 0 {
		counter = fmt.Sprintf("[%d]", p.done)
	}
	// A progress line that cannot be written is not worth failing a run.
	_, _ = fmt.Fprintf(p.w, "%s %s\n", counter, line)
}

// Finish prints the closing verdict line.
func (p *Progress) Finish(run *Run) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = fmt.Fprintln(p.w, VerdictLine(run))
}

// VerdictLine is a one-line summary of a run, e.g.
// "toolwire: not conformant (exit 1): 120 pass, 3 fail, 2 warn, 5 not-supported".
func VerdictLine(run *Run) string {
	v := run.Verdict()
	c := run.Counts()
	return fmt.Sprintf("toolwire: %s (exit %d): %s", strings.ToLower(v.Title()), v.ExitCode(), countsPhrase(c))
}

func groupLine(dialect, scenario string, stream bool, results []Result) string {
	var c Counts
	var failing []string
	for _, res := range results {
		c.add(res)
		if (res.Outcome == Fail || res.Outcome == Error) && !res.Baselined && !containsString(failing, res.Rule) {
			failing = append(failing, res.Rule)
		}
	}
	line := fmt.Sprintf("%s %s %s: %s", dialect, scenario, StreamMode(stream), countsPhrase(c))
	if len(failing) > 0 {
		named := failing
		if len(named) > maxNamedRules {
			named = named[:maxNamedRules]
		}
		more := ""
		if n := len(failing) - len(named); n > 0 {
			more = fmt.Sprintf(", +%d more", n)
		}
		line += " (" + strings.Join(named, ", ") + more + ")"
	}
	return line
}

// countsPhrase renders the non-zero counts: "9 pass, 1 fail".
func countsPhrase(c Counts) string {
	var parts []string
	for _, kv := range []struct {
		n    int
		word string
	}{
		{c.Passed, "pass"}, {c.Failed, "fail"}, {c.Warned, "warn"},
		{c.Baselined, "baselined"}, {c.NotSupported, "not-supported"}, {c.NotExercised, "not-exercised"}, {c.Errors, "error"},
	} {
		if kv.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", kv.n, kv.word))
		}
	}
	if len(parts) == 0 {
		return "no checks"
	}
	return strings.Join(parts, ", ")
}

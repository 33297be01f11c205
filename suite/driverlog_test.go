package suite

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// sdkNoise is what an SDK may print before anything fails: n lines of
// deprecation warnings.
func sdkNoise(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "DeprecationWarning: option %d is deprecated and will be removed in a future release\n", i)
	}
	return b.String()
}

// A driver's stderr that opens with warnings keeps the error it ends
// with: the excerpt shows the first lines, the end, and how many bytes
// were cut between (counted exactly).
func TestLogExcerptKeepsTheEnd(t *testing.T) {
	noise := sdkNoise(40)
	cause := "Traceback (most recent call last):\n  File \"driver.py\", line 12\nValueError: tool_use ids must be unique"
	log := noise + cause
	got := logExcerpt(log, logExcerptSize)
	if !strings.Contains(got, "ValueError: tool_use ids must be unique") || !strings.Contains(got, "Traceback") {
		t.Errorf("the cause is cut:\n%s", got)
	}
	lines := strings.SplitN(noise, "\n", 3)
	if !strings.HasPrefix(got, lines[0]+"\n"+lines[1]+"\n…(") {
		t.Errorf("the first two lines are not kept first:\n%s", got)
	}
	if len(got) > logExcerptSize+64 {
		t.Errorf("excerpt of %d bytes, limit %d", len(got), logExcerptSize)
	}
	head, rest, _ := strings.Cut(got, "\n…(")
	num, tail, _ := strings.Cut(rest, " bytes cut)…\n")
	var cut int
	fmt.Sscan(num, &cut)
	if want := len(log) - len(head) - 1 - len(tail); cut != want {
		t.Errorf("marker says %d bytes cut, %d were", cut, want)
	}
	if !strings.HasPrefix(tail, "DeprecationWarning") && !strings.HasPrefix(tail, "Traceback") {
		t.Errorf("the end does not start at a line: %q", tail[:40])
	}
	if short := "one line\nof stderr"; logExcerpt(short, logExcerptSize) != short {
		t.Errorf("a short log is changed: %q", logExcerpt(short, logExcerptSize))
	}
}

// The buffer a driver's stderr goes to keeps its start and its end, and
// its marker's count survives an excerpt cut across it.
func TestDriverLogKeepsBothEnds(t *testing.T) {
	var l driverLog
	first := "sdk 1.2.3 starting\n"
	fmt.Fprint(&l, first)
	middle := sdkNoise(400) // far more than the buffer keeps
	for _, line := range strings.SplitAfter(middle, "\n") {
		fmt.Fprint(&l, line)
	}
	fmt.Fprint(&l, "fatal: the mock answered 400")
	kept := l.String()
	if !strings.HasPrefix(kept, first) || !strings.HasSuffix(kept, "fatal: the mock answered 400") {
		t.Fatalf("kept %q … %q", kept[:40], kept[len(kept)-40:])
	}
	if len(kept) > logHeadKeep+logTailKeep+64 {
		t.Errorf("kept %d bytes", len(kept))
	}
	total := len(first) + len(middle) + len("fatal: the mock answered 400")
	got := logExcerpt(kept, logExcerptSize)
	head, rest, _ := strings.Cut(got, "\n…(")
	num, tail, _ := strings.Cut(rest, " bytes cut)…\n")
	var cut int
	fmt.Sscan(num, &cut)
	if want := total - len(head) - 1 - len(tail); cut != want {
		t.Errorf("excerpt says %d bytes cut, %d were", cut, want)
	}
	if !strings.HasSuffix(got, "fatal: the mock answered 400") {
		t.Errorf("excerpt lost the end: %s", got)
	}
}

// A driver process whose stderr is mostly warnings: the report's message
// carries the error it printed last.
func TestCommandReportsTheEndOfStderr(t *testing.T) {
	line := `i=0; while [ $i -lt 60 ]; do echo "DeprecationWarning: the parameter number $i is deprecated and will be removed soon" >&2; i=$((i+1)); done; echo "RuntimeError: the real cause" >&2; exit 3`
	out := Command{Line: line}.Drive(context.Background(), Invocation{})
	if out.Err == nil {
		t.Fatal("no error")
	}
	msg := neverTalked(out)
	if !strings.Contains(msg, "RuntimeError: the real cause") || !strings.Contains(msg, "bytes cut") || !strings.Contains(msg, "parameter number 0 ") {
		t.Errorf("message: %s", msg)
	}
}

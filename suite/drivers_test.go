package suite_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/refdriver/dialects"
	"github.com/toolwire/toolwire/suite/reference"
)

var (
	buildOnce sync.Once
	refBin    string
	buildErr  error
)

// refdriverBinary builds cmd/toolwire-refdriver once per test process.
func refdriverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toolwire-refdriver-")
		if err != nil {
			buildErr = err
			return
		}
		refBin = filepath.Join(dir, "toolwire-refdriver")
		if runtime.GOOS == "windows" {
			refBin += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", refBin, "github.com/toolwire/toolwire/cmd/toolwire-refdriver").CombinedOutput()
		if err != nil {
			buildErr = err
			refBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building the reference driver: %v\n%s", buildErr, refBin)
	}
	return refBin
}

func runWith(t *testing.T, d suite.Driver, scenarios []string, streams []bool) *reports.Run {
	t.Helper()
	h, err := suite.New(suite.Config{Driver: d, Parallel: 4, Scenarios: scenarios, Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	return h.RunAll(context.Background())
}

func failedRules(run *reports.Run) map[string]bool {
	out := map[string]bool{}
	for _, r := range run.Results {
		if r.Outcome != reports.Pass && r.Outcome != reports.NotExercised {
			out[r.Rule] = true
		}
	}
	return out
}

// TestCommandDriver runs the built reference driver as a process, honest
// and broken, through the env contract.
func TestCommandDriver(t *testing.T) {
	bin := refdriverBinary(t)
	run := runWith(t, suite.Command{Line: bin}, []string{"single-call", "parallel-same-tool"}, nil)
	if got := failedRules(run); len(got) > 0 {
		t.Errorf("honest process driver failed %v", got)
	}
	run = runWith(t, suite.Command{Line: bin + " --break swapped-ids"}, []string{"parallel-same-tool"}, []bool{false})
	got := failedRules(run)
	for _, want := range []string{"openai-chat.result-matches-call", "anthropic.result-matches-call"} {
		if !got[want] {
			t.Errorf("swapped-ids process driver did not fail %s (failed %v)", want, got)
		}
	}
	// A driver that crashes before calling the mock is a harness error,
	// with its stderr in the message (a crash after calling it fails
	// final-text; TestDriverThatNeverTalksIsAHarnessError has the rest).
	run = runWith(t, suite.Command{Line: "echo boom >&2; exit 3"}, []string{"single-call"}, []bool{false})
	for _, r := range run.Results {
		if r.Outcome != reports.Error || !strings.Contains(r.Message, "boom") {
			t.Errorf("crashing driver: %s %s %q", r.Rule, r.Outcome, r.Message)
		}
	}
}

// TestURLDriver serves the reference driver over HTTP (--driver-url).
func TestURLDriver(t *testing.T) {
	srv := httptest.NewServer(refdriver.Handler(dialects.Driver(refdriver.None)))
	defer srv.Close()
	run := runWith(t, suite.URL{Endpoint: srv.URL}, []string{"single-call", "error-result"}, nil)
	if got := failedRules(run); len(got) > 0 {
		t.Errorf("honest URL driver failed %v", got)
	}
	bad := httptest.NewServer(refdriver.Handler(dialects.Driver(refdriver.OmitIsError.Name)))
	defer bad.Close()
	run = runWith(t, suite.URL{Endpoint: bad.URL}, []string{"error-result"}, []bool{false})
	if got := failedRules(run); !got["anthropic.error-flagged"] || !got["gemini.error-flagged"] {
		t.Errorf("omit-is-error URL driver: failed %v", got)
	}
}

// TestGoHook is the Go library entry point.
func TestGoHook(t *testing.T) {
	run := suite.Run(t, reference.Driver(refdriver.None), func(c *suite.Config) { c.Scenarios = []string{"single-call"} })
	if run.Verdict() != reports.VerdictConformant {
		t.Errorf("verdict %s", run.Verdict())
	}
}

// errorsTB collects what a test reports, so a failing run can be looked at.
type errorsTB struct {
	testing.TB
	errors []string
}

func (e *errorsTB) Error(args ...any) { e.errors = append(e.errors, fmt.Sprint(args...)) }

func (e *errorsTB) Errorf(format string, args ...any) {
	e.errors = append(e.errors, fmt.Sprintf(format, args...))
}

// The Go hook judges with the specs' body: a breach fails the test with
// SatisfyRule's message (the rule, expected against got, the exchange),
// and only the breached rule fails.
func TestGoHookFailsWithTheSpecsMessage(t *testing.T) {
	tb := &errorsTB{TB: t}
	run := suite.Run(tb, reference.Driver(refdriver.DropLastCall.Name), func(c *suite.Config) {
		c.Scenarios, c.Dialects, c.Streams = []string{"parallel-same-tool"}, []conv.Dialect{conv.Gemini}, []bool{false}
	})
	if run.Verdict() != reports.VerdictFailures {
		t.Errorf("verdict %s", run.Verdict())
	}
	if len(tb.errors) != 1 {
		t.Fatalf("%d failures, want 1 (gemini.results-sent):\n%s", len(tb.errors), strings.Join(tb.errors, "\n"))
	}
	for _, want := range []string{"gemini.results-sent [MUST] breached", "in:       parallel-same-tool/gemini/nonstream", "expected: ", "exchange:\n    → POST /v1beta/models/"} {
		if !strings.Contains(tb.errors[0], want) {
			t.Errorf("failure lacks %q:\n%s", want, tb.errors[0])
		}
	}
}

// TestNotSupported: an undeclared feature is reported, not counted.
func TestNotSupported(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Features: []string{"errors"}, Scenarios: []string{"image-result", "single-call"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run := h.RunAll(context.Background())
	for _, r := range run.Results {
		wantNS := r.Scenario == "image-result" || r.Stream || (r.Feature != "core" && r.Feature != "errors")
		if wantNS != (r.Outcome == reports.NotSupported) {
			t.Errorf("%s/%s/%v %s: %s", r.Scenario, r.Dialect, r.Stream, r.Rule, r.Outcome)
		}
	}
	if run.Verdict() != reports.VerdictConformant {
		t.Errorf("verdict %s", run.Verdict())
	}
}

func TestUnknownScenarioFilter(t *testing.T) {
	if _, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Scenarios: []string{"no-such-scenario"}}); err == nil {
		t.Error("no error for a filter that selects nothing")
	}
	if _, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Dialects: []conv.Dialect{"cohere"}}); err == nil {
		t.Error("no error for an unknown dialect")
	}
}

// Package drivers_test proves the README's minimal drivers are complete:
// each runs the whole suite, for every feature it declares, and passes.
package drivers_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
)

// The minimal drivers do not stream and send no images or documents.
var declared = []string{"core", "errors", "large", "multi-turn", "parallel", "reasoning", "robustness", "signatures", "strict", "structured", "tool-choice", "unicode"}

func TestMinimalDrivers(t *testing.T) {
	for _, d := range []struct{ interpreter, line string }{
		{"python3", "python3 driver.py"},
		{"node", "node driver.mjs"},
	} {
		t.Run(d.interpreter, func(t *testing.T) {
			if _, err := exec.LookPath(d.interpreter); err != nil {
				t.Skipf("%s not installed", d.interpreter)
			}
			h, err := suite.New(suite.Config{Driver: suite.Command{Line: d.line}, Features: declared, Parallel: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			run := h.RunAll(context.Background())
			c := run.Counts()
			if c.Passed == 0 || run.Verdict() != reports.VerdictConformant {
				for _, r := range run.Results {
					if r.Outcome == reports.Fail || r.Outcome == reports.Error {
						t.Errorf("%s %s/%s: %s", r.Rule, r.Scenario, r.Dialect, r.Message)
					}
				}
				t.Fatalf("%s: verdict %v, counts %+v", d.line, run.Verdict(), c)
			}
		})
	}
}

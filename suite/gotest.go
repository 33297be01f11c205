package suite

import (
	"context"
	"testing"

	"github.com/toolwire/toolwire/reports"
)

// Run is the Go hook: a Go library's own test drives the suite with its
// adapter wrapped as a Driver (usually Func), one subtest per scenario ×
// dialect × stream mode, failing on MUST breaches (and SHOULD ones when
// opts set Strict). Pass extra options to narrow it (Dialects, Features,
// Scenarios, Parallel). It returns the run for further checks.
//
//	func TestConformance(t *testing.T) {
//		suite.Run(t, suite.Func(func(ctx context.Context, inv suite.Invocation) (string, error) {
//			return myadapter.Drive(ctx, inv.Task, inv.Env)
//		}))
//	}
func Run(t testing.TB, driver Driver, opts ...func(*Config)) *reports.Run {
	t.Helper()
	cfg := Config{Driver: driver, Parallel: 4, Mode: "go"}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	combos := h.Plan()
	results := h.Execute(context.Background(), combos)
	run := h.NewRun()
	for i, c := range combos {
		rs := results[i]
		run.Results = append(run.Results, rs...)
		check := func(t testing.TB) {
			for _, r := range rs {
				if reports.IsFailing(r, cfg.Strict) || r.Outcome == reports.Error {
					t.Errorf("%s [%s] %s: %s", r.Rule, r.Level, r.Outcome, r.Message)
				}
			}
		}
		if tt, ok := t.(*testing.T); ok {
			tt.Run(c.Name(), func(t *testing.T) { check(t) })
		} else {
			check(t)
		}
	}
	return run
}

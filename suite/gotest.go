package suite

import (
	"context"
	"runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // the Ginkgo DSL reads best unqualified
	"github.com/onsi/gomega"

	"github.com/toolwire/toolwire/reports"
)

// Run is the Go hook for plain `go test`: a Go library's own test drives
// the suite with its adapter wrapped as a Driver (usually Func), one
// subtest per scenario × dialect × stream mode judged by the specs' own
// body, failing on MUST breaches (and SHOULD ones when opts set Strict)
// with SatisfyRule's message. Pass extra options to narrow it (Dialects,
// Features, Scenarios, Parallel). It returns the run for further checks.
//
//	func TestConformance(t *testing.T) {
//		suite.Run(t, suite.Func(func(ctx context.Context, inv suite.Invocation) (string, error) {
//			return myadapter.Drive(ctx, inv.Task, inv.Env)
//		}))
//	}
func Run(t testing.TB, driver Driver, opts ...func(*Config)) *reports.Run {
	t.Helper()
	h, err := New(goConfig(driver, opts))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	return h.specPlan(context.Background()).judgeAll(func(name string, judge func(gomega.Gomega)) {
		in := func(t testing.TB) {
			judge(gomega.NewGomega(func(msg string, _ ...int) {
				t.Helper()
				t.Error(msg)
			}))
		}
		if tt, ok := t.(*testing.T); ok {
			tt.Run(name, func(t *testing.T) { in(t) })
		} else {
			in(t)
		}
	})
}

// Specs declares the conformance specs for driver in the calling
// package's own Ginkgo suite — one line next to the adapter's specs:
//
//	var _ = suite.Specs(suite.Func(myadapter.Drive))
//
// The specs are those of RegisterSpecs, under a "toolwire conformance"
// container, labelled for --label-filter; the mock starts while Ginkgo
// builds the spec tree and stops after the suite. opts narrow the run as
// for Run.
func Specs(driver Driver, opts ...func(*Config)) bool {
	var h *Harness
	ReportAfterSuite("toolwire conformance: stop the mock", func(Report) {
		if h != nil {
			h.Close()
		}
	})
	return Describe("toolwire conformance", func() {
		suiteConfig, _ := GinkgoConfiguration()
		filter, err := parseLabelFilter(suiteConfig.LabelFilter)
		if err == nil {
			h, err = New(goConfig(driver, opts))
		}
		if err != nil {
			It("starts the conformance harness", func() { Fail(err.Error()) })
			return
		}
		declareSpecs(h.specPlan(context.Background()), nil, filter)
	})
}

func goConfig(driver Driver, opts []func(*Config)) Config {
	cfg := Config{Driver: driver, Parallel: runtime.NumCPU(), Mode: "go"}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

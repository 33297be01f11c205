package suite

import (
	"context"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // the Ginkgo DSL reads best unqualified
	"github.com/onsi/ginkgo/v2/types"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
)

// Recorder collects the results of the specs that ran, for the reports.
type Recorder struct {
	mu      sync.Mutex
	results []reports.Result
}

func (r *Recorder) add(res reports.Result) {
	r.mu.Lock()
	r.results = append(r.results, res)
	r.mu.Unlock()
}

// Results returns what was recorded, in spec order.
func (r *Recorder) Results() []reports.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reports.Result(nil), r.results...)
}

// specLabels are a rule's labels on one combo: rule, level, dialect,
// feature, scenario and stream mode, filterable with --ginkgo.label-filter
// (e.g. "level:MUST && dialect:gemini").
func specLabels(c Combo, r rules.Rule, feature string) Labels {
	return Label("rule:"+r.ID, "level:"+string(r.Level), "dialect:"+string(c.Dialect), "feature:"+feature, "family:"+familyOf(r),
		"scenario:"+c.Scenario.Name, "stream:"+reports.StreamMode(c.Stream))
}

// RegisterSpecs declares one Ginkgo spec per rule per combo of the plan,
// labelled Label("rule:<id>", "level:MUST|SHOULD", "dialect:<d>",
// "feature:<f>", …). Driver runs happen once per combo, in parallel, in a
// BeforeSuite; each spec then reports its rule's outcome: pass, fail
// (MUST), warn (SHOULD: passes with a report entry, fails under Strict),
// skipped as not-supported, or failed as a harness error. labelFilter is
// the filter the suite will run with (only combos with a selected spec
// are driven). Call before RunSpecs.
func RegisterSpecs(h *Harness, rec *Recorder, labelFilter string) error {
	filter := func([]string) bool { return true }
	if strings.TrimSpace(labelFilter) != "" {
		f, err := types.ParseLabelFilter(labelFilter)
		if err != nil {
			return fmt.Errorf("label filter: %w", err)
		}
		filter = f
	}
	plan := h.Plan()
	var needed []Combo
	type spec struct {
		rule   rules.Rule
		labels Labels
	}
	specs := make([][]spec, len(plan))
	for i, c := range plan {
		for _, r := range h.RulesFor(c.Dialect) {
			feature := h.result(c, r).Feature
			l := specLabels(c, r, feature)
			specs[i] = append(specs[i], spec{r, l})
		}
		for _, s := range specs[i] {
			if filter(s.labels) {
				needed = append(needed, c)
				break
			}
		}
	}
	results := map[string][]reports.Result{}
	BeforeSuite(func(ctx SpecContext) {
		h.cfg.Progress.SetTotal(len(needed))
		out := h.Execute(context.WithoutCancel(ctx), needed)
		for i, c := range needed {
			results[c.Name()] = out[i]
		}
	}, NodeTimeout(h.cfg.Timeout*10+3600e9))

	// One Describe per rule family (each declared in its spec_<family>.go),
	// then one per scenario × dialect × stream mode, one It per rule.
	Describe("toolwire conformance", func() {
		for _, f := range orderedFamilies() {
			Describe(f.Title, func() {
				for i, c := range plan {
					var mine []spec
					for _, s := range specs[i] {
						if familyOf(s.rule) == f.Name {
							mine = append(mine, s)
						}
					}
					if len(mine) == 0 {
						continue
					}
					Describe(c.Name(), func() {
						for _, s := range mine {
							It(s.rule.ID, s.labels, func() {
								res, ok := lookup(results[c.Name()], s.rule.ID)
								if !ok {
									Fail("harness error: no result for " + s.rule.ID)
									return
								}
								rec.add(res)
								report(res, h.cfg.Strict)
							})
						}
					})
				}
			})
		}
	})
	return nil
}

func lookup(rs []reports.Result, id string) (reports.Result, bool) {
	for _, r := range rs {
		if r.Rule == id {
			return r, true
		}
	}
	return reports.Result{}, false
}

// report turns a result into the spec's outcome.
func report(res reports.Result, strict bool) {
	detail := res.Message
	if res.Expected != "" || res.Got != "" {
		detail += fmt.Sprintf("\nexpected: %s\ngot:      %s", res.Expected, res.Got)
	}
	if res.Fix != "" {
		detail += "\nfix: " + res.Fix
	}
	switch res.Outcome {
	case reports.Pass:
	case reports.NotSupported:
		Skip("not supported: " + res.Message)
	case reports.Warn:
		AddReportEntry("warning", res.Rule+" [SHOULD]: "+detail)
		if strict {
			Fail(res.Rule + " [SHOULD, strict]: " + detail)
		}
	case reports.Error:
		Fail("harness error: " + detail)
	default:
		Fail(res.Rule + " [" + res.Level + "]: " + detail)
	}
}

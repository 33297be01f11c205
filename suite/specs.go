package suite

import (
	"context"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // the Ginkgo DSL reads best unqualified
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega" //nolint:revive // so does Gomega's

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
)

// Recorder collects the results of the specs that ran, for the reports.
type Recorder struct {
	mu      sync.Mutex
	results []reports.Result
}

func (r *Recorder) add(res reports.Result) {
	if r == nil {
		return
	}
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
// feature, family, scenario and stream mode, filterable with
// --ginkgo.label-filter (e.g. "family:pairing && dialect:gemini").
func specLabels(c Combo, r rules.Rule, feature string) Labels {
	return Label("rule:"+r.ID, "level:"+string(r.Level), "dialect:"+string(c.Dialect), "feature:"+feature, "family:"+familyOf(r),
		"scenario:"+c.Scenario.Name, "stream:"+reports.StreamMode(c.Stream))
}

// RegisterSpecs declares the conformance specs of the harness's plan in
// the running Ginkgo suite: one Ordered container per scenario × dialect ×
// stream mode (ContinueOnFailure: one breach does not hide the next),
// whose BeforeAll drives the implementation once, then one It
// per rule that judges the exchange with the SatisfyRule matcher. Specs
// are labelled rule:, level:, dialect:, feature:, family:, scenario: and
// stream:, so label filters, focus, --until-it-fails, parallel processes
// and Ginkgo's JUnit/JSON reporters work on them. A SHOULD breach passes
// with a report entry (fails under Strict); a rule whose feature is not
// declared is skipped as not supported. rec, when not nil, gets every
// verdict for the reports. labelFilter is the filter the suite will run
// with: only combos with a selected spec are driven ahead of their turn.
// Call before RunSpecs.
func RegisterSpecs(h *Harness, rec *Recorder, labelFilter string) error {
	filter, err := parseLabelFilter(labelFilter)
	if err != nil {
		return err
	}
	Describe("toolwire conformance", func() { declareSpecs(h, rec, filter) })
	return nil
}

func parseLabelFilter(labelFilter string) (func([]string) bool, error) {
	if strings.TrimSpace(labelFilter) == "" {
		return func([]string) bool { return true }, nil
	}
	f, err := types.ParseLabelFilter(labelFilter)
	if err != nil {
		return nil, fmt.Errorf("label filter: %w", err)
	}
	return f, nil
}

// declareSpecs declares the containers and specs of RegisterSpecs in the
// current container; filter selects the combos driven ahead of their turn.
func declareSpecs(h *Harness, rec *Recorder, filter func([]string) bool) {
	type spec struct {
		rule   rules.Rule
		labels Labels
	}
	plan := h.Plan()
	specs := make([][]spec, len(plan))
	var needed []Combo
	for i, c := range plan {
		selected := false
		for _, r := range h.RulesFor(c.Dialect) {
			l := specLabels(c, r, h.result(c, r).Feature)
			specs[i] = append(specs[i], spec{r, l})
			selected = selected || filter(l)
		}
		if selected {
			needed = append(needed, c)
		}
	}
	sched := newScheduler(h, needed)

	for i, c := range plan {
		Describe(c.Name(), Ordered, ContinueOnFailure, func() {
			var x *Exchange
			BeforeAll(func() {
				x = sched.get(c)
			})
			for _, s := range specs[i] {
				It(s.rule.ID, s.labels, func() {
					res := x.Judge(s.rule)
					rec.add(res)
					switch res.Outcome {
					case reports.NotSupported:
						Skip("not supported: " + res.Message)
					case reports.Warn:
						AddReportEntry("warning", res.Rule+" [SHOULD]: "+res.Message)
					}
					Expect(x).To(SatisfyRule(s.rule, h.cfg.Strict))
				})
			}
			// A breach of a rule outside the dialect's catalog still
			// fails the run.
			It("breaches no rule outside the catalog", Label("family:other", "dialect:"+string(c.Dialect), "scenario:"+c.Scenario.Name,
				"stream:"+reports.StreamMode(c.Stream)), func() {
				for _, r := range x.Outside() {
					rec.add(x.Judge(r))
					Expect(x).To(SatisfyRule(r, h.cfg.Strict))
				}
			})
		})
	}
}

// scheduler drives the combos of the Ordered containers. Ginkgo runs one
// container at a time in a process, so with Parallel > 1 the container
// that starts also starts the next Parallel-1 selected combos, and each
// BeforeAll waits only for its own. Under `ginkgo -p` each process drives
// only the containers it runs.
type scheduler struct {
	h        *Harness
	order    []Combo
	index    map[string]int
	prefetch bool
	slots    chan struct{}

	mu   sync.Mutex
	runs map[string]*scheduled
}

type scheduled struct {
	done chan struct{}
	x    *Exchange
}

func newScheduler(h *Harness, order []Combo) *scheduler {
	s := &scheduler{h: h, order: order, index: map[string]int{}, slots: make(chan struct{}, h.cfg.Parallel), runs: map[string]*scheduled{}}
	for i, c := range order {
		s.index[c.Name()] = i
	}
	return s
}

// get drives c (unless it already runs) and returns its exchange.
func (s *scheduler) get(c Combo) *Exchange {
	s.mu.Lock()
	if len(s.runs) == 0 {
		cfg, _ := GinkgoConfiguration()
		s.prefetch = cfg.ParallelTotal <= 1
		s.h.cfg.Progress.SetTotal(len(s.order))
	}
	run := s.start(c)
	if i, ok := s.index[c.Name()]; ok && s.prefetch {
		for k := i + 1; k < len(s.order) && k < i+s.h.cfg.Parallel; k++ {
			s.start(s.order[k])
		}
	}
	s.mu.Unlock()
	<-run.done
	return run.x
}

// start launches the run of c once; the caller holds mu.
func (s *scheduler) start(c Combo) *scheduled {
	if run, ok := s.runs[c.Name()]; ok {
		return run
	}
	run := &scheduled{done: make(chan struct{})}
	s.runs[c.Name()] = run
	go func() {
		s.slots <- struct{}{}
		run.x = s.h.Drive(context.Background(), c)
		<-s.slots
		s.h.cfg.Progress.Done(string(c.Dialect), c.Scenario.Name, c.Stream, run.x.Results())
		close(run.done)
	}()
	return run
}

package suite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // the Ginkgo DSL reads best unqualified
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega" //nolint:revive // so does Gomega's

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
)

// Every mode — a driver, a format driver, a RAP tool — makes a plan of
// cases, and one spec tree judges them: a case is an Ordered container
// whose BeforeAll runs it and whose Its judge it, one rule each, with
// SatisfyRule. Ginkgo runs the tree (`toolwire conform`, RegisterSpecs,
// Specs); as Ginkgo runs once per process, Run, RunAll, RunFormat and
// RunRAP walk it case by case with the same spec body.

// Recorder collects the results of the specs that ran, for the reports.
type Recorder struct {
	mu     sync.Mutex
	byCase map[int][]reports.Result
}

func (r *Recorder) add(i int, res reports.Result) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.byCase == nil {
		r.byCase = map[int][]reports.Result{}
	}
	r.byCase[i] = append(r.byCase[i], res)
	r.mu.Unlock()
}

// Results returns what was recorded in plan order — dialect by dialect,
// then scenario, then stream mode, as `toolwire report merge` orders the
// shards of a run — whatever order Ginkgo ran the cases in; each case's
// results in spec order.
func (r *Recorder) Results() []reports.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []reports.Result
	for _, i := range slices.Sorted(maps.Keys(r.byCase)) {
		out = append(out, r.byCase[i]...)
	}
	return out
}

// A specCase is one container of the spec tree: what a mode runs once — a
// driver through a scenario × dialect × stream mode, a format case in a
// dialect, a RAP invocation — then judges with one spec per rule.
type specCase struct {
	name     string
	dialect  string
	scenario string
	stream   bool
	mode     string
	rules    []rules.Rule
	features []string // each rule's feature, as its result names it
}

// labels are the labels of the spec judging rule k: rule, level, feature,
// family, then the case's, filterable with --ginkgo.label-filter (e.g.
// "family:pairing && dialect:gemini").
func (c *specCase) labels(k int) Labels {
	r := c.rules[k]
	return append(Label("rule:"+r.ID, "level:"+string(r.Level), "feature:"+c.features[k], "family:"+familyOf(r)), c.caseLabels()...)
}

// caseLabels are on every spec of the case: dialect, scenario, stream
// and mode.
func (c *specCase) caseLabels() Labels {
	l := Label("dialect:"+c.dialect, "scenario:"+c.scenario, "stream:"+reports.StreamMode(c.stream))
	if c.mode != "" {
		l = append(l, "mode:"+c.mode)
	}
	return l
}

// A plan is what a mode puts before the specs: its cases in order, how to
// run and judge one, and the run the reports describe.
type plan struct {
	cases []specCase
	// verdict runs case i and judges it; each case runs once.
	verdict  func(i int) *verdict
	parallel int // cases run at once
	progress *reports.Progress
	strict   bool
	newRun   func() *reports.Run // the run's description, without results
}

// filled is the run the reports describe, with what rec recorded.
func (p *plan) filled(rec *Recorder, start time.Time) *reports.Run {
	run := p.newRun()
	run.Results = rec.Results()
	run.Duration = time.Since(start)
	return run
}

// A verdict is one case as its mode judged it: a result per rule the case
// reached, in the case's rule order, then the breached rules outside it.
type verdict struct {
	name       string
	results    []reports.Result
	transcript func(max int) string // the exchange, when the mode has one
}

func (v *verdict) result(id string) (reports.Result, bool) {
	i := slices.IndexFunc(v.results, func(r reports.Result) bool { return r.Rule == id })
	if i < 0 {
		return reports.Result{}, false
	}
	return v.results[i], true
}

// Judge is the verdict on r, as SatisfyRule asks it (none, which
// passes, for a rule the case never reached).
func (v *verdict) Judge(r rules.Rule) reports.Result {
	res, _ := v.result(r.ID)
	return res
}

// Transcript is the case's exchange for a failure message ("" when the
// mode has none: its results carry their excerpts).
func (v *verdict) Transcript(max int) string {
	if v.transcript == nil {
		return ""
	}
	return v.transcript(max)
}

func (v *verdict) caseName() string { return v.name }

// outside lists the rules with a result that are not in set.
func (v *verdict) outside(set []rules.Rule) []rules.Rule {
	var out []rules.Rule
	for _, res := range v.results {
		if !slices.ContainsFunc(set, func(r rules.Rule) bool { return r.ID == res.Rule }) {
			out = append(out, rules.Rule{ID: res.Rule, Level: rules.Level(res.Level), Summary: res.Summary, Source: res.Source})
		}
	}
	return out
}

// rendered is a case's findings as its results: one per rule of set —
// the outcome base gave it, else pass, else its findings' failure — then
// one per rule outside set with findings, by ID (outside names it).
func rendered(set []rules.Rule, fs map[string][]finding, base func(rules.Rule) reports.Result, outside func(id string) rules.Rule) []reports.Result {
	var out []reports.Result
	emit := func(r rules.Rule) {
		res := base(r)
		switch {
		case res.Outcome != "":
		case len(fs[r.ID]) == 0:
			res.Outcome = reports.Pass
		default:
			fail(&res, r, fs[r.ID])
		}
		out = append(out, res)
	}
	for _, r := range set {
		emit(r)
	}
	for _, id := range slices.Sorted(maps.Keys(fs)) {
		if !slices.ContainsFunc(set, func(r rules.Rule) bool { return r.ID == id }) {
			emit(outside(id))
		}
	}
	return out
}

// judgeSpec is the body of every spec, in Ginkgo or walked: the case's
// result on r goes to the reports, then SatisfyRule holds the case to r.
// A SHOULD breach passes with a warning (fails under Strict); a rule whose
// feature is not declared is skipped as not supported; a rule the case
// never reached (a call the runtime refused, a format_result the driver
// could not give) has no result and passes unrecorded.
func (p *plan) judgeSpec(g Gomega, rec *Recorder, i int, v *verdict, r rules.Rule, skip, warn func(string)) {
	res, ok := v.result(r.ID)
	if !ok {
		return
	}
	rec.add(i, res)
	switch res.Outcome {
	case reports.NotSupported:
		skip("not supported: " + res.Message)
		return
	case reports.Warn:
		warn(res.Rule + " [SHOULD]: " + res.Message)
	}
	g.Expect(v).To(SatisfyRule(r, p.strict))
}

// RegisterSpecs declares the specs of the harness's plan in the running
// Ginkgo suite: a container per scenario × dialect × stream mode
// (ContinueOnFailure: one breach does not hide the next), an It per rule,
// labelled for label filters, focus, parallel processes and Ginkgo's
// reporters. rec, when not nil, gets every verdict for the reports; only
// combos with a spec labelFilter selects are driven ahead of their turn.
// Call before RunSpecs.
func RegisterSpecs(h *Harness, rec *Recorder, labelFilter string) error {
	return registerPlan(h.specPlan(context.Background()), rec, labelFilter)
}

func registerPlan(p *plan, rec *Recorder, labelFilter string) error {
	filter, err := parseLabelFilter(labelFilter)
	if err != nil {
		return err
	}
	Describe("toolwire conformance", func() { declareSpecs(p, rec, filter) })
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

// declareSpecs declares the plan's containers and specs in the current
// container; filter selects the cases run ahead of their turn.
func declareSpecs(p *plan, rec *Recorder, filter func([]string) bool) {
	var selected []int
	for i := range p.cases {
		for k := range p.cases[i].rules {
			if filter(p.cases[i].labels(k)) {
				selected = append(selected, i)
				break
			}
		}
	}
	// Ginkgo runs containers declared at one place in the order of their
	// text: run ahead in that order.
	slices.SortStableFunc(selected, func(a, b int) int { return strings.Compare(p.cases[a].name, p.cases[b].name) })
	sched := newScheduler(p, selected)
	g := NewGomega(Fail)
	skip := func(msg string) { Skip(msg) }
	warn := func(msg string) { AddReportEntry("warning", msg) }
	for i := range p.cases {
		c := &p.cases[i]
		Describe(c.name, Ordered, ContinueOnFailure, func() {
			var v *verdict
			BeforeAll(func() {
				v = sched.get(i)
			})
			for k, r := range c.rules {
				It(r.ID, c.labels(k), func() { p.judgeSpec(g, rec, i, v, r, skip, warn) })
			}
			// A breach of a rule outside the case's set still fails the run.
			It("breaches no rule outside the catalog", append(Label("family:other"), c.caseLabels()...), func() {
				for _, r := range v.outside(c.rules) {
					p.judgeSpec(g, rec, i, v, r, func(string) {}, warn)
				}
			})
		})
	}
}

// judgeAll walks the spec tree without Ginkgo: every case in order, run
// by the same scheduler, every rule judged by the same judgeSpec as the
// Its. inCase runs one case's judging with the Gomega its failures go to.
func (p *plan) judgeAll(inCase func(name string, judge func(Gomega))) *reports.Run {
	start := time.Now()
	rec := &Recorder{}
	all := make([]int, len(p.cases))
	for i := range all {
		all[i] = i
	}
	sched := newScheduler(p, all)
	none := func(string) {}
	for i := range p.cases {
		c := &p.cases[i]
		inCase(c.name, func(g Gomega) {
			v := sched.get(i)
			for _, r := range append(slices.Clip(c.rules), v.outside(c.rules)...) {
				p.judgeSpec(g, rec, i, v, r, none, none)
			}
		})
	}
	return p.filled(rec, start)
}

// quietly judges a case for its results alone: its failures are in them.
func quietly(_ string, judge func(Gomega)) { judge(NewGomega(func(string, ...int) {})) }

// walkQuietly is a library call's run of p, or why there is none.
func walkQuietly(ctx context.Context, p *plan, err error) (*reports.Run, error) {
	if err != nil {
		return nil, err
	}
	run := p.judgeAll(quietly)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return run, nil
}

// scheduler runs the plan's cases. Ginkgo runs one container at a time in
// a process, so with parallel > 1 the case that starts also starts the
// next parallel-1 selected cases, and each BeforeAll waits only for its
// own. Under `ginkgo -p` each process runs only the containers it runs.
type scheduler struct {
	p        *plan
	order    []int // the selected cases, in the order Ginkgo runs them
	prefetch bool
	slots    chan struct{}

	mu   sync.Mutex
	runs map[int]*scheduled
}

type scheduled struct {
	done chan struct{}
	v    *verdict
}

func newScheduler(p *plan, order []int) *scheduler {
	return &scheduler{p: p, order: order, slots: make(chan struct{}, max(p.parallel, 1)), runs: map[int]*scheduled{}}
}

// get runs case i (unless it already runs) and returns its verdict.
func (s *scheduler) get(i int) *verdict {
	s.mu.Lock()
	if len(s.runs) == 0 {
		cfg, _ := GinkgoConfiguration()
		s.prefetch = cfg.ParallelTotal <= 1
		s.p.progress.SetTotal(len(s.order))
	}
	run := s.start(i)
	if k := slices.Index(s.order, i); k >= 0 && s.prefetch {
		for n := k + 1; n < len(s.order) && n < k+cap(s.slots); n++ {
			s.start(s.order[n])
		}
	}
	s.mu.Unlock()
	<-run.done
	return run.v
}

// start launches the run of case i once; the caller holds mu.
func (s *scheduler) start(i int) *scheduled {
	if run, ok := s.runs[i]; ok {
		return run
	}
	run := &scheduled{done: make(chan struct{})}
	s.runs[i] = run
	go func() {
		s.slots <- struct{}{}
		run.v = s.p.verdict(i)
		<-s.slots
		c := &s.p.cases[i]
		s.p.progress.Done(c.dialect, c.scenario, c.stream, run.v.results)
		close(run.done)
	}()
	return run
}

package suite

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite/task"
)

// Exchange is one driver run through one combo: what the driver reported
// and everything the mock journaled (each request, each answer it sent,
// each violation). Specs judge it rule by rule (Judge, or the Gomega
// matcher SatisfyRule); the scenario checks run once, on the first verdict
// asked for.
type Exchange struct {
	h        *Harness
	Combo    Combo
	Task     *task.Task
	Outcome  Outcome
	Entries  []session.Entry
	Duration time.Duration
	// uniform is every rule's outcome when the run never happened (a
	// feature not declared) or the harness broke.
	uniform *reports.Result

	once  sync.Once
	judge *judge
}

func (x *Exchange) judged() *judge {
	x.once.Do(func() {
		x.judge = &judge{h: x.h, c: x.Combo, t: x.Task, out: x.Outcome, entries: x.Entries, findings: map[string][]finding{}}
		x.judge.run()
	})
	return x.judge
}

// Judge is the verdict of the exchange on one rule.
func (x *Exchange) Judge(r rules.Rule) reports.Result {
	if x.uniform != nil {
		res := x.h.result(x.Combo, r)
		res.Outcome, res.Message, res.Duration = x.uniform.Outcome, x.uniform.Message, x.uniform.Duration
		return res
	}
	return x.judged().result(r, x.Duration)
}

func (x *Exchange) caseName() string { return x.Combo.Name() }

// Rules is what the exchange is judged against: the dialect's rules.
func (x *Exchange) Rules() []rules.Rule { return x.h.RulesFor(x.Combo.Dialect) }

// Outside is the rules outside the dialect's set the journal shows
// breached (none, unless the mock raised a rule of another catalog).
func (x *Exchange) Outside() []rules.Rule {
	if x.uniform != nil {
		return nil
	}
	return x.judged().outside(x.Rules())
}

// Results is the verdict on every rule, then on the rules outside the set
// that were breached.
func (x *Exchange) Results() []reports.Result {
	var out []reports.Result
	for _, r := range x.Rules() {
		out = append(out, x.Judge(r))
	}
	for _, r := range x.Outside() {
		out = append(out, x.Judge(r))
	}
	return out
}

// Transcript is the exchange as a failure message shows it: each request
// with the status the mock answered, clipped.
func (x *Exchange) Transcript(max int) string {
	var b strings.Builder
	for _, e := range x.Entries {
		fmt.Fprintf(&b, "→ %s %s\n%s\n← %d", e.Method, e.Path, clip(string(e.Request), max), e.Status)
		if e.Answered != "" {
			fmt.Fprintf(&b, " (rule %s)", e.Answered)
		}
		if e.Status >= 400 {
			fmt.Fprintf(&b, " %s", clip(string(e.Response), 300))
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "(the mock received no request)"
	}
	return b.String()
}

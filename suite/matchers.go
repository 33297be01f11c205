package suite

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
)

// SatisfyRule is the Gomega matcher of the conformance specs: the actual value
// is an *Exchange, and it matches when the exchange does not breach the
// rule — a MUST rule not failed, a SHOULD rule not failed when strict. A
// rule whose feature is not declared matches (the spec skips it first).
// The failure message names the rule, what was expected against what was
// sent, how to fix it, and the exchange.
//
//	Expect(exchange).To(suite.SatisfyRule(rule, false))
func SatisfyRule(r rules.Rule, strict bool) types.GomegaMatcher {
	return &conformMatcher{rule: r, strict: strict}
}

// judged is what the matcher judges: an *Exchange, or a case of any mode
// as the specs hold it.
type judged interface {
	Judge(rules.Rule) reports.Result
	Transcript(max int) string
	caseName() string
}

type conformMatcher struct {
	rule   rules.Rule
	strict bool
	res    reports.Result
	x      judged
}

func (m *conformMatcher) Match(actual any) (bool, error) {
	x, ok := actual.(judged)
	if !ok || reflect.ValueOf(x).IsNil() {
		return false, fmt.Errorf("SatisfyRule expects a *suite.Exchange, got %T", actual)
	}
	m.x, m.res = x, x.Judge(m.rule)
	return m.res.Outcome != reports.Error && !reports.IsFailing(m.res, m.strict), nil
}

func (m *conformMatcher) FailureMessage(any) string {
	res := m.res
	var b strings.Builder
	if res.Outcome == reports.Error {
		fmt.Fprintf(&b, "harness error on %s: %s\n", res.Rule, res.Message)
	} else {
		fmt.Fprintf(&b, "%s [%s] breached: %s\n", res.Rule, res.Level, res.Summary)
		fmt.Fprintf(&b, "  in:       %s\n", m.x.caseName())
		fmt.Fprintf(&b, "  what:     %s\n", res.Message)
	}
	if res.Expected != "" || res.Got != "" {
		fmt.Fprintf(&b, "  expected: %s\n  got:      %s\n", res.Expected, res.Got)
	}
	if res.Fix != "" {
		fmt.Fprintf(&b, "  fix:      %s\n", res.Fix)
	}
	if res.Source != "" {
		fmt.Fprintf(&b, "  source:   %s\n", res.Source)
	}
	if res.Excerpt != "" {
		fmt.Fprintf(&b, "  request:  %s\n", res.Excerpt)
	}
	if t := m.x.Transcript(600); t != "" {
		fmt.Fprintf(&b, "  exchange:\n%s", indent(t, "    "))
	}
	return b.String()
}

func (m *conformMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("%s was expected to be breached in %s, and was not", m.rule.ID, m.x.caseName())
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n") + "\n"
}

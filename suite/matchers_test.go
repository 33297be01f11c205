package suite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/reference"
)

// The SatisfyRule matcher fails a breached rule with a message that shows
// the rule, what was expected against what was sent, and the exchange,
// and passes the rules the exchange keeps.
func TestSatisfyRuleMatcher(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.DropLastCall.Name), Dialects: []conv.Dialect{conv.Gemini},
		Scenarios: []string{"parallel-same-tool"}, Streams: []bool{false}, Mock: selftestMock(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	plan := h.Plan()
	if len(plan) != 1 {
		t.Fatalf("plan %d combos", len(plan))
	}
	x := h.Drive(context.Background(), plan[0])
	judged := 0
	for _, r := range x.Rules() {
		m := suite.SatisfyRule(r, false)
		ok, err := m.Match(x)
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != "gemini.results-sent" {
			if !ok {
				t.Errorf("%s failed: %s", r.ID, m.FailureMessage(x))
			}
			continue
		}
		judged++
		if ok {
			t.Fatal("a dropped call passed gemini.results-sent")
		}
		msg := m.FailureMessage(x)
		for _, want := range []string{"gemini.results-sent [MUST]", "expected: get_weather, get_weather", "got:      get_weather", "exchange:", "→ POST /v1beta/models/"} {
			if !strings.Contains(msg, want) {
				t.Errorf("failure message lacks %q:\n%s", want, msg)
			}
		}
	}
	if judged != 1 {
		t.Fatal("gemini.results-sent is not among the exchange's rules")
	}
	if _, err := suite.SatisfyRule(x.Rules()[0], false).Match("not an exchange"); err == nil {
		t.Error("matcher accepted a string")
	}
}

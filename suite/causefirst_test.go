package suite_test

import (
	"context"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/reference"
)

// A request the mock rejects marks its rule as the cause, and every
// failure, the checks that follow from it included, carries expected,
// got and a fix.
func TestFailuresCarryCauseExpectedGotAndFix(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.Break("omit-max-tokens")), Dialects: []conv.Dialect{conv.Anthropic},
		Scenarios: []string{"single-call"}, Streams: []bool{false}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	causes := 0
	for _, c := range h.Plan() {
		for _, res := range h.Drive(context.Background(), c).Results() {
			if res.Outcome != reports.Fail {
				continue
			}
			if res.Cause {
				causes++
			}
			if res.Expected == "" || res.Got == "" || res.Fix == "" {
				t.Errorf("%s lacks expected/got/fix: %+v", res.Rule, res)
			}
		}
	}
	if causes == 0 {
		t.Error("no failure marked as the cause")
	}
}

package openairesp_test

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
)

// TestCapabilityCases runs the model catalog's break/fix pairs (the SHOULD
// ones included: journaled, answered normally) through the shared runner.
func TestCapabilityCases(t *testing.T) {
	var cases []dialect.RuleCase
	for _, c := range openairesp.RuleCases() {
		if c.Rule == openairesp.RuleModelExists || strings.HasPrefix(c.Rule, "openai-responses.model-s") {
			cases = append(cases, c)
		}
	}
	if len(cases) < 4 {
		t.Fatalf("%d capability cases", len(cases))
	}
	ruletest.Run(t, mockprovider.NewTestServer(t, mockprovider.Options{}), conv.OpenAIResponses, cases)
}

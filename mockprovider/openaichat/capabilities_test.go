package openaichat_test

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
)

// TestCapabilityCases runs the model catalog's break/fix pairs (the SHOULD
// ones included: journaled, answered normally) through the shared runner.
func TestCapabilityCases(t *testing.T) {
	var cases []dialect.RuleCase
	for _, c := range openaichat.RuleCases() {
		if c.Rule == openaichat.RuleModelExists || strings.HasPrefix(c.Rule, "openai-chat.model-s") {
			cases = append(cases, c)
		}
	}
	if len(cases) < 6 {
		t.Fatalf("%d capability cases", len(cases))
	}
	ruletest.Run(t, mockprovider.NewTestServer(t, mockprovider.Options{}), conv.OpenAIChat, cases)
}

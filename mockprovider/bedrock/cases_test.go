package bedrock_test

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
)

// TestRuleCases posts every rule's Bad and Good request to a live mock:
// a MUST's Bad gets Bedrock's status and text, a SHOULD's is answered and
// journaled, every Good passes clean.
func TestRuleCases(t *testing.T) {
	ts := newServer(t)
	ruletest.Covers(t, ts, conv.Bedrock, bedrock.RuleCases())
	ruletest.Run(t, ts, conv.Bedrock, bedrock.RuleCases())
}

package openairesp

import (
	"slices"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// TestTiesFollowDeclarationOrder: breaches at the same place are reported
// in the catalog's order, so each chain lists rules that can breach at
// one place in the order the API is taken to report them (the request's
// members; one input item; one tool; one item of the effective
// conversation). Moving a
// declaration to another file can reorder them.
func TestTiesFollowDeclarationOrder(t *testing.T) {
	chains := [][]string{
		{RuleKnownFields, RuleFieldTypes, RuleRequiredFields, RuleReasoningModel, RuleEffortLevel, RuleModelOnEndpoint},
		{RuleFieldTypes, RuleRequiredFields, RuleArgumentsString, RuleMessageRole, RuleAssistantContent, RuleItemsPersisted, RuleItemReference},
		{RuleRequiredFields, RuleFunctionName, RuleFunctionSchema, RuleStrictSchema},
		{RuleToolChoice, RulePreviousResponse, RuleUniqueItemIDs, RuleToolOutput, RuleToolCall, RuleReasoningBefore, RuleReasoningFollowed},
	}
	checkChains(t, New().Rules(), chains)
}

func checkChains(t *testing.T, catalog []rules.Rule, chains [][]string) {
	t.Helper()
	at := func(id string) int {
		return slices.IndexFunc(catalog, func(r rules.Rule) bool { return r.ID == id })
	}
	for _, chain := range chains {
		for i := 1; i < len(chain); i++ {
			if at(chain[i-1]) > at(chain[i]) {
				t.Errorf("%s is declared after %s, so it would be reported second at the same place", chain[i-1], chain[i])
			}
		}
	}
}

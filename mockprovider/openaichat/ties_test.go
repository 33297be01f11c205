package openaichat

import (
	"slices"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// TestTiesFollowDeclarationOrder: breaches at the same place are reported
// in the catalog's order, so each chain lists rules that can breach at
// one place in the order the API is taken to report them (the request's
// members; one message; one tool; the conversation's meaning). Moving a
// declaration to another file can reorder them.
func TestTiesFollowDeclarationOrder(t *testing.T) {
	chains := [][]string{
		{RuleKnownFields, RuleMessageMembers, RuleFieldTypes, RuleModelRequired, RuleRequiredFields, RuleStreamOptions,
			RuleToolControlsNeedTools, RuleForcedToolDeclared, RuleReasoningMaxTokens, RuleReasoningEffort, RuleEffortLevel,
			RuleWebSearchModel, RuleModelOnEndpoint},
		{RuleRequiredFields, RuleToolCallsNonEmpty, RuleArgumentsString, RuleImageOnlyInUser, RuleImageFormat,
			RuleRoleSupported, RuleAudioInputModel},
		{RuleRequiredFields, RuleToolNamePattern},
		{RuleToolSchemaValid, RuleStrictSchema, RuleToolCallsAnswered, RuleToolMessageFollows},
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

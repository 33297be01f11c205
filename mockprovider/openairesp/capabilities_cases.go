package openairesp

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// capabilityCases are the break/fix pairs of the model catalog's rules.
func capabilityCases() []dialect.RuleCase {
	return []dialect.RuleCase{
		{Rule: RuleModelExists, Name: "a made-up model id",
			Bad:        js(`{"model":"gpt-test","input":"hi"}`),
			Good:       js(`{"model":"gpt-4.1","input":"hi"}`),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("gpt-test")},
		{Rule: RuleModelExists, Name: "a made-up model id, counting tokens", Path: InputTokensPath,
			Bad:        js(`{"model":"gpt-test","input":"hi"}`),
			Good:       js(`{"model":"gpt-4.1","input":"hi"}`),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("gpt-test")},
		{Rule: RuleReasoningModel, Name: "reasoning.effort to gpt-4.1",
			Bad:        js(`{"model":"gpt-4.1","input":"hi","reasoning":{"effort":"low"}}`),
			Good:       js(`{"model":"gpt-5","input":"hi","reasoning":{"effort":"low"}}`),
			WantStatus: 400, WantMessage: "Unsupported parameter: 'reasoning.effort' is not supported with this model."},
		{Rule: RuleEffortLevel, Name: "reasoning.effort none to gpt-5",
			Bad:  js(`{"model":"gpt-5","input":"hi","reasoning":{"effort":"none"}}`),
			Good: js(`{"model":"gpt-5","input":"hi","reasoning":{"effort":"minimal"}}`)},
		{Rule: RuleModelOnEndpoint, Name: "a Chat Completions search model",
			Bad:  js(`{"model":"gpt-4o-search-preview","input":"hi"}`),
			Good: js(`{"model":"gpt-4o","input":"hi"}`)},
	}
}

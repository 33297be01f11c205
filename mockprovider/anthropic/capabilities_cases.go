package anthropic

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// capabilityCases are the break/fix pairs of the model catalog's rules.
func capabilityCases() []dialect.RuleCase {
	withModel := func(model, extra string) json.RawMessage {
		return json.RawMessage(`{"model":"` + model + `","max_tokens":1024,` + extra + caseTools + `,"messages":` + msgs(askWeather) + `}`)
	}
	return []dialect.RuleCase{
		{Rule: RuleModelExists, Name: "a made-up model id",
			Bad: withModel("claude-test", ""), Good: withModel("claude-haiku-4-5-20251001", ""),
			WantStatus: 404, WantMessage: "model: claude-test"},
		{Rule: RuleModelExists, Name: "a made-up model id, counting tokens", Path: "/v1/messages/count_tokens",
			Bad:        json.RawMessage(`{"model":"claude-test",` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
			Good:       json.RawMessage(`{"model":"claude-sonnet-4-5",` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
			WantStatus: 404, WantMessage: "model: claude-test"},
		{Rule: RuleEffortLevel, Name: "effort xhigh on Opus 4.6",
			Bad:        withModel("claude-opus-4-6", `"output_config":{"effort":"xhigh"},`),
			Good:       withModel("claude-opus-4-7", `"output_config":{"effort":"xhigh"},`),
			WantStatus: 400, WantMessage: "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium."},
	}
}

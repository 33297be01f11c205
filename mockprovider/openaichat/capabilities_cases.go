package openaichat

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// capabilityCases are the break/fix pairs of the model catalog's rules.
func capabilityCases() []dialect.RuleCase {
	hi := arr{userMsg("hi")}
	developer := arr{obj{"role": "developer", "content": "Answer briefly."}, userMsg("hi")}
	system := arr{obj{"role": "system", "content": "Answer briefly."}, userMsg("hi")}
	audio := arr{obj{"role": "user", "content": arr{
		obj{"type": "text", "text": "What is said here?"},
		obj{"type": "input_audio", "input_audio": obj{"data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=", "format": "wav"}},
	}}}
	return []dialect.RuleCase{
		{Rule: RuleModelExists, Name: "a made-up model id",
			Bad: body(hi, obj{"model": "gpt-test"}), Good: body(hi),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("gpt-test")},
		{Rule: RuleModelExists, Name: "a fine-tune of a made-up base",
			Bad: body(hi, obj{"model": "ft:gpt-test:acme::9abc"}), Good: body(hi, obj{"model": "ft:gpt-4o-mini-2024-07-18:acme::9abc"}),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("ft:gpt-test:acme::9abc")},
		{Rule: RuleRoleSupported, Name: "developer message to o1-mini",
			Bad: body(developer, obj{"model": "o1-mini"}), Good: body(hi, obj{"model": "o1-mini"}),
			WantStatus: 400, WantMessage: "Unsupported value: 'messages[0].role' does not support 'developer' with this model."},
		{Rule: RuleRoleSupported, Name: "system message to o1-preview",
			Bad: body(system, obj{"model": "o1-preview"}), Good: body(system, obj{"model": "o1"}),
			WantStatus: 400, WantMessage: "Unsupported value: 'messages[0].role' does not support 'system' with this model."},
		{Rule: RuleReasoningEffort, Name: "reasoning_effort to gpt-4o-mini",
			Bad: body(hi, obj{"reasoning_effort": "low"}), Good: body(hi, obj{"reasoning_effort": "low", "model": "o4-mini"})},
		{Rule: RuleEffortLevel, Name: "reasoning_effort none to gpt-5",
			Bad: body(hi, obj{"model": "gpt-5", "reasoning_effort": "none"}), Good: body(hi, obj{"model": "gpt-5", "reasoning_effort": "minimal"}),
			WantStatus: 400, WantMessage: "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'."},
		{Rule: RuleWebSearchModel, Name: "web_search_options to gpt-4o-mini",
			Bad: body(hi, obj{"web_search_options": obj{}}), Good: body(hi, obj{"web_search_options": obj{}, "model": "gpt-4o-mini-search-preview"}),
			WantStatus: 400, WantMessage: "Web search options not supported with this model."},
		{Rule: RuleWebSearchModel, Name: "web_search_options to a reasoning model",
			Bad: body(hi, obj{"web_search_options": obj{}, "model": "gpt-5"}), Good: body(hi, obj{"web_search_options": obj{}, "model": "gpt-4o-search-preview"}),
			WantStatus: 400, WantMessage: "Unknown parameter: 'web_search_options'."},
		{Rule: RuleModelOnEndpoint, Name: "a Responses-only model",
			Bad: body(hi, obj{"model": "o3-pro"}), Good: body(hi, obj{"model": "o3"})},
		{Rule: RuleAudioInputModel, Name: "input_audio to gpt-4o-mini",
			Bad: body(audio), Good: body(audio, obj{"model": "gpt-4o-audio-preview"})},
	}
}

package refdriver

import (
	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Mistakes about the model: an id the API does not serve, or a parameter
// the named model does not take (the model catalog's rules).
const (
	// Every dialect.
	UnknownModel Break = "unknown-model"
	// OpenAI Chat.
	DeveloperRoleToO1Mini Break = "developer-role-to-o1-mini"
	WebSearchToPlainModel Break = "web-search-to-plain-model"
	AudioToTextModel      Break = "audio-to-text-model"
	// OpenAI Chat and Responses.
	EffortToNonReasoning Break = "effort-to-non-reasoning-model"
	WrongAPIModel        Break = "model-of-the-other-openai-api"
	// OpenAI Chat, OpenAI Responses and Anthropic.
	EffortLevelUnsupported Break = "effort-level-unsupported"
)

func init() {
	chat, resp, anth := conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic
	all = append(all,
		BreakInfo{UnknownModel, nil, "name a model the API does not serve (gpt-test, claude-test, gemini-1.5-flash)"},
		BreakInfo{DeveloperRoleToO1Mini, []conv.Dialect{chat}, "send a developer message to o1-mini, which takes none"},
		BreakInfo{WebSearchToPlainModel, []conv.Dialect{chat}, "send web_search_options to gpt-4.1, which is no search model"},
		BreakInfo{AudioToTextModel, []conv.Dialect{chat}, "send an input_audio part to gpt-4.1, which takes no audio"},
		BreakInfo{EffortToNonReasoning, []conv.Dialect{chat, resp}, "send a reasoning effort to gpt-4.1, which does not reason"},
		BreakInfo{WrongAPIModel, []conv.Dialect{chat, resp}, "use a Responses-only model on Chat (o3-pro) and a Chat-only one on Responses (gpt-4o-search-preview)"},
		BreakInfo{EffortLevelUnsupported, []conv.Dialect{chat, resp, anth}, "ask for an effort level the model lacks (gpt-5 none, Claude Opus 4.6 xhigh)"},
	)
}

// modelExpectations is the kill matrix of the breaks above.
func modelExpectations() []Expectation {
	const maxTokens = "openai-chat.reasoning-models-refuse-max-tokens"
	return []Expectation{
		{Break: UnknownModel, Fails: []string{"openai-chat.model-exists", "openai-responses.model-exists", "anthropic.model-exists", "gemini.model-exists"}},
		{Break: DeveloperRoleToO1Mini, Fails: []string{"openai-chat.model-supports-role"}, MayFail: []string{maxTokens}},
		{Break: WebSearchToPlainModel, Fails: []string{"openai-chat.model-supports-web-search"}},
		{Break: AudioToTextModel, Fails: []string{"openai-chat.model-supports-audio-input"}},
		{Break: EffortToNonReasoning, Fails: []string{"openai-chat.model-supports-reasoning-effort", "openai-responses.model-supports-reasoning"}},
		{Break: WrongAPIModel, Fails: []string{"openai-chat.model-served-by-chat", "openai-responses.model-served-by-responses"}, MayFail: []string{maxTokens}},
		{Break: EffortLevelUnsupported, Fails: []string{"openai-chat.model-supports-effort-level", "openai-responses.model-supports-effort-level", "anthropic.model-supports-effort-level"}},
	}
}

// geminiModel is the model the Gemini driver names (in the path).
func (d *Driver) geminiModel(model string) string {
	if d.Break == UnknownModel {
		return "gemini-1.5-flash" // retired: the API answers 404
	}
	return model
}

// modelEdit returns the body rewrite of the breaks above for dialect, or
// nil.
func (d *Driver) modelEdit(dialect conv.Dialect) func([]byte) []byte {
	chat, resp := dialect == conv.OpenAIChat, dialect == conv.OpenAIResponses
	switch d.Break {
	case UnknownModel:
		if dialect == conv.Anthropic {
			return setKeys(map[string]any{"model": "claude-test"})
		}
		return setKeys(map[string]any{"model": "gpt-test"})
	case DeveloperRoleToO1Mini:
		return func(body []byte) []byte {
			body = setKeys(map[string]any{"model": "o1-mini"})(body)
			first := true
			return mapArray("messages", func(m gjson.Result) []string {
				if first {
					first = false
					return []string{`{"role":"developer","content":"Use the tools."}`, m.Raw}
				}
				return []string{m.Raw}
			})(body)
		}
	case WebSearchToPlainModel:
		return setKeys(map[string]any{"model": "gpt-4.1", "web_search_options": map[string]any{}})
	case AudioToTextModel:
		return func(body []byte) []byte {
			body = setKeys(map[string]any{"model": "gpt-4.1"})(body)
			first := true
			return mapArray("messages", func(m gjson.Result) []string {
				if first && m.Get("role").Str == "user" {
					first = false
					return []string{m.Raw, `{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=","format":"wav"}}]}`}
				}
				return []string{m.Raw}
			})(body)
		}
	case EffortToNonReasoning:
		if resp {
			return setKeys(map[string]any{"model": "gpt-4.1", "reasoning": map[string]any{"effort": "low"}})
		}
		return setKeys(map[string]any{"model": "gpt-4.1", "reasoning_effort": "low"})
	case WrongAPIModel:
		if chat {
			return setKeys(map[string]any{"model": "o3-pro"})
		}
		return setKeys(map[string]any{"model": "gpt-4o-search-preview"})
	case EffortLevelUnsupported:
		switch {
		case chat:
			return setKeys(map[string]any{"model": "gpt-5", "reasoning_effort": "none"})
		case resp:
			return setKeys(map[string]any{"model": "gpt-5", "reasoning": map[string]any{"effort": "none"}})
		}
		return setKeys(map[string]any{"model": "claude-opus-4-6", "output_config": map[string]any{"effort": "xhigh"}})
	}
	return nil
}

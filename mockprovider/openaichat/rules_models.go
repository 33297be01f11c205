package openaichat

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// What a model accepts: the model exists (enforced by the server for
// every dialect, answered by ModelNotFound), the parameters of its family
// and what the model catalog says it takes.

// MaxTokensUnsupportedMessage is the API's answer to max_tokens sent to a
// reasoning model.
const MaxTokensUnsupportedMessage = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."

var RuleReasoningMaxTokens = set.Add(rules.Rule{
	ID: "openai-chat.reasoning-models-refuse-max-tokens", Level: rules.MUST, Family: familyShapes,
	Summary: "Reasoning models (o1*, o3*, o4*, gpt-5*) take max_completion_tokens; the legacy max_tokens is refused.",
	Refs: []rules.Ref{
		{URL: "https://github.com/griptape-ai/ComfyUI-Griptape/issues/312", Quote: "gpt-5, verbatim 400 with param max_tokens, code unsupported_parameter"},
		{URL: "https://github.com/teilomillet/gollm/issues/33", Quote: "o1, o3-mini"},
	},
	Cases: []rules.Case{
		{Name: "max_tokens to gpt-5",
			Bad: body(hi, obj{"model": "gpt-5-mini", "max_tokens": 100}), Good: body(hi, obj{"model": "gpt-5-mini", "max_completion_tokens": 100}),
			WantStatus: 400, WantMessage: MaxTokensUnsupportedMessage},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if !r.MaxTokensSent || !IsReasoningModel(r.Model) {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "max_tokens", "max_tokens", "unsupported_parameter", MaxTokensUnsupportedMessage)}
})

// reasoningModelPrefixes name the reasoning model families.
var reasoningModelPrefixes = []string{"o1", "o3", "o4", "gpt-5"}

// IsReasoningModel reports whether a model name is of a reasoning family
// (a dated or sized variant such as o4-mini-2025-04-16 included).
func IsReasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range reasoningModelPrefixes {
		if m == p || strings.HasPrefix(m, p+"-") || strings.HasPrefix(m, p+".") {
			return true
		}
	}
	return false
}

var RuleModelExists = set.Add(rules.Rule{
	ID: "openai-chat.model-exists", Level: rules.MUST, Family: familyModels,
	Summary: "The model is one the API serves (a catalog model, a dated snapshot, or a fine-tune of one; serve --models adds more); Azure deployment names are not checked.",
	Refs: []rules.Ref{
		{URL: "https://github.com/rd-1-2022/ai-openai-helloworld/issues/9", Quote: "404 model_not_found, verbatim"},
		{URL: "https://github.com/noahgsolomon/brainrot.js/issues/17", Quote: "fine-tuned id"},
	},
	Cases: []rules.Case{
		{Name: "a made-up model id",
			Bad: body(hi, obj{"model": "gpt-test"}), Good: body(hi),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("gpt-test")},
		{Name: "a fine-tune of a made-up base",
			Bad: body(hi, obj{"model": "ft:gpt-test:acme::9abc"}), Good: body(hi, obj{"model": "ft:gpt-4o-mini-2024-07-18:acme::9abc"}),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("ft:gpt-test:acme::9abc")},
	},
}, nil)

// ModelNotFound is the API's 404 for an unknown model. On Azure the path
// names a deployment, whatever it is called, and the body's model is
// optional and not a model id, so nothing is refused there.
func (d *Dialect) ModelNotFound(r *http.Request, model string) *wire.APIError {
	if r != nil && strings.HasPrefix(r.URL.Path, openaiwire.AzurePrefix) {
		return nil
	}
	e := openaiwire.ModelNotFound(model)
	e.RuleID = RuleModelExists
	return e
}

var RuleRoleSupported = set.Add(rules.Rule{
	ID: "openai-chat.model-supports-role", Level: rules.MUST, Family: familyModels,
	Summary: "A model without developer or system messages (o1-mini, o1-preview) is sent none.",
	Refs: []rules.Ref{
		{URL: "https://github.com/lobehub/lobehub/issues/5704", Quote: "verbatim: unsupported_value, param messages[0].role, o1-preview and o1-mini"},
	},
	Cases: []rules.Case{
		{Name: "developer message to o1-mini",
			Bad:        body(arr{obj{"role": "developer", "content": "Answer briefly."}, userMsg("hi")}, obj{"model": "o1-mini"}),
			Good:       body(hi, obj{"model": "o1-mini"}),
			WantStatus: 400, WantMessage: "Unsupported value: 'messages[0].role' does not support 'developer' with this model."},
		{Name: "system message to o1-preview",
			Bad:        body(arr{obj{"role": "system", "content": "Answer briefly."}, userMsg("hi")}, obj{"model": "o1-preview"}),
			Good:       body(arr{obj{"role": "system", "content": "Answer briefly."}, userMsg("hi")}, obj{"model": "o1"}),
			WantStatus: 400, WantMessage: "Unsupported value: 'messages[0].role' does not support 'system' with this model."},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if m == nil || (!m.NoDeveloperRole && !m.NoSystemRole) {
		return nil
	}
	for _, msg := range r.Messages {
		if (msg.Role == "developer" && m.NoDeveloperRole) || (msg.Role == "system" && m.NoSystemRole) {
			param := fmt.Sprintf("messages[%d].role", msg.Index)
			return []rules.Violation{unsupported(atMessage(msg.Index), param, param, "unsupported_value",
				fmt.Sprintf("Unsupported value: '%s' does not support '%s' with this model.", param, msg.Role))}
		}
	}
	return nil
})

func unsupported(order int, path string, param, code any, msg string) rules.Violation {
	return rules.Violation{Path: path, Order: order, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Param: param, Code: code, Message: msg}
}

var RuleReasoningEffort = set.Add(rules.Rule{
	ID: "openai-chat.model-supports-reasoning-effort", Level: rules.SHOULD, Family: familyModels,
	Summary: "reasoning_effort is sent to reasoning models only (not gpt-4o, gpt-4.1, o1-mini).",
	Refs: []rules.Ref{
		{URL: "https://github.com/avante-corp/avante.nvim/pull/1359", Quote: "400 for reasoning_effort on gpt-4o"},
		{URL: "https://github.com/BoundaryML/baml/pull/2708", Quote: "the text, worded as the Responses API's reasoning.effort answer", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "reasoning_effort to gpt-4o-mini",
			Bad: body(hi, obj{"reasoning_effort": "low"}), Good: body(hi, obj{"reasoning_effort": "low", "model": "o4-mini"})},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if r.caps.ReasoningEffort == nil || !(m.NotReasoning() || (m.EffortsKnown() && len(m.Efforts) == 0)) {
		return nil
	}
	return []rules.Violation{unsupported(requestLevel, "reasoning_effort", "reasoning_effort", "unsupported_parameter",
		"Unsupported parameter: 'reasoning_effort' is not supported with this model.")}
})

var RuleEffortLevel = set.Add(rules.Rule{
	ID: "openai-chat.model-supports-effort-level", Level: rules.MUST, Family: familyModels,
	Summary: "reasoning_effort is a level the model accepts (gpt-5: minimal, low, medium, high; o3: low, medium, high).",
	Refs: []rules.Ref{
		{URL: "https://github.com/Kilo-Org/cloud/pull/3807", Quote: "verbatim: 'none' refused, the supported values listed"},
	},
	Cases: []rules.Case{
		{Name: "reasoning_effort none to gpt-5",
			Bad: body(hi, obj{"model": "gpt-5", "reasoning_effort": "none"}), Good: body(hi, obj{"model": "gpt-5", "reasoning_effort": "minimal"}),
			WantStatus: 400, WantMessage: "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'."},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	effort := r.caps.ReasoningEffort
	if effort == nil || m == nil || len(m.Efforts) == 0 || !m.RefusesEffort(*effort) {
		return nil
	}
	return []rules.Violation{unsupported(requestLevel, "reasoning_effort", "reasoning_effort", "unsupported_value",
		fmt.Sprintf("Unsupported value: 'reasoning_effort' does not support '%s' with this model. Supported values are: %s.", *effort, quotedList(m.Efforts)))}
})

var RuleWebSearchModel = set.Add(rules.Rule{
	ID: "openai-chat.model-supports-web-search", Level: rules.MUST, Family: familyModels,
	Summary: "web_search_options is sent to the search models only (gpt-4o-search-preview, gpt-4o-mini-search-preview).",
	Refs: []rules.Ref{
		{URL: "https://github.com/cpbotha/obsidian-ai-chat-as-md/issues/5", Quote: `gpt-4o: 400 "Web search options not supported with this model."`},
		{URL: "https://github.com/BerriAI/litellm/issues/12311", Quote: "o4-mini, gpt-5: unknown_parameter, verbatim"},
		{URL: "https://github.com/pydantic/pydantic-ai/issues/2822", Quote: "o4-mini, gpt-5: unknown_parameter, verbatim"},
	},
	Cases: []rules.Case{
		{Name: "web_search_options to gpt-4o-mini",
			Bad: body(hi, obj{"web_search_options": obj{}}), Good: body(hi, obj{"web_search_options": obj{}, "model": "gpt-4o-mini-search-preview"}),
			WantStatus: 400, WantMessage: "Web search options not supported with this model."},
		{Name: "web_search_options to a reasoning model",
			Bad: body(hi, obj{"web_search_options": obj{}, "model": "gpt-5"}), Good: body(hi, obj{"web_search_options": obj{}, "model": "gpt-4o-search-preview"}),
			WantStatus: 400, WantMessage: "Unknown parameter: 'web_search_options'."},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if !r.caps.WebSearch || !m.RefusesWebSearch() {
		return nil
	}
	if m.Reasoning != nil && *m.Reasoning {
		// The reasoning models' schema has no such member at all.
		return []rules.Violation{unsupported(requestLevel, "web_search_options", "web_search_options", "unknown_parameter",
			"Unknown parameter: 'web_search_options'.")}
	}
	return []rules.Violation{unsupported(requestLevel, "web_search_options", nil, nil, "Web search options not supported with this model.")}
})

// audioMessages ask about an input_audio part.
var audioMessages = arr{obj{"role": "user", "content": arr{
	obj{"type": "text", "text": "What is said here?"},
	obj{"type": "input_audio", "input_audio": obj{"data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=", "format": "wav"}},
}}}

var RuleAudioInputModel = set.Add(rules.Rule{
	ID: "openai-chat.model-supports-audio-input", Level: rules.SHOULD, Family: familyModels,
	Summary: "input_audio parts go to audio models only (gpt-4o-audio-preview, gpt-audio-mini).",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/audio", Quote: "audio input needs an audio model"},
		{Quote: "the refusal's text", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "input_audio to gpt-4o-mini",
			Bad: body(audioMessages), Good: body(audioMessages, obj{"model": "gpt-4o-audio-preview"})},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	if !env.Catalog().RefusesInput("audio") {
		return nil
	}
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			if p.Type == "input_audio" {
				param := fmt.Sprintf("messages[%d]", msg.Index)
				return []rules.Violation{unsupported(atMessage(msg.Index), param, param, nil,
					fmt.Sprintf("Invalid '%s'. Content blocks are expected to be either text or image_url type.", param))}
			}
		}
	}
	return nil
})

var RuleModelOnEndpoint = set.Add(rules.Rule{
	ID: "openai-chat.model-served-by-chat", Level: rules.SHOULD, Family: familyModels,
	Summary: "The model is served by Chat Completions (o1-pro, o3-pro, the deep-research, codex and computer-use models are Responses only).",
	Refs: []rules.Ref{
		{URL: "https://github.com/sigoden/aichat/pull/1318", Quote: "o1-pro and o3-pro refused on Chat Completions, the Responses API required"},
		{URL: "https://developers.openai.com/api/docs/models/all", Quote: "endpoints per model"},
		{Quote: "the text", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "a Responses-only model",
			Bad: body(hi, obj{"model": "o3-pro"}), Good: body(hi, obj{"model": "o3"})},
	},
}, func(_ *Request, env *rules.Env) []rules.Violation {
	if env.Catalog().Serves("chat") {
		return nil
	}
	return []rules.Violation{{Path: "model", Order: requestLevel, Status: http.StatusNotFound, ErrType: openaiwire.InvalidRequest, Param: "model",
		Message: "This model is only supported in v1/responses and not in v1/chat/completions."}}
})

// capabilityParams are the members only the model rules read.
type capabilityParams struct {
	ReasoningEffort *string
	WebSearch       bool
}

func capabilityParamsOf(w *chatRequest) capabilityParams {
	return capabilityParams{ReasoningEffort: w.ReasoningEffort, WebSearch: w.WebSearchOptions != nil}
}

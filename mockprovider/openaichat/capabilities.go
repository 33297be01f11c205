package openaichat

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Rule IDs of the model catalog: the model exists (enforced by the server
// for every dialect, answered by ModelNotFound) and what it accepts.
const (
	RuleModelExists     = "openai-chat.model-exists"
	RuleRoleSupported   = "openai-chat.model-supports-role"
	RuleReasoningEffort = "openai-chat.model-supports-reasoning-effort"
	RuleEffortLevel     = "openai-chat.model-supports-effort-level"
	RuleWebSearchModel  = "openai-chat.model-supports-web-search"
	RuleAudioInputModel = "openai-chat.model-supports-audio-input"
	RuleModelOnEndpoint = "openai-chat.model-served-by-chat"
)

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

// capabilityRules are the catalog's rules (capabilities.go), appended to
// the dialect's own.
func capabilityRules() []rules.Rule {
	r := func(id string, level rules.Level, summary, source string, check rules.CheckFunc) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.OpenAIChat, Level: level, Summary: summary, Source: source, Check: check}
	}
	return []rules.Rule{
		r(RuleModelExists, rules.MUST, "The model is one the API serves (a catalog model, a dated snapshot, or a fine-tune of one; serve --models adds more); Azure deployment names are not checked.",
			"https://github.com/rd-1-2022/ai-openai-helloworld/issues/9 (404 model_not_found, verbatim); https://github.com/noahgsolomon/brainrot.js/issues/17 (fine-tuned id)", nil),
		r(RuleRoleSupported, rules.MUST, "A model without developer or system messages (o1-mini, o1-preview) is sent none.",
			"https://github.com/lobehub/lobehub/issues/5704 (verbatim: unsupported_value, param messages[0].role, o1-preview and o1-mini)", checkRoleSupported),
		r(RuleReasoningEffort, rules.SHOULD, "reasoning_effort is sent to reasoning models only (not gpt-4o, gpt-4.1, o1-mini).",
			"https://github.com/avante-corp/avante.nvim/pull/1359 (400 for reasoning_effort on gpt-4o; the text [I], worded as the Responses API's reasoning.effort answer: https://github.com/BoundaryML/baml/pull/2708)", checkReasoningEffort),
		r(RuleEffortLevel, rules.MUST, "reasoning_effort is a level the model accepts (gpt-5: minimal, low, medium, high; o3: low, medium, high).",
			"https://github.com/Kilo-Org/cloud/pull/3807 (verbatim: 'none' refused, the supported values listed)", checkEffortLevel),
		r(RuleWebSearchModel, rules.MUST, "web_search_options is sent to the search models only (gpt-4o-search-preview, gpt-4o-mini-search-preview).",
			"https://github.com/cpbotha/obsidian-ai-chat-as-md/issues/5 (gpt-4o: 400 \"Web search options not supported with this model.\"); https://github.com/BerriAI/litellm/issues/12311 and https://github.com/pydantic/pydantic-ai/issues/2822 (o4-mini, gpt-5: unknown_parameter, verbatim)", checkWebSearchModel),
		r(RuleAudioInputModel, rules.SHOULD, "input_audio parts go to audio models only (gpt-4o-audio-preview, gpt-audio-mini).",
			"https://platform.openai.com/docs/guides/audio (audio input needs an audio model; the refusal's text [I])", checkAudioInputModel),
		r(RuleModelOnEndpoint, rules.SHOULD, "The model is served by Chat Completions (o1-pro, o3-pro, the deep-research, codex and computer-use models are Responses only).",
			"https://github.com/sigoden/aichat/pull/1318 (o1-pro and o3-pro refused on Chat Completions, the Responses API required); https://developers.openai.com/api/docs/models/all (endpoints per model); the text [I]", checkModelOnEndpoint),
	}
}

func unsupported(order int, path string, param, code any, msg string) rules.Violation {
	return rules.Violation{Path: path, Order: order, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Param: param, Code: code, Message: msg}
}

func checkRoleSupported(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if m == nil || (!m.NoDeveloperRole && !m.NoSystemRole) {
		return nil
	}
	for _, msg := range r.Messages {
		if (msg.Role == "developer" && m.NoDeveloperRole) || (msg.Role == "system" && m.NoSystemRole) {
			param := fmt.Sprintf("messages[%d].role", msg.Index)
			return []rules.Violation{unsupported(msg.Index, param, param, "unsupported_value",
				fmt.Sprintf("Unsupported value: '%s' does not support '%s' with this model.", param, msg.Role))}
		}
	}
	return nil
}

func checkReasoningEffort(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if r.caps.ReasoningEffort == nil || !(m.NotReasoning() || (m.EffortsKnown() && len(m.Efforts) == 0)) {
		return nil
	}
	return []rules.Violation{unsupported(requestLevel, "reasoning_effort", "reasoning_effort", "unsupported_parameter",
		"Unsupported parameter: 'reasoning_effort' is not supported with this model.")}
}

func checkEffortLevel(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	effort := r.caps.ReasoningEffort
	if effort == nil || m == nil || len(m.Efforts) == 0 || !m.RefusesEffort(*effort) {
		return nil
	}
	return []rules.Violation{unsupported(requestLevel, "reasoning_effort", "reasoning_effort", "unsupported_value",
		fmt.Sprintf("Unsupported value: 'reasoning_effort' does not support '%s' with this model. Supported values are: %s.", *effort, quotedList(m.Efforts)))}
}

func checkWebSearchModel(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if !r.caps.WebSearch || !m.RefusesWebSearch() {
		return nil
	}
	if m.Reasoning != nil && *m.Reasoning {
		// The reasoning models' schema has no such member at all.
		return []rules.Violation{unsupported(requestLevel, "web_search_options", "web_search_options", "unknown_parameter",
			"Unknown parameter: 'web_search_options'.")}
	}
	return []rules.Violation{unsupported(requestLevel, "web_search_options", nil, nil, "Web search options not supported with this model.")}
}

func checkAudioInputModel(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if !m.RefusesInput("audio") {
		return nil
	}
	for _, msg := range r.Messages {
		for _, p := range msg.Parts {
			if p.Type == "input_audio" {
				param := fmt.Sprintf("messages[%d]", msg.Index)
				return []rules.Violation{unsupported(msg.Index, param, param, nil,
					fmt.Sprintf("Invalid '%s'. Content blocks are expected to be either text or image_url type.", param))}
			}
		}
	}
	return nil
}

func checkModelOnEndpoint(_ any, env *rules.Env) []rules.Violation {
	if env.Catalog().Serves("chat") {
		return nil
	}
	return []rules.Violation{{Path: "model", Order: requestLevel, Status: http.StatusNotFound, ErrType: openaiwire.InvalidRequest, Param: "model",
		Message: "This model is only supported in v1/responses and not in v1/chat/completions."}}
}

// capabilityParams are the members only the capability rules read.
type capabilityParams struct {
	ReasoningEffort *string
	WebSearch       bool
}

func capabilityParamsOf(w *chatRequest) capabilityParams {
	return capabilityParams{ReasoningEffort: w.ReasoningEffort, WebSearch: w.WebSearchOptions != nil}
}

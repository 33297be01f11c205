package openairesp

import (
	"fmt"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Rule IDs of the model catalog: the model exists (enforced by the server
// for every dialect and the WebSocket mode's response.create, answered by
// ModelNotFound) and what it accepts.
const (
	RuleModelExists     = "openai-responses.model-exists"
	RuleReasoningModel  = "openai-responses.model-supports-reasoning"
	RuleEffortLevel     = "openai-responses.model-supports-effort-level"
	RuleModelOnEndpoint = "openai-responses.model-served-by-responses"
)

// ModelNotFound is the API's 404 for an unknown model.
func (d *Dialect) ModelNotFound(_ *http.Request, model string) *wire.APIError {
	e := openaiwire.ModelNotFound(model)
	e.RuleID = RuleModelExists
	return e
}

// capabilityRules are the catalog's rules, appended to the dialect's own.
func capabilityRules() []rules.Rule {
	r := func(id string, level rules.Level, summary, source string, check rules.CheckFunc) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.OpenAIResponses, Level: level, Summary: summary, Source: source, Check: check}
	}
	return []rules.Rule{
		r(RuleModelExists, rules.MUST, "The model is one the API serves (a catalog model, a dated snapshot, or a fine-tune of one; serve --models adds more), on every endpoint and in WebSocket mode.",
			"https://github.com/rd-1-2022/ai-openai-helloworld/issues/9 (404 model_not_found, verbatim)", nil),
		r(RuleReasoningModel, rules.MUST, "reasoning.effort is sent to reasoning models only (not gpt-4o, gpt-4.1).",
			"https://github.com/BoundaryML/baml/pull/2708 (gpt-4.1) and https://github.com/RageAgainstThePixel/OpenAI-DotNet/issues/500 (gpt-4o): 400, param reasoning.effort, code unsupported_parameter, verbatim", checkReasoningModel),
		r(RuleEffortLevel, rules.SHOULD, "reasoning.effort is a level the model accepts.",
			"https://github.com/Kilo-Org/cloud/pull/3807 (the Chat Completions wording of the refusal; the Responses text [I])", checkEffortLevel),
		r(RuleModelOnEndpoint, rules.SHOULD, "The model is served by the Responses API (the audio and search previews are Chat Completions only).",
			"https://github.com/Laisky/one-api/issues/88 (gpt-4o-search-preview: param model, code model_not_found; the status [I])", checkModelOnEndpoint),
	}
}

func checkReasoningModel(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if r.W.Reasoning == nil || r.W.Reasoning.Effort == "" || !(m.NotReasoning() || (m.EffortsKnown() && len(m.Efforts) == 0)) {
		return nil
	}
	return []rules.Violation{violation(orderStructure-2, "reasoning.effort", "reasoning.effort", "unsupported_parameter",
		"Unsupported parameter: 'reasoning.effort' is not supported with this model.")}
}

func checkEffortLevel(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if r.W.Reasoning == nil || r.W.Reasoning.Effort == "" || m == nil || len(m.Efforts) == 0 || !m.RefusesEffort(r.W.Reasoning.Effort) {
		return nil
	}
	return []rules.Violation{violation(orderStructure-2, "reasoning.effort", "reasoning.effort", "unsupported_value",
		fmt.Sprintf("Unsupported value: 'reasoning.effort' does not support '%s' with this model. Supported values are: %s.", r.W.Reasoning.Effort, supportedList(m.Efforts)))}
}

func checkModelOnEndpoint(req any, env *rules.Env) []rules.Violation {
	r, m := req.(*Request), env.Catalog()
	if m.Serves("responses") {
		return nil
	}
	return []rules.Violation{violation(orderStructure-2, "model", "model", "model_not_found",
		fmt.Sprintf("The requested model '%s' is not supported with the Responses API.", r.Model))}
}

package openairesp

import (
	"fmt"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// What a model accepts: the model exists (enforced by the server for
// every dialect and the WebSocket mode's response.create, answered by
// ModelNotFound), and what the model catalog says it takes.

var RuleModelExists = set.Add(rules.Rule{
	ID: "openai-responses.model-exists", Level: rules.MUST, Family: familyModels,
	Summary: "The model is one the API serves (a catalog model, a dated snapshot, or a fine-tune of one; serve --models adds more), on every endpoint and in WebSocket mode.",
	Refs: []rules.Ref{
		{URL: "https://github.com/rd-1-2022/ai-openai-helloworld/issues/9", Quote: "404 model_not_found, verbatim"},
	},
	Cases: []rules.Case{
		{Name: "a made-up model id",
			Bad:        js(`{"model":"gpt-test","input":"hi"}`),
			Good:       js(`{"model":"gpt-4.1","input":"hi"}`),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("gpt-test")},
		{Name: "a made-up model id, counting tokens", Path: InputTokensPath,
			Bad:        js(`{"model":"gpt-test","input":"hi"}`),
			Good:       js(`{"model":"gpt-4.1","input":"hi"}`),
			WantStatus: 404, WantMessage: openaiwire.ModelNotFoundMessage("gpt-test")},
	},
}, nil)

// ModelNotFound is the API's 404 for an unknown model.
func (d *Dialect) ModelNotFound(_ *http.Request, model string) *wire.APIError {
	e := openaiwire.ModelNotFound(model)
	e.RuleID = RuleModelExists
	return e
}

var RuleReasoningModel = set.Add(rules.Rule{
	ID: "openai-responses.model-supports-reasoning", Level: rules.MUST, Family: familyModels,
	Summary: "reasoning.effort is sent to reasoning models only (not gpt-4o, gpt-4.1).",
	Refs: []rules.Ref{
		{URL: "https://github.com/BoundaryML/baml/pull/2708", Quote: "gpt-4.1: 400, param reasoning.effort, code unsupported_parameter, verbatim"},
		{URL: "https://github.com/RageAgainstThePixel/OpenAI-DotNet/issues/500", Quote: "gpt-4o: 400, param reasoning.effort, code unsupported_parameter, verbatim"},
	},
	Cases: []rules.Case{
		{Name: "reasoning.effort to gpt-4.1",
			Bad:        js(`{"model":"gpt-4.1","input":"hi","reasoning":{"effort":"low"}}`),
			Good:       js(`{"model":"gpt-5","input":"hi","reasoning":{"effort":"low"}}`),
			WantStatus: 400, WantMessage: "Unsupported parameter: 'reasoning.effort' is not supported with this model."},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if r.W.Reasoning == nil || r.W.Reasoning.Effort == "" || !(m.NotReasoning() || (m.EffortsKnown() && len(m.Efforts) == 0)) {
		return nil
	}
	return []rules.Violation{violation(atMembers, "reasoning.effort", "reasoning.effort", "unsupported_parameter",
		"Unsupported parameter: 'reasoning.effort' is not supported with this model.")}
})

var RuleEffortLevel = set.Add(rules.Rule{
	ID: "openai-responses.model-supports-effort-level", Level: rules.SHOULD, Family: familyModels,
	Summary: "reasoning.effort is a level the model accepts.",
	Refs: []rules.Ref{
		{URL: "https://github.com/Kilo-Org/cloud/pull/3807", Quote: "the Chat Completions wording of the refusal"},
		{Quote: "the Responses text", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "reasoning.effort none to gpt-5",
			Bad:  js(`{"model":"gpt-5","input":"hi","reasoning":{"effort":"none"}}`),
			Good: js(`{"model":"gpt-5","input":"hi","reasoning":{"effort":"minimal"}}`)},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if r.W.Reasoning == nil || r.W.Reasoning.Effort == "" || m == nil || len(m.Efforts) == 0 || !m.RefusesEffort(r.W.Reasoning.Effort) {
		return nil
	}
	return []rules.Violation{violation(atMembers, "reasoning.effort", "reasoning.effort", "unsupported_value",
		fmt.Sprintf("Unsupported value: 'reasoning.effort' does not support '%s' with this model. Supported values are: %s.", r.W.Reasoning.Effort, supportedList(m.Efforts)))}
})

var RuleModelOnEndpoint = set.Add(rules.Rule{
	ID: "openai-responses.model-served-by-responses", Level: rules.SHOULD, Family: familyModels,
	Summary: "The model is served by the Responses API (the audio and search previews are Chat Completions only).",
	Refs: []rules.Ref{
		{URL: "https://github.com/Laisky/one-api/issues/88", Quote: "gpt-4o-search-preview: param model, code model_not_found"},
		{Quote: "the status", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "a Chat Completions search model",
			Bad:  js(`{"model":"gpt-4o-search-preview","input":"hi"}`),
			Good: js(`{"model":"gpt-4o","input":"hi"}`)},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	if env.Catalog().Serves("responses") {
		return nil
	}
	return []rules.Violation{violation(atMembers, "model", "model", "model_not_found",
		fmt.Sprintf("The requested model '%s' is not supported with the Responses API.", r.Model))}
})

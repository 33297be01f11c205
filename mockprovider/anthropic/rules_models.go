package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The model catalog: the model exists (enforced by the server for every
// dialect, answered by ModelNotFound) and accepts what is asked of it.

const (
	RuleModelExists = "anthropic.model-exists"
	RuleEffortLevel = "anthropic.model-supports-effort-level"
)

func modelRules(s *rules.Set[Request]) {
	withModel := func(model, extra string) json.RawMessage {
		return json.RawMessage(`{"model":"` + model + `","max_tokens":1024,` + extra + caseTools + `,"messages":` + msgs(askWeather) + `}`)
	}
	s.Add(rules.Rule{ID: RuleModelExists, Level: rules.MUST, Family: "models",
		Summary: "The model is one the API serves (a catalog model or its dated snapshot; serve --models adds more), on Messages, count_tokens and the Models API.",
		Refs: []rules.Ref{
			{URL: "https://github.com/mattermost/mattermost-plugin-agents/issues/257", Quote: "the 404 not_found_error envelope, verbatim"},
			{URL: "https://github.com/continuedev/continue/issues/9476", Quote: `the message "model: <id>", verbatim`},
		},
		Cases: []rules.Case{
			{Name: "a made-up model id",
				Bad: withModel("claude-test", ""), Good: withModel("claude-haiku-4-5-20251001", ""),
				WantStatus: 404, WantMessage: "model: claude-test"},
			{Name: "a made-up model id, counting tokens", Path: "/v1/messages/count_tokens",
				Bad:        json.RawMessage(`{"model":"claude-test",` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
				Good:       json.RawMessage(`{"model":"claude-sonnet-4-5",` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
				WantStatus: 404, WantMessage: "model: claude-test"},
		},
	}, nil) // the server answers it, before decoding

	s.Add(rules.Rule{ID: RuleEffortLevel, Level: rules.MUST, Family: "models",
		Summary: "output_config.effort is a level the model accepts (xhigh: Opus 4.7 and later; max: Opus 4.6, Sonnet 4.6 and later).",
		Refs: []rules.Ref{
			{URL: "https://github.com/SkillfulAgents/SuperAgent/pull/1142", Quote: "400 for xhigh on claude-sonnet-4-6 and claude-opus-4-6, measured per level"},
			{URL: "https://docs.anthropic.com/en/docs/build-with-claude/effort"},
			{Quote: "the message", Inferred: true},
		},
		Cases: []rules.Case{
			{Name: "effort xhigh on Opus 4.6",
				Bad:        withModel("claude-opus-4-6", `"output_config":{"effort":"xhigh"},`),
				Good:       withModel("claude-opus-4-7", `"output_config":{"effort":"xhigh"},`),
				WantStatus: 400, WantMessage: "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium."},
		},
	}, checkEffortLevel)
}

// errNotFound is the error type of the API's 404s.
const errNotFound = "not_found_error"

// ModelNotFound is the API's 404 for an unknown model, on Messages and
// count_tokens alike: {"type":"not_found_error","message":"model: <id>"}
// (https://github.com/mattermost/mattermost-plugin-agents/issues/257, the
// envelope; https://github.com/continuedev/continue/issues/9476, the
// message). Vertex AI answers an unknown publisher model in Google's own
// words, which no capture shows, so its paths are not checked.
func (d *Dialect) ModelNotFound(r *http.Request, model string) *wire.APIError {
	if _, _, vertex := vertexCall(r); vertex {
		return nil
	}
	return &wire.APIError{Status: http.StatusNotFound, Type: errNotFound, Message: "model: " + model, RuleID: RuleModelExists}
}

func checkEffortLevel(r *Request, env *rules.Env) []rules.Violation {
	if r.caps.Effort == nil || !env.Catalog().RefusesEffort(*r.caps.Effort) {
		return nil
	}
	levels := slices.Sorted(slices.Values(env.Catalog().Efforts))
	return []rules.Violation{requestBreach("output_config.effort",
		fmt.Sprintf("This model does not support effort level '%s'. Supported levels: %s.", *r.caps.Effort, strings.Join(levels, ", ")))}
}

// capabilityParams are the members only the capability rules read.
type capabilityParams struct {
	Effort *string
}

func capabilityParamsOf(w *wireRequest) capabilityParams {
	var p capabilityParams
	if w.OutputConfig != nil {
		p.Effort = w.OutputConfig.Effort
	}
	return p
}

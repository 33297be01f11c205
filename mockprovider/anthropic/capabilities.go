package anthropic

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Rule IDs of the model catalog: the model exists (enforced by the server
// for every dialect, answered by ModelNotFound) and what it accepts.
const (
	RuleModelExists = "anthropic.model-exists"
	RuleEffortLevel = "anthropic.model-supports-effort-level"
)

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

// capabilityRules are the catalog's rules, appended to the dialect's own.
func capabilityRules() []rules.Rule {
	r := func(id string, level rules.Level, summary, source string, check rules.CheckFunc) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.Anthropic, Level: level, Summary: summary, Source: source, Check: check}
	}
	return []rules.Rule{
		r(RuleModelExists, rules.MUST, "The model is one the API serves (a catalog model or its dated snapshot; serve --models adds more), on Messages, count_tokens and the Models API.",
			"https://github.com/mattermost/mattermost-plugin-agents/issues/257 and https://github.com/continuedev/continue/issues/9476 (404 not_found_error \"model: <id>\", verbatim)", nil),
		r(RuleEffortLevel, rules.MUST, "output_config.effort is a level the model accepts (xhigh: Opus 4.7 and later; max: Opus 4.6, Sonnet 4.6 and later).",
			"https://github.com/SkillfulAgents/SuperAgent/pull/1142 (400 for xhigh on claude-sonnet-4-6 and claude-opus-4-6, measured per level); https://docs.anthropic.com/en/docs/build-with-claude/effort; the message [I]", checkEffortLevel),
	}
}

func checkEffortLevel(req any, env *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.caps.Effort == nil || !env.Catalog().RefusesEffort(*r.caps.Effort) {
		return nil
	}
	levels := slices.Sorted(slices.Values(env.Catalog().Efforts))
	return []rules.Violation{bad(-1, "output_config.effort",
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

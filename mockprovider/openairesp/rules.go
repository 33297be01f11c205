package openairesp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// set holds the dialect's rules. Each rule is declared, with its check
// and its break/fix cases, in the rules_<topic>.go file of its topic.
//
// The API validates the request's shape before it reads the
// conversation: the request's members first (rules.PhaseRequest, input
// last of them), then each input item's shape by position and each
// tool's after every item (PhaseShape), then what the members and the
// effective conversation mean (PhaseMeaning: tool_choice and
// previous_response_id at position 0, where the stored items begin, then
// each item of the effective conversation). Breaches at the same place
// are reported in declaration order: by file name (body, functions,
// items, models, pairing, reasoning), then by line (rules.Set.Rules);
// TestTiesFollowDeclarationOrder holds the rules that can meet at one
// place.
var set = rules.NewSet[Request](conv.OpenAIResponses)

func (d *Dialect) Rules() []rules.Rule { return d.rules }

// RuleCases are, for every rule, a request that breaks it and the same
// request corrected. Stateful cases create a response first and reference
// it as {{setup:0:PATH}}.
func RuleCases() []dialect.RuleCase { return set.Cases() }

// Places of a breach (Violation.Order).
var (
	atMembers = rules.At(rules.PhaseRequest, 0)
	atInput   = rules.At(rules.PhaseRequest, 1)
)

func atItem(i int) int { return rules.At(rules.PhaseShape, i) }

// atTool orders a tool declaration's shape after every input item's.
func atTool(r *Request, i int) int { return rules.At(rules.PhaseShape, len(r.Items)+i) }

// atEffective is the place of the i-th item of the effective
// conversation (the stored items of previous_response_id, then input).
func atEffective(i int) int { return rules.At(rules.PhaseMeaning, i) }

// Families of the suite's specs (suite/spec_<family>.go).
const (
	familyShapes     = "shapes"
	familyOrdering   = "ordering"
	familyPairing    = "pairing"
	familyContinuity = "continuity"
	familyModels     = "models"
)

func violation(order int, path string, param any, code any, msg string) rules.Violation {
	return rules.Violation{Path: path, Order: order, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Param: param, Code: code, Message: msg}
}

func inputBreach(order int, path, msg string) rules.Violation {
	return violation(order, path, "input", nil, msg)
}

func missing(order int, param string) rules.Violation {
	return violation(order, param, param, "missing_required_parameter", fmt.Sprintf("Missing required parameter: '%s'.", param))
}

// itemPath names an effective item for the journal: input[N] for the
// request's own, previous_response_id for stored ones.
func itemPath(it *Item) string {
	if it.Index < 0 {
		return "previous_response_id"
	}
	return fmt.Sprintf("input[%d]", it.Index)
}

// weatherTool is https://platform.openai.com/docs/guides/function-calling's example declaration (strict, every property
// required, additionalProperties false).
const weatherTool = `{"type":"function","name":"get_weather","description":"Get current weather for a location.","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false},"strict":true}`

// assistantMessage is an assistant message as the API output it: with its
// id, which pairs it with the reasoning item before it.
func assistantMessage(id, text string) string {
	return `{"type":"message","id":"` + id + `","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + text + `","annotations":[]}]}`
}

// js compacts a JSON literal and substitutes $TOOL with weatherTool and
// $MSG_A / $MSG_B with assistant messages, so the cases stay readable.
func js(s string) json.RawMessage {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("$TOOL", weatherTool, "$MSG_A", assistantMessage("msg_a", "Hello"), "$MSG_B", assistantMessage("msg_b", "Hello again")).Replace(s)
	return json.RawMessage(s)
}

// The setup requests of the stateful cases: a response with a call, and
// one with a reasoning item before its call.
var (
	setupCall          = js(`{"model":"gpt-4.1","input":"What's the weather in Tokyo?","tools":[$TOOL]}`)
	setupReasoningCall = js(`{"model":"gpt-5","input":"What's the weather in Tokyo?","tools":[$TOOL]}`)
)

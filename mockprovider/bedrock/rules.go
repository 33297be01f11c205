package bedrock

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The dialect's rules are declared one topic per file (rules_*.go): each
// rule with its check and its break/fix cases.

var ruleSet = declareRules()

// declareRules declares the topics in the order the API validates: the
// model's Smithy constraints (patterns, lengths) over the whole request,
// then the conversation turn by turn.
func declareRules() *rules.Set[Request] {
	s := rules.NewSet[Request](conv.Bedrock, "rules_request.go", "rules_tools.go", "rules_turns.go", "rules_thinking.go")
	for _, topic := range []func(*rules.Set[Request]){requestRules, toolRules, turnRules, thinkingRules} {
		topic(s)
	}
	return s
}

// The rules that check one message at a time, reading it and the one
// before it only. A message's violations of each are made once, when it
// is decoded, and kept with it by the session (keptMessage), so a message
// a long conversation resends is not checked again; the message before it
// is resent with it (package resume reuses a prefix of the messages).
const (
	slotToolUseID = iota
	slotResultsAlone
	slotResultCount
	slotUsesAnswered
	slotErrorResult
	slotJSONResult
	messageSlots
)

// messageChecks are their checks, by slot: the violations of message i
// of ms.
var messageChecks = [messageSlots]func(ms []Message, i int) []rules.Violation{
	slotToolUseID:    toolUseIDBreaches,
	slotResultsAlone: resultsAloneBreaches,
	slotResultCount:  resultCountBreaches,
	slotUsesAnswered: usesAnsweredBreaches,
	slotErrorResult:  errorResultBreaches,
	slotJSONResult:   jsonResultBreaches,
}

// messageViolations are message i's violations of every rule in
// messageChecks.
func messageViolations(ms []Message, i int) (out [messageSlots][]rules.Violation) {
	for slot, check := range messageChecks {
		out[slot] = check(ms, i)
	}
	return out
}

// eachMessage is the check of the rule in slot: its violations of each
// message in order, as kept or made now.
func eachMessage(slot int) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, _ *rules.Env) []rules.Violation {
		var out []rules.Violation
		if len(r.kept) == len(r.Messages) {
			for _, k := range r.kept {
				out = append(out, k.violations[slot]...)
			}
			return out
		}
		for i := range r.Messages {
			out = append(out, messageChecks[slot](r.Messages, i)...)
		}
		return out
	}
}

// Rules returns the catalog entries.
func (d *Dialect) Rules() []rules.Rule { return ruleSet.Rules() }

// RuleCases pairs, for every rule with a check, a breaking request with
// the same request corrected.
func RuleCases() []rules.Case { return ruleSet.Cases() }

// constraintBreach is a breach of the Smithy model's constraints, which
// the front end checks before reading the conversation, in its words:
// "1 validation error detected: Value 'x' at 'path' failed to satisfy
// constraint: …", list positions counted from 1
// (https://github.com/BerriAI/litellm/issues/19384).
func constraintBreach(order int, path, msg string) rules.Violation {
	return rules.Violation{Order: rules.At(rules.PhaseRequest, order), Path: path, Message: "1 validation error detected: " + msg,
		Status: http.StatusBadRequest, ErrType: errValidation}
}

// turnBreach is a breach of the conversation at messages[i].
func turnBreach(i int, path, msg string) rules.Violation {
	return rules.Violation{Order: rules.At(rules.PhaseMeaning, i), Path: path, Message: msg,
		Status: http.StatusBadRequest, ErrType: errValidation}
}

// refConverse is the Converse API reference.
const refConverse = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html"

// The cases post these bodies to casePath.
const casePath = "/model/anthropic.claude-3-5-sonnet-20240620-v1:0/converse"

const (
	weatherTool = `{"toolSpec":{"name":"get_weather","description":"Get current weather for a city.","inputSchema":{"json":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}}`
	askWeather  = `{"role":"user","content":[{"text":"What is the weather in Paris?"}]}`
	callParis   = `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_01","name":"get_weather","input":{"city":"Paris"}}}]}`
	resultParis = `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_01","content":[{"text":"18C, cloudy"}]}}]}`
)

// body builds a request from its tools (JSON array members) and messages.
func body(tools string, messages ...string) json.RawMessage {
	s := `{"messages":[` + strings.Join(messages, ",") + `]`
	if tools != "" {
		s += `,"toolConfig":{"tools":[` + tools + `]}`
	}
	return json.RawMessage(s + "}")
}

func user(blocks ...string) string {
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

func assistant(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

func toolUse(id, name string) string {
	return `{"toolUse":{"toolUseId":"` + id + `","name":"` + name + `","input":{"city":"Paris"}}}`
}

func toolResult(id string) string {
	return `{"toolResult":{"toolUseId":"` + id + `","content":[{"text":"18C, cloudy"}]}}`
}

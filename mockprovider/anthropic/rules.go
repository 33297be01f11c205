package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The dialect's rules are declared one topic per file (rules_*.go): each
// rule with its check and its break/fix cases.

// ruleSet holds every rule of the dialect.
var ruleSet = declareRules()

// declareRules declares the topics in the catalog's order, which breaks
// ties: Run reports breaches at one position in it. Among the request's
// members, the body's own come before thinking, tool_choice, the
// structured-output schemas and cache_control; inside a message, its text blocks before its thinking,
// its role, its blocks' content, then its pairing with the turn before.
func declareRules() *rules.Set[Request] {
	s := rules.NewSet[Request](conv.Anthropic, "rules_request.go", "rules_thinking.go", "rules_toolchoice.go",
		"rules_output.go", "rules_cache.go", "rules_roles.go", "rules_content.go", "rules_pairing.go", "rules_models.go")
	for _, topic := range []func(*rules.Set[Request]){
		requestRules, thinkingRules, toolChoiceRules, outputRules, cacheRules, roleRules, contentRules, pairingRules, modelRules,
	} {
		topic(s)
	}
	return s
}

// Rules returns the catalog entries.
func (d *Dialect) Rules() []rules.Rule { return catalog() }

// catalog is the dialect's rules in declaration order.
func catalog() []rules.Rule { return ruleSet.Rules() }

// RuleCases pairs, for every rule with a check, a request breaking it with
// the same request corrected. Cases for rules with an Option expect the
// server to run with that option (--strict-roles).
func RuleCases() []rules.Case { return ruleSet.Cases() }

// requestBreach is a 400 invalid_request_error for a breach of the request
// as a whole (a top-level member): the API meets it before any message.
func requestBreach(path, msg string) rules.Violation {
	return rules.Violation{Path: path, Message: msg, Status: http.StatusBadRequest, ErrType: errInvalidRequest,
		Order: rules.At(rules.PhaseRequest, 0)}
}

// messageBreach is a 400 invalid_request_error for a breach inside message
// i. The messages are read in order, each one whole (its blocks, its role,
// its pairing with the turn before): an earlier message's breach is
// reported first, whatever its kind.
func messageBreach(i int, path, msg string) rules.Violation {
	return rules.Violation{Path: path, Message: msg, Status: http.StatusBadRequest, ErrType: errInvalidRequest,
		Order: rules.At(rules.PhaseShape, i)}
}

// blocks visits every content block as sent.
func (r *Request) blocks(visit func(b *Block)) {
	for i := range r.Messages {
		for j := range r.Messages[i].Blocks {
			visit(&r.Messages[i].Blocks[j])
		}
	}
}

func blockPath(b *Block) string { return fmt.Sprintf("messages.%d.content.%d", b.Msg, b.Index) }

func hasType(blocks []Block, typ string) bool {
	for _, b := range blocks {
		if b.Type == typ {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// refToolUse is the tool-use guide the pairing rules come from.
const refToolUse = "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use"

// refMessages is the Messages API reference.
const refMessages = "https://docs.claude.com/en/api/messages"

// The cases' requests are built from these fragments: one tool, and the
// messages of a weather question answered through it.

// caseTools is the tool every case declares.
const caseTools = `"tools":[{"name":"get_weather","description":"Get current weather for a location.","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`

// body assembles a request around its messages array.
func body(messages string) json.RawMessage {
	return json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,` + caseTools + `,"messages":` + messages + `}`)
}

const (
	askWeather = `{"role":"user","content":"What's the weather in Paris?"}`
	callA      = `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Paris"}}`
	callB      = `{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":{"location":"Rome"}}`
	resultA    = `{"type":"tool_result","tool_use_id":"toolu_01A","content":"18C, cloudy"}`
	resultB    = `{"type":"tool_result","tool_use_id":"toolu_01B","content":"24C, sunny"}`
	thanks     = `{"type":"text","text":"Thanks."}`
)

func msgs(parts ...string) string { return "[" + strings.Join(parts, ",") + "]" }

func assistant(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

func user(blocks ...string) string {
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
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

// blocksWhere visits, in order, the content blocks of the messages whose
// facts may: the other messages hold no block the visit looks for.
func (r *Request) blocksWhere(may func(*facts) bool, visit func(b *Block)) {
	for _, m := range r.Messages {
		if !may(&m.facts) {
			continue
		}
		for j := range m.Blocks {
			visit(&m.Blocks[j])
		}
	}
}

// facts are what the rules read of a run of blocks (a message's, or a
// turn's that merges messages): the ids the pairing rules compare
// between neighbouring turns, and whether the per-block checks can find
// anything in it. They are made once with a message and kept with it
// (Message.facts), so a long conversation's rules read a few words per
// message, not its blocks.
type facts struct {
	calls, results []string // tool_use and tool_result ids, in order
	lead           int      // how many blocks open the run as tool_result blocks
	textAfterCall  bool     // a block other than a tool block follows a tool_use
	repeatedCall   bool     // two tool_use blocks share an id
	nonObjectInput bool     // a tool_use input that is not an object
	resultItems    bool     // a tool_result given as a list of items
	isError        bool     // a tool_result with is_error set
	thinking       bool     // a thinking block
	added          bool     // a tool_addition defining a tool inline
	redacted       bool     // a redacted_thinking block
	text           textFact // empty or blank text blocks
}

// textFact is what checkNonEmptyTextBlock finds in one message.
type textFact int

const (
	textFine textFact = iota
	textEmpty
	textBlank // whitespace only, and nothing else of substance
)

func factsOf(blocks []Block) facts {
	var f facts
	blank, substance := false, false
	lastCall := -1
	for k := range blocks {
		b := &blocks[k]
		switch b.Type {
		case "tool_use":
			f.repeatedCall = f.repeatedCall || slices.Contains(f.calls, b.ID)
			f.calls = append(f.calls, b.ID)
			f.nonObjectInput = f.nonObjectInput || !isObject(b.Input)
			lastCall = k
		case "tool_result":
			f.results = append(f.results, b.ToolUseID)
			if f.lead == k {
				f.lead++
			}
			f.resultItems = f.resultItems || len(b.ResultItems) > 0
			f.isError = f.isError || b.IsError != nil
		case "thinking":
			f.thinking = true
		case "redacted_thinking":
			f.redacted = true
		}
		f.added = f.added || b.Added != nil
		if lastCall >= 0 && k > lastCall && !isToolBlock(b.Type) {
			f.textAfterCall = true
		}
		switch {
		case b.Type != "text":
			substance = true
		case b.Text == "":
			if f.text == textFine {
				f.text = textEmpty
			}
		case strings.TrimSpace(b.Text) == "":
			blank = true
		default:
			substance = true
		}
	}
	if f.text == textFine && blank && !substance {
		f.text = textBlank
	}
	return f
}

// allIn reports whether every id is in list (both are short: the calls
// or results of one turn).
func allIn(ids, list []string) bool {
	for _, id := range ids {
		if !slices.Contains(list, id) {
			return false
		}
	}
	return true
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

package openaichat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// set holds the dialect's rules. Each rule is declared, with its check
// and its break/fix cases, in the rules_<topic>.go file of its topic.
//
// Violations are ordered the way the API appears to validate: first the
// request's members (rules.PhaseRequest), then each message's shape and
// then each tool's, by position (PhaseShape), then the meaning of the
// conversation (PhaseMeaning: tool schemas compiled, calls paired with
// answers). The split is inferred from which error each pasted request
// produced; it only matters for requests with several breaches. Breaches
// at the same place are reported in declaration order: by file name
// (body, fields, functions, images, models, pairing), then by line
// (rules.Set.Rules); TestTiesFollowDeclarationOrder holds the rules that
// can meet at one place.
var set = rules.NewSet[Request](conv.OpenAIChat)

// RuleCases are the break/fix pairs of every rule, with the real API's
// status and message for the broken request.
func RuleCases() []dialect.RuleCase { return set.Cases() }

// catalog is the dialect's rule set, in declaration order.
func catalog() []rules.Rule { return set.Rules() }

// Places of a breach (Violation.Order).
var requestLevel = rules.At(rules.PhaseRequest, 0)

func atMessage(i int) int { return rules.At(rules.PhaseShape, i) }

// atTool orders a tool declaration's shape after every message's.
func atTool(r *Request, i int) int { return rules.At(rules.PhaseShape, len(r.Messages)+i) }

func atMeaning(i int) int { return rules.At(rules.PhaseMeaning, i) }

// Families of the suite's specs (suite/spec_<family>.go).
const (
	familyShapes  = "shapes"
	familyPairing = "pairing"
	familyResults = "results"
	familyModels  = "models"
)

const missingCode = "missing_required_parameter"

// judgedByDecoder is the check of the rules a body breaks before it can
// be read at all (decode.go answers them): a request that reaches the
// checks has kept them.
func judgedByDecoder(*Request, *rules.Env) []rules.Violation { return nil }

func badRequest(order int, path, param, code, msg string) rules.Violation {
	v := rules.Violation{Path: path, Order: order, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Message: msg}
	if param != "" {
		v.Param = param
	}
	if code != "" {
		v.Code = code
	}
	return v
}

func missing(order int, path string) rules.Violation {
	return badRequest(order, path, path, missingCode, fmt.Sprintf("Missing required parameter: '%s'.", path))
}

// emptyArray is the API's min-length answer, e.g. "Invalid
// 'messages[2].tool_calls': empty array. Expected an array with minimum
// length 1, but got an empty array instead." (home-assistant/core #118577).
func emptyArray(order int, path string) rules.Violation {
	return badRequest(order, path, path, "empty_array",
		fmt.Sprintf("Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", path))
}

// obj and arr keep the cases readable as JSON-like Go literals.
type obj = map[string]any
type arr = []any

const caseModel = "gpt-4o-mini"

var weatherTool = obj{"type": "function", "function": obj{
	"name": "get_weather", "description": "Get the current weather for a city.",
	"parameters": obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}},
}}

var hi = arr{userMsg("hi")}

func userMsg(text string) obj { return obj{"role": "user", "content": text} }

func callMsg(calls ...obj) obj {
	list := arr{}
	for _, c := range calls {
		list = append(list, c)
	}
	return obj{"role": "assistant", "content": nil, "tool_calls": list}
}

func call(id, city string) obj {
	return obj{"id": id, "type": "function", "function": obj{"name": "get_weather", "arguments": `{"city":"` + city + `"}`}}
}

func toolMsg(id, content string) obj {
	return obj{"role": "tool", "tool_call_id": id, "content": content}
}

// body is a request of messages to caseModel with weatherTool; extra
// members replace the defaults, a nil one removes its member.
func body(messages arr, extra ...obj) json.RawMessage {
	b := obj{"model": caseModel, "messages": messages, "tools": arr{weatherTool}}
	for _, e := range extra {
		for k, v := range e {
			if v == nil {
				delete(b, k)
				continue
			}
			b[k] = v
		}
	}
	out, err := json.Marshal(b)
	if err != nil {
		panic(err) // the literals are static
	}
	return out
}

// loop is the valid one-call exchange most cases start from.
func loop() arr {
	return arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", `{"temperature":22}`)}
}

// loopWithCall is loop() with its tool call changed by edit.
func loopWithCall(edit func(c obj)) arr {
	c := call("call_1", "Paris")
	edit(c)
	return arr{userMsg("Weather in Paris?"), callMsg(c), toolMsg("call_1", `{"temperature":22}`)}
}

func toolWith(params obj, strict bool) obj {
	return obj{"type": "function", "function": obj{"name": "get_weather", "parameters": params, "strict": strict}}
}

// checkFrom is the first message the checks that read messages one by one
// (required fields, tool_calls shapes, arguments, images, pairing) need
// to read: the ones before it are settled (messageTurn.settled), so a
// resumed request's checks read its new messages, and the batch of calls
// still open before them, not the whole conversation again. 0 when r has
// no turns (a request made by hand).
func (r *Request) checkFrom() int {
	if len(r.turns) != len(r.Messages) {
		return 0
	}
	// Settled messages are a leading run: a message settles only after
	// the one before it.
	n := sort.Search(len(r.turns), func(i int) bool { return !r.turns[i].settled })
	if n > 0 && r.turns[n-1].openBatch > 0 {
		return r.turns[n-1].openBatch - 1
	}
	return n
}

// settle notes whether msgs' last message is settled, given the turn of
// the one before it (nil for the first). A message settles when the one
// before it did, none of the checks that read messages one by one can
// find anything in it alone (quiet), a tool message answers an id of the
// open batch, and any other message closes a batch whose calls are all
// answered. Settled is an under-statement: whatever it leaves out is
// read by the checks. A batch too large to search in place never
// settles, so settling a message costs at most a small search.
func settle(t *messageTurn, msgs []*Message, prev *messageTurn) {
	const searchInPlace = 16
	i := len(msgs) - 1
	m := msgs[i]
	open := 0
	if prev != nil {
		if !prev.settled {
			return
		}
		open = prev.openBatch
	}
	if !quiet(m) {
		return
	}
	if m.Role == "tool" {
		if open == 0 || !slices.ContainsFunc(msgs[open-1].ToolCalls, func(tc ToolCall) bool { return tc.ID == m.ToolCallID }) {
			return
		}
		t.settled, t.openBatch = true, open
		return
	}
	if open > 0 && len(unansweredCalls(msgs[open-1].ToolCalls, msgs[open:i])) > 0 {
		return
	}
	if len(m.ToolCalls) > 0 {
		t.openBatch = i + 1
	}
	t.settled = true
}

// quiet reports whether m is one of the plainest messages: a known role,
// text content where content is required, complete function calls with
// string arguments on an assistant message only, at most 16 of them, an
// id on a tool message. None of the checks that read messages one by one
// can find anything in such a message alone.
func quiet(m *Message) bool {
	switch m.Role {
	case "system", "developer", "user", "assistant", "tool":
	default:
		return false
	}
	if !m.HasRole || contentRequired[m.Role] && !m.HasContent || m.Role == "tool" && !m.HasToolCallID {
		return false
	}
	if m.ToolCallsSent && len(m.ToolCalls) == 0 || m.Role != "assistant" && len(m.ToolCalls) > 0 || len(m.ToolCalls) > 16 {
		return false
	}
	for _, p := range m.Parts {
		if !p.HasType || p.Type != "text" {
			return false
		}
	}
	for _, tc := range m.ToolCalls {
		if !tc.HasID || !tc.HasType || tc.Type != "function" || !tc.HasFunction || !tc.HasName || !tc.HasArguments {
			return false
		}
		if _, ok := tc.Arguments.(string); !ok {
			return false
		}
	}
	return true
}

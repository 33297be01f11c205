package openairesp

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Calls and outputs pair up across the effective conversation (stored
// items of previous_response_id included).

var RuleToolOutput = set.Add(rules.Rule{
	ID: "openai-responses.tool-output-required", Level: rules.MUST, Family: familyPairing,
	Summary: "Every function_call of the effective conversation (stored items included) is answered by a function_call_output with its call_id.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/function-calling", Quote: "every function_call gets a function_call_output"},
		{URL: "https://github.com/router-for-me/CLIProxyAPI/issues/2368", Quote: "verbatim 400: No tool output found for function call call_…., param input, code null"},
		{URL: "https://github.com/openai/codex/issues/620"},
	},
	Cases: []rules.Case{
		{
			Name: "function_call without its output",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool output found for function call call_a.",
		},
		{
			Name:       "previous response's call left unanswered",
			Setup:      []json.RawMessage{setupCall},
			Bad:        js(`{"model":"gpt-4.1","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":"Never mind."}`),
			Good:       js(`{"model":"gpt-4.1","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":[{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool output found for function call call_",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	items := r.Effective()
	if everyCallAnsweredNearby(items) {
		return nil
	}
	answered := map[string]bool{}
	for _, it := range items {
		if it.Kind() == "function_call_output" && it.CallID != nil {
			answered[*it.CallID] = true
		}
	}
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() == "function_call" && it.CallID != nil && !answered[*it.CallID] {
			out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("No tool output found for function call %s.", *it.CallID)))
		}
	}
	return out
})

var RuleToolCall = set.Add(rules.Rule{
	ID: "openai-responses.output-needs-call", Level: rules.MUST, Family: familyPairing,
	Summary: "Every function_call_output answers exactly one earlier function_call (or client-executed tool_search_call) with the same call_id (no output before its call, no duplicates).",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/function-calling", Quote: "call_id matches the function_call"},
		{URL: "https://github.com/continuedev/continue/issues/10092", Quote: "verbatim 400: No tool call found for function call output with call_id call_…., param input, code null"},
		{URL: "https://github.com/microsoft/vscode/issues/320060"},
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go", Quote: "ResponseInputItemToolSearchCallParam call_id, execution: a tool_search_call with execution client is answered by its call_id", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name: "input_tokens: output without any call", Path: InputTokensPath,
			Bad:        js(`{"input":[{"role":"user","content":"Weather?"},{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			Good:       js(`{"input":[{"role":"user","content":"Weather?"},{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Name: "output without any call",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Name: "output before its call",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Name: "duplicate output",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
	},
}, checkToolCalls)

// checkToolCalls scans the input in order, binding each output to one
// earlier unanswered call: an output before its call, a second output for
// the same call, or an output for no call at all finds none.
func checkToolCalls(r *Request, _ *rules.Env) []rules.Violation {
	if len(r.Prior) == 0 && r.factsKnown() && r.taken&factOutputUnbound == 0 {
		return nil // everyOutputAfterItsCall, as the items were taken
	}
	items := r.Effective()
	if everyOutputAfterItsCall(items) {
		return nil
	}
	open := map[string]int{}
	var out []rules.Violation
	for i, it := range items {
		switch it.Kind() {
		case "function_call":
			if it.CallID != nil {
				open[*it.CallID]++
			}
		case "tool_search_call":
			// A client-executed tool search is answered like a function
			// call: a function_call_output with its call_id.
			if it.Execution == "client" && it.CallID != nil {
				open[*it.CallID]++
			}
		case "function_call_output":
			if it.CallID == nil {
				continue
			}
			if open[*it.CallID] > 0 {
				open[*it.CallID]--
				continue
			}
			out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("No tool call found for function call output with call_id %s.", *it.CallID)))
		}
	}
	return out
}

// pairLookAround is how far from a call or an output the pairing rules
// look for its partner before they map the whole conversation's call ids:
// a loop sends each result right after its call.
const pairLookAround = 8

// everyCallAnsweredNearby reports whether each function_call has an
// output with its call_id among the items just after it: then none goes
// unanswered, without mapping every output.
func everyCallAnsweredNearby(items []*Item) bool {
	for i, it := range items {
		if it.Kind() != "function_call" || it.CallID == nil {
			continue
		}
		answered := false
		for _, next := range items[i+1 : min(len(items), i+1+pairLookAround)] {
			if next.Kind() == "function_call_output" && next.CallID != nil && *next.CallID == *it.CallID {
				answered = true
				break
			}
		}
		if !answered {
			return false
		}
	}
	return true
}

// everyOutputAfterItsCall reports whether, for each function_call_output,
// the nearest earlier item that opens or answers its call_id is a call
// within a few items: that call is then still open for it (the scan of
// checkToolCalls binds it), without counting every call.
func everyOutputAfterItsCall(items []*Item) bool {
	for i := range items {
		if !outputBound(items, i) {
			return false
		}
	}
	return true
}

// outputBound reports whether items[i], when a function_call_output, has
// its call among the few items before it, still open.
func outputBound(items []*Item, i int) bool {
	it := items[i]
	if it.Kind() != "function_call_output" || it.CallID == nil {
		return true
	}
	for j := i - 1; j >= 0 && j >= i-pairLookAround; j-- {
		prev := items[j]
		if prev.CallID == nil || *prev.CallID != *it.CallID {
			continue
		}
		if opensCall(prev) {
			return true
		}
		if prev.Kind() == "function_call_output" {
			return false
		}
	}
	return false
}

// opensCall reports whether an item is a call a function_call_output
// answers: a function_call, or a tool search the client runs.
func opensCall(it *Item) bool {
	return it.Kind() == "function_call" || it.Kind() == "tool_search_call" && it.Execution == "client"
}

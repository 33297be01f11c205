package openairesp

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Input items: their shapes and roles, their ids, and the stored items
// they stand for (by item_reference or previous_response_id).

var RuleArgumentsString = set.Add(rules.Rule{
	ID: "openai-responses.arguments-string", Level: rules.MUST, Family: familyShapes,
	Summary: "A replayed function_call's arguments is a JSON-encoded string, not an object.",
	Refs: []rules.Ref{
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go", Quote: "function_call arguments: a JSON-encoded string"},
		{URL: "https://github.com/Wei-Shaw/sub2api/issues/3818", Quote: "the API type-checks input[N].arguments in this wording, verbatim for a tool_search_call"},
		{Quote: "the function_call case", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name: "function_call arguments as an object",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":{"location":"Tokyo"}},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input[1].arguments': expected a string, but got an object instead.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, it := range r.Items {
		if it.Kind() != "function_call" {
			continue
		}
		if k := it.Arguments.Kind(); len(it.Arguments) > 0 && k != 'n' && k != '"' {
			param := fmt.Sprintf("input[%d].arguments", it.Index)
			out = append(out, violation(atItem(it.Index), param, param, "invalid_type",
				fmt.Sprintf("Invalid type for '%s': expected a string, but got %s instead.", param, GotOf(byte(k), string(it.Arguments)))))
		}
	}
	return out
})

var roles = map[string]bool{"assistant": true, "system": true, "developer": true, "user": true}

var RuleMessageRole = set.Add(rules.Rule{
	ID: "openai-responses.message-role", Level: rules.MUST, Family: familyOrdering,
	Summary: "A message's role is assistant, system, developer or user: the Responses API has no 'tool' role (results are function_call_output items).",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create", Quote: "input message roles"},
		{URL: "https://github.com/anomalyco/opencode/issues/10803", Quote: "verbatim: Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'."},
		{Quote: "param and code", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name: "Chat-style tool message in input",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{}"},
				{"role":"tool","tool_call_id":"call_a","content":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	if r.InputString {
		return nil
	}
	for _, it := range r.Items {
		// An item with neither type nor role is read as a message whose
		// role is '' (the API answers "Invalid value: ''.").
		untyped := !it.Typed && it.Role == ""
		if it.Kind() != "message" || roles[it.Role] || (it.Role == "" && !untyped) {
			continue
		}
		param := fmt.Sprintf("input[%d]", it.Index)
		out = append(out, violation(atItem(it.Index), param+".role", param, "invalid_value",
			fmt.Sprintf("Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role)))
	}
	return out
})

var RuleAssistantContent = set.Add(rules.Rule{
	ID: "openai-responses.assistant-content-type", Level: rules.MUST, Family: familyOrdering,
	Summary: "An assistant message's content parts are output_text or refusal, not input_text.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create", Quote: "output message content"},
		{URL: "https://github.com/NousResearch/hermes-agent/issues/15687", Quote: "verbatim 400, param input[109].content[0], code invalid_value"},
		{URL: "https://dev.to/flarecanary/openai-responses-api-started-rejecting-inputtext-with-no-warning-heres-the-fix-and-why-it-keeps-2l49"},
	},
	Cases: []rules.Case{
		{
			Name: "assistant history with input_text parts",
			Bad: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]},
				{"role":"assistant","content":[{"type":"input_text","text":"Hello","annotations":[]}]},{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]},
				{"role":"assistant","content":[{"type":"output_text","text":"Hello"}]},{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, it := range r.Items {
		if it.Kind() != "message" || it.Role != "assistant" {
			continue
		}
		if it.Content == nil {
			continue
		}
		for j := range it.Content.OfParts {
			typ := partType(&it.Content.OfParts[j])
			if typ == "output_text" || typ == "refusal" {
				continue
			}
			param := fmt.Sprintf("input[%d].content[%d]", it.Index, j)
			out = append(out, violation(atItem(it.Index), param+".type", param, "invalid_value",
				fmt.Sprintf("Invalid value: '%s'. Supported values are: 'output_text' and 'refusal'.", typ)))
			break
		}
	}
	return out
})

var RuleItemsPersisted = set.Add(rules.Rule{
	ID: "openai-responses.items-persisted", Level: rules.MUST, Family: familyContinuity,
	Summary: "An item the API must look up by its id has to be stored: an item_reference to an item of a store:false response, or from a store:false request, and a reasoning item sent back without its encrypted_content in a store:false request, are not found (404).",
	Refs: []rules.Ref{
		{URL: "https://github.com/can1357/oh-my-pi/issues/41", Quote: "a store:false request replaying a reasoning item by id: 404 Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."},
		{URL: "https://github.com/anomalyco/opencode/issues/7724"},
		{Quote: "param and code", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name:  "reference to a call of a store:false response",
			Setup: []json.RawMessage{js(`{"model":"gpt-4.1","store":false,"input":"What's the weather in Tokyo?","tools":[$TOOL]}`)},
			Bad: js(`{"model":"gpt-4.1","store":false,"tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"item_reference","id":"{{setup:0:output.0.id}}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","store":false,"tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"function_call","id":"{{setup:0:output.0.id}}","call_id":"{{setup:0:output.0.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			WantStatus: 404, WantMessage: "Item with id 'fc_",
		},
		{
			Name:  "store:false request replaying a reasoning item by id alone",
			Setup: []json.RawMessage{setupEncryptedReasoningCall},
			Bad: js(`{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[],"encrypted_content":"{{setup:0:output.0.encrypted_content}}"},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 404, WantMessage: "Item with id 'rs_a' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	storeOff := r.Store != nil && !*r.Store
	for _, it := range r.Items {
		if it.NotPersisted || storeOff && reasoningByID(it) {
			v := inputBreach(atItem(it.Index), itemPath(it), fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID))
			v.Status = http.StatusNotFound
			out = append(out, v)
		}
	}
	return out
})

// reasoningByID reports whether a reasoning item of the request's own
// input can only be read by looking its id up: it carries no
// encrypted_content, so the API fetches the stored item, which a
// store:false request has none of.
func reasoningByID(it *Item) bool {
	return it.Kind() == "reasoning" && it.ID != "" && !it.FromReference && it.Index >= 0 &&
		(it.EncryptedContent == nil || *it.EncryptedContent == "")
}

var RuleItemReference = set.Add(rules.Rule{
	ID: "openai-responses.item-reference-known", Level: rules.MUST, Family: familyContinuity,
	Summary: "An item_reference names an item the API stored (an output or input item of a stored response of the same key) or an earlier item of the input; it then stands for that item.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create", Quote: "input item_reference: an internal identifier for an item to reference"},
		{URL: "https://github.com/vercel/ai/issues/10290", Quote: "verbatim 404: Item with id 'rs_…' not found., param input, code null"},
	},
	Cases: []rules.Case{
		{
			Name:  "reference to an id the API never issued",
			Setup: []json.RawMessage{setupCall},
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"item_reference","id":"fc_doesnotexist"},
				{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"item_reference","id":"{{setup:0:output.0.id}}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			WantStatus: 404, WantMessage: "Item with id 'fc_doesnotexist' not found.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, it := range r.Items {
		if it.Unresolved && !it.NotPersisted {
			v := inputBreach(atItem(it.Index), itemPath(it), fmt.Sprintf("Item with id '%s' not found.", it.ID))
			v.Status = http.StatusNotFound
			out = append(out, v)
		}
	}
	return out
})

var RulePreviousResponse = set.Add(rules.Rule{
	ID: "openai-responses.previous-response-known", Level: rules.MUST, Family: familyContinuity,
	Summary: "previous_response_id names a stored response of the same key (store:false responses cannot be continued).",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create", Quote: "previous_response_id"},
		{URL: "https://github.com/maximhq/bifrost/issues/2441", Quote: "verbatim: Previous response with id 'resp_…' not found., code previous_response_not_found"},
		{Quote: "param", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name:       "unknown previous_response_id",
			Setup:      []json.RawMessage{js(`{"model":"gpt-4.1","input":"Hello"}`)},
			Bad:        js(`{"model":"gpt-4.1","previous_response_id":"resp_doesnotexist","input":"And again?"}`),
			Good:       js(`{"model":"gpt-4.1","previous_response_id":"{{setup:0:id}}","input":"And again?"}`),
			WantStatus: 400, WantMessage: "Previous response with id 'resp_doesnotexist' not found.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if !r.PreviousMissing {
		return nil
	}
	// The stored items would begin the effective conversation.
	return []rules.Violation{violation(atEffective(0), "previous_response_id", "previous_response_id", "previous_response_not_found",
		fmt.Sprintf("Previous response with id '%s' not found.", *r.PreviousResponseID))}
})

var RuleUniqueItemIDs = set.Add(rules.Rule{
	ID: "openai-responses.unique-item-ids", Level: rules.MUST, Family: familyContinuity,
	Summary: "No two items of the effective conversation (stored items of previous_response_id included) carry the same id.",
	Refs: []rules.Ref{
		{URL: "https://github.com/continuedev/continue/issues/10723", Quote: "Duplicate item found with id rs_…. Remove duplicate items from your input and try again., param input"},
	},
	Cases: []rules.Case{
		{
			Name: "one reasoning item sent twice",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"type":"reasoning","id":"rs_a","summary":[]},$MSG_B,{"role":"user","content":"Bye"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"type":"reasoning","id":"rs_b","summary":[]},$MSG_B,{"role":"user","content":"Bye"}]}`),
			WantStatus: 400, WantMessage: "Duplicate item found with id rs_a. Remove duplicate items from your input and try again.",
		},
		{
			Name:       "output replayed beside previous_response_id",
			Setup:      []json.RawMessage{setupReasoningCall},
			Bad:        js(`{"model":"gpt-5","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":[{"type":"reasoning","id":"{{setup:0:output.0.id}}","summary":[]},{"type":"function_call","id":"{{setup:0:output.1.id}}","call_id":"{{setup:0:output.1.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			Good:       js(`{"model":"gpt-5","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":[{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Duplicate item found with id rs_",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	seen := map[string]bool{}
	var out []rules.Violation
	for i, it := range r.Effective() {
		// A local_shell_call_output's id is its call's (the SDK's
		// ResponseInputItemLocalShellCallOutputParam.ID): the pair shares it.
		if it.ID == "" || it.FromReference || it.Type == "item_reference" || it.Type == "local_shell_call_output" {
			continue
		}
		if seen[it.ID] {
			out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("Duplicate item found with id %s. Remove duplicate items from your input and try again.", it.ID)))
			continue
		}
		seen[it.ID] = true
	}
	return out
})

package openairesp

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Reasoning items travel back with the output items they preceded.

var RuleReasoningBefore = set.Add(rules.Rule{
	ID: "openai-responses.reasoning-before-call", Level: rules.MUST, Family: familyContinuity, Feature: "reasoning",
	Summary: "A function_call replayed with the fc_ id the API issued right after a reasoning item is preceded by that reasoning item.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/reasoning", Quote: "reasoning items are passed back with the calls they produced"},
		{URL: "https://github.com/omnigent-ai/omnigent/issues/5066", Quote: "verbatim: Item 'fc_…' of type 'function_call' was provided without its required 'reasoning' item: 'rs_…'., param input, code null"},
	},
	Cases: []rules.Case{
		{
			Name:  "issued fc_ item replayed without its reasoning item",
			Setup: []json.RawMessage{setupReasoningCall},
			Bad: js(`{"model":"gpt-5","tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"function_call","id":"{{setup:0:output.1.id}}","call_id":"{{setup:0:output.1.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			Good: js(`{"model":"gpt-5","tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"reasoning","id":"{{setup:0:output.0.id}}","summary":[]},
				{"type":"function_call","id":"{{setup:0:output.1.id}}","call_id":"{{setup:0:output.1.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Item 'fc_",
		},
	},
}, func(r *Request, env *rules.Env) []rules.Violation {
	if env == nil || env.IssuedReasoning == nil {
		return nil // offline: no record of what the mock issued
	}
	items := r.Effective()
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() != "function_call" || it.ID == "" {
			continue
		}
		rs := env.IssuedReasoning(it.ID)
		if rs == "" || reasoningPrecedes(items[:i], rs) {
			continue
		}
		out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("Item '%s' of type 'function_call' was provided without its required 'reasoning' item: '%s'.", it.ID, rs)))
	}
	return out
})

// reasoningPrecedes reports whether reasoning item rs sits in the run of
// assistant-side items just before the call (parallel calls share one
// reasoning item, so other calls may stand in between).
func reasoningPrecedes(before []*Item, rs string) bool {
	for j := len(before) - 1; j >= 0; j-- {
		it := before[j]
		if !it.Assistant() {
			return false
		}
		if it.Kind() == "reasoning" && it.ID == rs {
			return true
		}
	}
	return false
}

var RuleReasoningFollowed = set.Add(rules.Rule{
	ID: "openai-responses.reasoning-needs-following-item", Level: rules.MUST, Family: familyContinuity, Feature: "reasoning",
	Summary: "A replayed reasoning item is followed by the output item it preceded: any output item (a function, hosted-tool or custom-tool call, or an assistant message with the id the API gave it), not a user-side item and not an id-less assistant message.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/reasoning", Quote: "append every output item, reasoning included"},
		{URL: "https://github.com/continuedev/continue/issues/8933", Quote: "verbatim 400: Item 'rs_…' of type 'reasoning' was provided without its required following item., param input, code null"},
		{URL: "https://github.com/microsoft/agent-framework/pull/6110", Quote: "reasoning followed by a hosted mcp_call item"},
		{URL: "https://github.com/vercel/ai/issues/8379", Quote: "reasoning followed by a hosted web_search_call item"},
		{URL: "https://github.com/vercel/ai/issues/7099", Quote: "items replayed without their ids break the pairing"},
		{Quote: "the id-less assistant message case", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name: "reasoning item without the item after it",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
		},
		{
			Name: "reasoning item followed by an id-less assistant message",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"role":"assistant","content":"Hello"},{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
		},
		{
			Name: "reasoning item followed by a user message instead of its web_search_call",
			Bad: js(`{"model":"gpt-5","tools":[{"type":"web_search"}],"input":[{"role":"user","content":"News?"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","tools":[{"type":"web_search"}],"input":[{"role":"user","content":"News?"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"type":"web_search_call","id":"ws_a","status":"completed","action":{"type":"search","query":"news"}},{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	items := r.Effective()
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() != "reasoning" || it.ID == "" {
			continue
		}
		if i+1 < len(items) && followsReasoning(items[i+1]) {
			continue
		}
		out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("Item '%s' of type 'reasoning' was provided without its required following item.", it.ID)))
	}
	return out
})

// notOutputItems are the item types a response never outputs (the
// client's answers to calls, and reasoning itself): none of them can be
// the item a reasoning item preceded.
var notOutputItems = map[string]bool{
	"reasoning": true, "function_call_output": true, "computer_call_output": true, "local_shell_call_output": true,
	"shell_call_output": true, "apply_patch_call_output": true, "custom_tool_call_output": true,
	"mcp_approval_response": true, "additional_tools": true,
}

// followsReasoning reports whether next can be the output item a
// reasoning item preceded: any output item (a call of a function, a
// hosted tool or a custom tool, a message) other than a message replayed
// without the id the API gave it, which the API cannot pair with the
// reasoning item.
func followsReasoning(next *Item) bool {
	switch next.Kind() {
	case "message":
		return next.Role == "assistant" && next.ID != ""
	case "item_reference":
		return true // stands for an item the checks cannot see
	}
	return next.Kind() != "" && !notOutputItems[next.Kind()]
}

var RuleEncryptedContent = set.Add(rules.Rule{
	ID: "openai-responses.encrypted-content-verified", Level: rules.MUST, Family: familyContinuity, Feature: "reasoning",
	Summary: "A reasoning item passed back with encrypted_content (include: [\"reasoning.encrypted_content\"]), or a compaction item, carries the value the API issued, unchanged: an edited, invented or foreign value cannot be decrypted.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/reasoning", Quote: "encrypted reasoning items: with store: false, include reasoning.encrypted_content and pass the reasoning items back in the next request's input"},
		{URL: "https://community.openai.com/t/clarifications-on-encrypted-content-usage-pattern-and-impact/1355946", Quote: "In my tests, I was able to confirm that a corrupted content would return an error."},
		{URL: "https://github.com/QuantumNous/new-api/issues/4662", Quote: "verbatim: status_code=400, The encrypted content for item rs_… could not be verified. Reason: Encrypted content could not be decrypted or parsed. (a value passed to another organization)"},
		{URL: "https://github.com/Wei-Shaw/sub2api/issues/2863", Quote: "verbatim envelope: code invalid_encrypted_content, param null, type invalid_request_error, message The encrypted content <first four>...<last four> could not be verified. Reason: Encrypted content could not be decrypted or parsed."},
		{URL: "https://github.com/openai/codex/issues/35334", Quote: "the same answer for a compaction item: The encrypted content for item cmp_… could not be verified. Reason: Encrypted content could not be decrypted or parsed."},
		{URL: "https://github.com/openai/codex/issues/8145", Quote: "the same envelope (type invalid_request_error, param null, code invalid_encrypted_content) with the earlier wording"},
	},
	Cases: []rules.Case{
		{
			Name:  "encrypted_content edited before it is passed back",
			Setup: []json.RawMessage{setupEncryptedReasoningCall},
			Bad: js(`{"model":"gpt-5","store":false,"tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"reasoning","id":"{{setup:0:output.0.id}}","summary":[],"encrypted_content":"gAAAAABtampered{{setup:0:output.0.encrypted_content}}"},
				{"type":"function_call","id":"{{setup:0:output.1.id}}","call_id":"{{setup:0:output.1.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			Good: js(`{"model":"gpt-5","store":false,"tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"reasoning","id":"{{setup:0:output.0.id}}","summary":[],"encrypted_content":"{{setup:0:output.0.encrypted_content}}"},
				{"type":"function_call","id":"{{setup:0:output.1.id}}","call_id":"{{setup:0:output.1.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "The encrypted content for item rs_",
		},
		{
			Name:  "compaction item edited before it is passed back",
			Path:  CompactPath,
			Setup: []json.RawMessage{js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},$MSG_A]}`)},
			Bad: js(`{"model":"gpt-4.1","input":[{"type":"compaction","id":"cmp_a","encrypted_content":"{{setup:0:output.1.encrypted_content}}x"},
				{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"type":"compaction","id":"cmp_a","encrypted_content":"{{setup:0:output.1.encrypted_content}}"},
				{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "The encrypted content for item cmp_a could not be verified.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, it := range r.Items {
		if it.FromReference || it.EncryptedContent == nil || *it.EncryptedContent == "" {
			continue
		}
		switch it.Kind() {
		case "reasoning":
			if _, ok := openReasoning(*it.EncryptedContent); ok {
				continue
			}
		case "compaction":
			// The compactions the mock issued were read as the history
			// they stand for (expandCompactions): one left is not its own.
		default:
			continue
		}
		out = append(out, violation(atItem(it.Index), itemPath(it), nil, "invalid_encrypted_content", unverifiedMessage(it.ID, *it.EncryptedContent)))
	}
	return out
})

// setupEncryptedReasoningCall asks a reasoning model for a call, its
// reasoning item sealed for a store:false continuation.
var setupEncryptedReasoningCall = js(`{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"input":"What's the weather in Tokyo?","tools":[$TOOL]}`)

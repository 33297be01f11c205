package openaichat

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Members the API requires, and the shapes of the members a client
// replays.

// ModelRequiredMessage is the API's answer to a request without a model.
const ModelRequiredMessage = "you must provide a model parameter"

var RuleModelRequired = set.Add(rules.Rule{
	ID: "openai-chat.model-required", Level: rules.MUST, Family: familyShapes,
	Summary: "A request names a model.",
	Refs: []rules.Ref{
		{URL: "https://github.com/chain-ml/council/issues/45", Quote: `curl without model → 400 "you must provide a model parameter", param null`},
	},
	Cases: []rules.Case{
		{Name: "no model",
			Bad: body(loop(), obj{"model": nil}), Good: body(loop()),
			WantStatus: 400, WantMessage: ModelRequiredMessage},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if r.HasModel {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "model", "", "", ModelRequiredMessage)}
})

func msgMissing(p string) string { return "Missing required parameter: '" + p + "'." }

var RuleRequiredFields = set.Add(rules.Rule{
	ID: "openai-chat.required-fields", Level: rules.MUST, Family: familyShapes,
	Summary: "Required fields are present: messages (non-empty), each message's role, content of user/system/developer/tool messages, tool_call_id, tool_calls[].id/type/function.name/arguments, content part types, tools[].type/function.name.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/chat/create", Quote: "required fields"},
		{URL: "https://github.com/SilasMarvin/lsp-ai/issues/108", Quote: "messages"},
		{URL: "https://github.com/neuron-core/neuron-ai/issues/292", Quote: "content[0].type"},
	},
	Cases: []rules.Case{
		{Name: "no messages",
			Bad:        json.RawMessage(`{"model":"gpt-4o-mini"}`),
			Good:       json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`),
			WantStatus: 400, WantMessage: msgMissing("messages")},
		{Name: "empty messages",
			Bad:        json.RawMessage(`{"model":"gpt-4o-mini","messages":[]}`),
			Good:       json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`),
			WantStatus: 400, WantMessage: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."},
		{Name: "tool call without id",
			Bad:  body(loopWithCall(func(c obj) { delete(c, "id") })),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[1].tool_calls[0].id")},
		{Name: "tool call without type",
			Bad:  body(loopWithCall(func(c obj) { delete(c, "type") })),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[1].tool_calls[0].type")},
		{Name: "tool call without function name",
			Bad:  body(loopWithCall(func(c obj) { c["function"] = obj{"arguments": `{"city":"Paris"}`} })),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[1].tool_calls[0].function.name")},
		{Name: "tool message without tool_call_id",
			Bad:  body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), obj{"role": "tool", "content": "22"}}),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[2].tool_call_id")},
		{Name: "content part without type",
			Bad:        body(arr{obj{"role": "user", "content": arr{obj{"text": "hi"}}}}),
			Good:       body(arr{obj{"role": "user", "content": arr{obj{"type": "text", "text": "hi"}}}}),
			WantStatus: 400, WantMessage: msgMissing("messages[0].content[0].type")},
		{Name: "tool declaration without name",
			Bad:        body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"parameters": obj{"type": "object"}}}}}),
			Good:       body(hi),
			WantStatus: 400, WantMessage: msgMissing("tools[0].function.name")},
	},
}, checkRequired)

// contentRequired are the roles whose content may not be omitted; an
// assistant message may leave it out when it carries tool_calls.
var contentRequired = map[string]bool{"system": true, "developer": true, "user": true, "tool": true}

// checkRequired builds each path only for a violation: a well-formed
// request, the common case, costs no formatting.
func checkRequired(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	if !r.HasMessages {
		out = append(out, missing(requestLevel, "messages"))
	} else if len(r.Messages) == 0 {
		// The API's min-length wording, captured for tool_calls [I: not
		// captured for messages itself].
		out = append(out, emptyArray(requestLevel, "messages"))
	}
	for _, m := range r.Messages[r.checkFrom():] {
		at := atMessage(m.Index)
		if !m.HasRole {
			out = append(out, missing(at, messagePath(m.Index)+".role"))
			continue
		}
		if contentRequired[m.Role] && !m.HasContent {
			out = append(out, missing(at, messagePath(m.Index)+".content"))
		}
		for j, part := range m.Parts {
			if !part.HasType {
				out = append(out, missing(at, partPath(m.Index, j)+".type"))
			}
		}
		if m.Role == "tool" && !m.HasToolCallID {
			out = append(out, missing(at, messagePath(m.Index)+".tool_call_id"))
		}
		if m.Role != "assistant" {
			continue
		}
		for j, tc := range m.ToolCalls {
			var field string
			switch {
			case !tc.HasID:
				field = ".id"
			case !tc.HasType:
				field = ".type"
			case tc.Type != "function":
				// custom tool calls carry "custom", not "function"
			case !tc.HasFunction:
				field = ".function"
			case !tc.HasName:
				field = ".function.name"
			case !tc.HasArguments:
				field = ".function.arguments"
			}
			if field != "" {
				out = append(out, missing(at, toolCallPath(m.Index, j)+field))
			}
		}
	}
	for _, t := range r.Tools {
		var field string
		switch {
		case !t.HasType:
			field = ".type"
		case t.Type != "function":
		case !t.HasFunction:
			field = ".function"
		case !t.HasName:
			field = ".function.name"
		}
		if field != "" {
			out = append(out, missing(atTool(r, t.Index), toolPath(t.Index)+field))
		}
	}
	return out
}

// StreamOptionsMessage is the API's answer to stream_options without stream.
const StreamOptionsMessage = "The 'stream_options' parameter is only allowed when 'stream' is enabled."

var RuleStreamOptions = set.Add(rules.Rule{
	ID: "openai-chat.stream-options-need-stream", Level: rules.MUST, Family: familyShapes, Feature: "streaming",
	Summary: "stream_options is sent only with stream: true.",
	Refs: []rules.Ref{
		{URL: "https://github.com/BerriAI/litellm/issues/5803", Quote: "verbatim 400, param stream_options"},
	},
	Cases: []rules.Case{
		{Name: "include_usage without stream",
			Bad:        body(hi, obj{"stream_options": obj{"include_usage": true}}),
			Good:       body(hi),
			WantStatus: 400, WantMessage: StreamOptionsMessage},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if !r.StreamOptionsSent || r.Stream {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "stream_options", "stream_options", "", StreamOptionsMessage)}
})

var RuleToolCallsNonEmpty = set.Add(rules.Rule{
	ID: "openai-chat.tool-calls-non-empty", Level: rules.MUST, Family: familyShapes,
	Summary: "An assistant message's tool_calls, when sent, is not an empty array (omit it instead).",
	Refs: []rules.Ref{
		{URL: "https://github.com/home-assistant/core/pull/118577", Quote: "verbatim 400, code empty_array"},
		{URL: "https://github.com/openai/openai-node/pull/1341"},
	},
	Cases: []rules.Case{
		{Name: "assistant text with tool_calls: []",
			Bad:        body(arr{userMsg("hi"), obj{"role": "assistant", "content": "Hello!", "tool_calls": arr{}}, userMsg("Weather in Paris?")}),
			Good:       body(arr{userMsg("hi"), obj{"role": "assistant", "content": "Hello!"}, userMsg("Weather in Paris?")}),
			WantStatus: 400, WantMessage: "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, m := range r.Messages[r.checkFrom():] {
		if m.ToolCallsSent && len(m.ToolCalls) == 0 {
			out = append(out, emptyArray(atMessage(m.Index), fmt.Sprintf("messages[%d].tool_calls", m.Index)))
		}
	}
	return out
})

var RuleArgumentsString = set.Add(rules.Rule{
	ID: "openai-chat.arguments-string", Level: rules.MUST, Family: familyShapes,
	Summary: "function.arguments of a replayed tool call is a JSON-encoded string, not an object.",
	Refs: []rules.Ref{
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/chatcompletion.go", Quote: "function.arguments: a JSON-encoded string"},
		{URL: "https://github.com/aaif-goose/goose-mobile/pull/20", Quote: "verbatim 400: Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead., code invalid_type"},
	},
	Cases: []rules.Case{
		{Name: "arguments sent as an object",
			Bad: body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Weather in Paris?"),
				callMsg(obj{"id": "call_1", "type": "function", "function": obj{"name": "get_weather", "arguments": obj{"city": "Paris"}}}),
				toolMsg("call_1", "22")}),
			Good:       body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", "22")}),
			WantStatus: 400, WantMessage: "Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead."},
	},
}, checkArgumentsString)

// checkArgumentsString: the validator behind this message writes the path
// as messages[2] (no dot), unlike the tool-pairing messages.
func checkArgumentsString(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, m := range r.Messages[r.checkFrom():] {
		if m.Role != "assistant" {
			continue
		}
		for j, tc := range m.ToolCalls {
			if !tc.HasArguments {
				continue
			}
			if _, ok := tc.Arguments.(string); ok {
				continue
			}
			p := fmt.Sprintf("messages[%d].tool_calls[%d].function.arguments", m.Index, j)
			out = append(out, badRequest(atMessage(m.Index), p, p, "invalid_type",
				fmt.Sprintf("Invalid type for '%s': expected a string, but got %s instead.", p, typeName(tc.Arguments))))
		}
	}
	return out
}

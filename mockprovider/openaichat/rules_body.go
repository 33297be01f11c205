package openaichat

import (
	"encoding/json"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The body as the decoder reads it: JSON, known members, their types.

var RuleValidJSON = set.Add(rules.Rule{
	ID: "openai-chat.valid-json", Level: rules.MUST, Family: familyShapes,
	Summary: "The body is one JSON object in valid UTF-8.",
	Refs: []rules.Ref{
		{URL: "https://github.com/ChatGPTNextWeb/NextChat/issues/4064", Quote: "verbatim 400, param and code null"},
		{Quote: "invalid UTF-8 answered the same", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "body cut short",
			Bad:        json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]`),
			Good:       body(hi),
			WantStatus: 400, WantMessage: openaiwire.InvalidJSONMessage},
		{Name: "invalid UTF-8 in a string",
			Bad:        json.RawMessage("{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}"),
			Good:       body(arr{userMsg("café")}),
			WantStatus: 400, WantMessage: openaiwire.InvalidJSONMessage},
	},
}, judgedByDecoder)

var RuleKnownFields = set.Add(rules.Rule{
	ID: "openai-chat.known-fields", Level: rules.MUST, Family: familyShapes,
	Summary: "Every member outside messages is one the API defines for its place (the SDK's param types); a member of another tool type is unknown there too. Members inside messages are the message-members rule's. In lenient mode unknown members are journaled instead of answered.",
	Refs: []rules.Ref{
		{URL: "https://github.com/coroot/coroot/issues/698", Quote: `verbatim from api.openai.com/v1/chat/completions: "Unrecognized request argument supplied: reasoning_effort", param and code null`},
		{URL: "https://github.com/davidmigloz/langchain_dart/issues/712", Quote: "the same answer, verbatim"},
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/chatcompletion.go", Quote: "member lists"},
		{Quote: "nested members outside messages", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "unknown top-level member",
			Bad: body(hi, obj{"foo": 1}), Good: body(hi),
			WantStatus: 400, WantMessage: "Unrecognized request argument supplied: foo"},
		{Name: "unknown member in a tool declaration",
			Bad:        body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "get_weather", "parameters": obj{"type": "object", "properties": obj{}}, "foo": 1}}}}),
			Good:       body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "get_weather", "parameters": obj{"type": "object", "properties": obj{}}}}}}),
			WantStatus: 400, WantMessage: "Additional properties are not allowed ('foo' was unexpected) - 'tools.0.function'"},
	},
}, checkKnownFields)

// checkKnownFields journals the unknown members lenient decoding kept; a
// strict decode answers the first one itself.
func checkKnownFields(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, u := range r.Unknown {
		out = append(out, rules.Violation{Path: u.Path, Order: requestLevel, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Message: u.Message})
	}
	return out
}

var RuleMessageMembers = set.Add(rules.Rule{
	ID: "openai-chat.message-members", Level: rules.SHOULD, Family: familyShapes,
	Summary: "A message carries only the members the SDK defines for its role (and its parts and calls only those of their types). The API takes other members inside messages (a name on a tool message, a client's own bookkeeping), so they are journaled, not answered; name on a tool message is taken without a note.",
	Refs: []rules.Ref{
		{URL: "https://github.com/openai/openai-node/issues/1161", Quote: `"Additional properties are not allowed ('parsed', 'refusal' were unexpected) - 'messages.2'" from gpt-3.5/gpt-4/gpt-4-turbo, the same request accepted by gpt-4o`},
		{URL: "https://github.com/microsoft/agent-framework/pull/2344", Quote: "extra message members: Chat Completions did not complain, Responses did"},
		{URL: "https://github.com/experientiallabs/experiential/issues/803", Quote: "a live probe: name on a tool message accepted"},
		{URL: "https://github.com/transitive-bullshit/agentic/issues/531", Quote: "the 2023 refusal"},
	},
	Cases: []rules.Case{
		// SHOULDs: answered 200, journaled.
		{Name: "unknown member in a message",
			Bad: body(arr{obj{"role": "user", "content": "hi", "foo": 1}}), Good: body(hi),
			WantMessage: "Additional properties are not allowed ('foo' was unexpected) - 'messages.0'"},
		{Name: "tool_call_id on a user message",
			Bad: body(arr{obj{"role": "user", "content": "hi", "tool_call_id": "call_1"}}), Good: body(hi),
			WantMessage: "Additional properties are not allowed ('tool_call_id' was unexpected) - 'messages.0'"},
	},
}, checkMessageMembers)

// checkMessageMembers journals the members inside messages their role
// does not define.
func checkMessageMembers(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, u := range r.MessageExtras {
		out = append(out, rules.Violation{Path: u.Path, Order: requestLevel, Message: u.Message})
	}
	return out
}

var RuleFieldTypes = set.Add(rules.Rule{
	ID: "openai-chat.field-types", Level: rules.MUST, Family: familyShapes,
	Summary: "Every member has the JSON type the API defines (string or array content, string or object tool_choice, integers for counts), enum members take a listed value, numbers fit (temperature 0–2, top_p 0–1), and no object repeats a key.",
	Refs: append([]rules.Ref{
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/chatcompletion.go", Quote: "member types"},
		{URL: "https://github.com/pydantic/pydantic-ai/issues/2653", Quote: "verbatim: Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an object instead., code invalid_type"},
		{URL: "https://github.com/epuerta9/deep-research-py/issues/19", Quote: "verbatim enum answer: Invalid value: 'object'. Supported values are: …, code invalid_value"},
		{Quote: `"a number" for decimals, the duplicate-key and out-of-range texts are inferred`, Inferred: true},
	}, openaiwire.SamplingRangesRefs...),
	Cases: []rules.Case{
		{Name: "temperature below 0",
			Bad: body(hi, obj{"model": "gpt-4o", "temperature": -1}), Good: body(hi, obj{"model": "gpt-4o", "temperature": 0}),
			WantStatus: 400, WantMessage: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
		{Name: "top_p above 1",
			Bad: body(hi, obj{"model": "gpt-4o", "top_p": 1.5}), Good: body(hi, obj{"model": "gpt-4o", "top_p": 1}),
			WantStatus: 400, WantMessage: "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead."},
		{Name: "content sent as a number",
			Bad: body(arr{obj{"role": "user", "content": 5}}), Good: body(hi),
			WantStatus: 400, WantMessage: "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got an integer instead."},
		{Name: "unknown role",
			Bad: body(arr{obj{"role": "robot", "content": "hi"}}), Good: body(hi),
			WantStatus: 400, WantMessage: "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."},
		{Name: "max_completion_tokens with a fraction",
			Bad: body(hi, obj{"max_completion_tokens": 1.5}), Good: body(hi, obj{"max_completion_tokens": 15}),
			WantStatus: 400, WantMessage: "Invalid type for 'max_completion_tokens': expected an integer, but got a decimal instead."},
	},
}, checkFieldValues)

// checkFieldValues judges the values the decoder takes by type but the
// API refuses: sampling members out of range. Every other breach of the
// field-types rule is answered while decoding.
func checkFieldValues(r *Request, _ *rules.Env) []rules.Violation {
	if r.Temperature != nil || r.TopP != nil {
		return openaiwire.CheckSamplingRanges(r.Temperature, r.TopP, requestLevel)
	}
	return nil
}

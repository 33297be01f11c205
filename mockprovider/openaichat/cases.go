package openaichat

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// obj and arr keep the cases below readable as JSON-like Go literals.
type obj = map[string]any
type arr = []any

const caseModel = "gpt-4o-mini"

var weatherTool = obj{"type": "function", "function": obj{
	"name": "get_weather", "description": "Get the current weather for a city.",
	"parameters": obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}},
}}

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
		panic(err) // the literals above are static
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

// RuleCases are the break/fix pairs for every rule with a check, with the
// real API's status and message for the broken request.
func RuleCases() []dialect.RuleCase {
	msgMissing := func(p string) string { return "Missing required parameter: '" + p + "'." }
	hi := arr{userMsg("hi")}
	return append(capabilityCases(), []dialect.RuleCase{
		{Rule: RuleValidJSON, Name: "body cut short",
			Bad:        json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]`),
			Good:       body(hi),
			WantStatus: 400, WantMessage: openaiwire.InvalidJSONMessage},
		{Rule: RuleValidJSON, Name: "invalid UTF-8 in a string",
			Bad:        json.RawMessage("{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}"),
			Good:       body(arr{userMsg("café")}),
			WantStatus: 400, WantMessage: openaiwire.InvalidJSONMessage},
		{Rule: RuleKnownFields, Name: "unknown top-level member",
			Bad: body(hi, obj{"foo": 1}), Good: body(hi),
			WantStatus: 400, WantMessage: "Unrecognized request argument supplied: foo"},
		{Rule: RuleKnownFields, Name: "unknown member in a tool declaration",
			Bad:        body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "get_weather", "parameters": obj{"type": "object", "properties": obj{}}, "foo": 1}}}}),
			Good:       body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "get_weather", "parameters": obj{"type": "object", "properties": obj{}}}}}}),
			WantStatus: 400, WantMessage: "Additional properties are not allowed ('foo' was unexpected) - 'tools.0.function'"},
		// SHOULDs: answered 200, journaled.
		{Rule: RuleMessageMembers, Name: "unknown member in a message",
			Bad: body(arr{obj{"role": "user", "content": "hi", "foo": 1}}), Good: body(hi),
			WantMessage: "Additional properties are not allowed ('foo' was unexpected) - 'messages.0'"},
		{Rule: RuleMessageMembers, Name: "tool_call_id on a user message",
			Bad: body(arr{obj{"role": "user", "content": "hi", "tool_call_id": "call_1"}}), Good: body(hi),
			WantMessage: "Additional properties are not allowed ('tool_call_id' was unexpected) - 'messages.0'"},
		{Rule: RuleFieldTypes, Name: "temperature below 0",
			Bad: body(hi, obj{"model": "gpt-4o", "temperature": -1}), Good: body(hi, obj{"model": "gpt-4o", "temperature": 0}),
			WantStatus: 400, WantMessage: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
		{Rule: RuleFieldTypes, Name: "top_p above 1",
			Bad: body(hi, obj{"model": "gpt-4o", "top_p": 1.5}), Good: body(hi, obj{"model": "gpt-4o", "top_p": 1}),
			WantStatus: 400, WantMessage: "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead."},
		{Rule: RuleFieldTypes, Name: "content sent as a number",
			Bad: body(arr{obj{"role": "user", "content": 5}}), Good: body(hi),
			WantStatus: 400, WantMessage: "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got an integer instead."},
		{Rule: RuleFieldTypes, Name: "unknown role",
			Bad: body(arr{obj{"role": "robot", "content": "hi"}}), Good: body(hi),
			WantStatus: 400, WantMessage: "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."},
		{Rule: RuleFieldTypes, Name: "max_completion_tokens with a fraction",
			Bad: body(hi, obj{"max_completion_tokens": 1.5}), Good: body(hi, obj{"max_completion_tokens": 15}),
			WantStatus: 400, WantMessage: "Invalid type for 'max_completion_tokens': expected an integer, but got a decimal instead."},
		{Rule: RuleToolControlsNeedTools, Name: "tool_choice without tools",
			Bad: body(hi, obj{"tools": nil, "tool_choice": "none"}), Good: body(hi, obj{"tools": nil}),
			WantStatus: 400, WantMessage: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."},
		{Rule: RuleToolControlsNeedTools, Name: "parallel_tool_calls without tools",
			Bad: body(hi, obj{"tools": nil, "parallel_tool_calls": false}), Good: body(hi, obj{"tools": nil}),
			WantStatus: 400, WantMessage: "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."},
		{Rule: RuleToolControlsNeedTools, Name: "function_call without functions",
			Bad: body(hi, obj{"tools": nil, "function_call": "auto"}), Good: body(hi, obj{"tools": nil}),
			WantStatus: 400, WantMessage: "Invalid value for 'function_call': 'function_call' is only allowed when 'functions' are specified."},
		{Rule: RuleForcedToolDeclared, Name: "forced function not declared",
			Bad:         body(hi, obj{"tool_choice": obj{"type": "function", "function": obj{"name": "get_time"}}}),
			Good:        body(hi, obj{"tool_choice": obj{"type": "function", "function": obj{"name": "get_weather"}}}),
			WantMessage: "Invalid value for 'tool_choice': the function 'get_time' is not among the 'tools' of this request."},
		{Rule: RuleReasoningMaxTokens, Name: "max_tokens to gpt-5",
			Bad: body(hi, obj{"model": "gpt-5-mini", "max_tokens": 100}), Good: body(hi, obj{"model": "gpt-5-mini", "max_completion_tokens": 100}),
			WantStatus: 400, WantMessage: MaxTokensUnsupportedMessage},
		{Rule: RuleModelRequired, Name: "no model",
			Bad: body(loop(), obj{"model": nil}), Good: body(loop()),
			WantStatus: 400, WantMessage: ModelRequiredMessage},
		{Rule: RuleRequiredFields, Name: "no messages",
			Bad:        json.RawMessage(`{"model":"gpt-4o-mini"}`),
			Good:       json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`),
			WantStatus: 400, WantMessage: msgMissing("messages")},
		{Rule: RuleRequiredFields, Name: "empty messages",
			Bad:        json.RawMessage(`{"model":"gpt-4o-mini","messages":[]}`),
			Good:       json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`),
			WantStatus: 400, WantMessage: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."},
		{Rule: RuleRequiredFields, Name: "tool call without id",
			Bad:  body(loopWithCall(func(c obj) { delete(c, "id") })),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[1].tool_calls[0].id")},
		{Rule: RuleRequiredFields, Name: "tool call without type",
			Bad:  body(loopWithCall(func(c obj) { delete(c, "type") })),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[1].tool_calls[0].type")},
		{Rule: RuleRequiredFields, Name: "tool call without function name",
			Bad:  body(loopWithCall(func(c obj) { c["function"] = obj{"arguments": `{"city":"Paris"}`} })),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[1].tool_calls[0].function.name")},
		{Rule: RuleRequiredFields, Name: "tool message without tool_call_id",
			Bad:  body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), obj{"role": "tool", "content": "22"}}),
			Good: body(loop()), WantStatus: 400, WantMessage: msgMissing("messages[2].tool_call_id")},
		{Rule: RuleRequiredFields, Name: "content part without type",
			Bad:        body(arr{obj{"role": "user", "content": arr{obj{"text": "hi"}}}}),
			Good:       body(arr{obj{"role": "user", "content": arr{obj{"type": "text", "text": "hi"}}}}),
			WantStatus: 400, WantMessage: msgMissing("messages[0].content[0].type")},
		{Rule: RuleRequiredFields, Name: "tool declaration without name",
			Bad:        body(arr{userMsg("hi")}, obj{"tools": arr{obj{"type": "function", "function": obj{"parameters": obj{"type": "object"}}}}}),
			Good:       body(arr{userMsg("hi")}),
			WantStatus: 400, WantMessage: msgMissing("tools[0].function.name")},
		{Rule: RuleStreamOptions, Name: "include_usage without stream",
			Bad:        body(arr{userMsg("hi")}, obj{"stream_options": obj{"include_usage": true}}),
			Good:       body(arr{userMsg("hi")}),
			WantStatus: 400, WantMessage: StreamOptionsMessage},
		{Rule: RuleToolCallsNonEmpty, Name: "assistant text with tool_calls: []",
			Bad:        body(arr{userMsg("hi"), obj{"role": "assistant", "content": "Hello!", "tool_calls": arr{}}, userMsg("Weather in Paris?")}),
			Good:       body(arr{userMsg("hi"), obj{"role": "assistant", "content": "Hello!"}, userMsg("Weather in Paris?")}),
			WantStatus: 400, WantMessage: "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead."},
		{Rule: RuleArgumentsString, Name: "arguments sent as an object",
			Bad: body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Weather in Paris?"),
				callMsg(obj{"id": "call_1", "type": "function", "function": obj{"name": "get_weather", "arguments": obj{"city": "Paris"}}}),
				toolMsg("call_1", "22")}),
			Good:       body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", "22")}),
			WantStatus: 400, WantMessage: "Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead."},
		{Rule: RuleImageOnlyInUser, Name: "image in a tool message",
			Bad: body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Show the chart."), callMsg(call("call_1", "Paris")),
				obj{"role": "tool", "tool_call_id": "call_1", "content": arr{
					obj{"type": "text", "text": "chart attached"},
					obj{"type": "image_url", "image_url": obj{"url": "data:image/png;base64,iVBORw0KGgo="}}}}}),
			Good: body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Show the chart."), callMsg(call("call_1", "Paris")),
				obj{"role": "tool", "tool_call_id": "call_1", "content": arr{obj{"type": "text", "text": "chart attached (image omitted)"}}}}),
			WantStatus: 400, WantMessage: "Invalid 'messages[3]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."},
		{Rule: RuleImageFormat, Name: "text bytes labelled image/jpeg",
			Bad: body(arr{obj{"role": "user", "content": arr{obj{"type": "text", "text": "What is in this image?"},
				obj{"type": "image_url", "image_url": obj{"url": "data:image/jpeg;base64,UGxlYXNlIHNldCBhIHVzZXItYWdlbnQ="}}}}}),
			Good: body(arr{obj{"role": "user", "content": arr{obj{"type": "text", "text": "What is in this image?"},
				obj{"type": "image_url", "image_url": obj{"url": "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAA=="}}}}}),
			WantStatus: 400, WantMessage: UnsupportedImageMessage},
		{Rule: RuleToolNamePattern, Name: "function name with a dot",
			Bad:        body(arr{userMsg("hi")}, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "weather.get", "parameters": obj{"type": "object"}}}}}),
			Good:       body(arr{userMsg("hi")}, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "weather_get", "parameters": obj{"type": "object"}}}}}),
			WantStatus: 400, WantMessage: "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."},
		{Rule: RuleToolSchemaValid, Name: "array without items",
			Bad:        body(arr{userMsg("hi")}, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"paths": obj{"type": "array"}}}, false)}}),
			Good:       body(arr{userMsg("hi")}, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"paths": obj{"type": "array", "items": obj{"type": "string"}}}}, false)}}),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=('properties', 'paths'), array schema missing items."},
		{Rule: RuleStrictSchema, Name: "strict without additionalProperties false",
			Bad:        body(arr{userMsg("hi")}, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}}, true)}}),
			Good:       body(arr{userMsg("hi")}, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}, "additionalProperties": false}, true)}}),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false."},
		{Rule: RuleToolCallsAnswered, Name: "call never answered",
			Bad:        body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), userMsg("And?")}),
			Good:       body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", "22"), userMsg("And?")}),
			WantStatus: 400, WantMessage: toolCallsAnsweredPrefix + "call_1"},
		{Rule: RuleToolCallsAnswered, Name: "two parallel calls, one answered",
			Bad:        body(arr{userMsg("Paris and Rome?"), callMsg(call("call_a", "Paris"), call("call_b", "Rome")), toolMsg("call_a", "22")}),
			Good:       body(arr{userMsg("Paris and Rome?"), callMsg(call("call_a", "Paris"), call("call_b", "Rome")), toolMsg("call_a", "22"), toolMsg("call_b", "25")}),
			WantStatus: 400, WantMessage: toolCallsAnsweredPrefix + "call_b"},
		{Rule: RuleToolMessageFollows, Name: "tool message after a trimmed history",
			Bad:        body(arr{obj{"role": "system", "content": "Be brief."}, toolMsg("call_1", "22"), userMsg("And?")}),
			Good:       body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("And?")}),
			WantStatus: 400, WantMessage: ToolMessageOrphanMessage},
		{Rule: RuleToolMessageFollows, Name: "tool message answering an unknown id",
			Bad:        body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", "22"), toolMsg("call_9", "23")}),
			Good:       body(loop()),
			WantStatus: 400, WantMessage: ToolMessageOrphanMessage},
	}...)
}

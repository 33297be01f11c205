package openairesp

import (
	"encoding/json"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// weatherTool is https://platform.openai.com/docs/guides/function-calling's example declaration (strict, every property
// required, additionalProperties false).
const weatherTool = `{"type":"function","name":"get_weather","description":"Get current weather for a location.","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false},"strict":true}`

// assistantMessage is an assistant message as the API output it: with its
// id, which pairs it with the reasoning item before it.
func assistantMessage(id, text string) string {
	return `{"type":"message","id":"` + id + `","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + text + `","annotations":[]}]}`
}

// js compacts a JSON literal and substitutes $TOOL with weatherTool and
// $MSG_A / $MSG_B with assistant messages, so the cases below stay
// readable.
func js(s string) json.RawMessage {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("$TOOL", weatherTool, "$MSG_A", assistantMessage("msg_a", "Hello"), "$MSG_B", assistantMessage("msg_b", "Hello again")).Replace(s)
	return json.RawMessage(s)
}

// RuleCases are, for every rule with a check, a request that breaks it and
// the same request corrected. Stateful cases create a response first and
// reference it as {{setup:0:PATH}}.
func RuleCases() []dialect.RuleCase {
	setupCall := js(`{"model":"gpt-4.1","input":"What's the weather in Tokyo?","tools":[$TOOL]}`)
	setupReasoningCall := js(`{"model":"gpt-5","input":"What's the weather in Tokyo?","tools":[$TOOL]}`)
	return append(capabilityCases(), []dialect.RuleCase{
		{
			Rule: RuleValidJSON, Name: "body cut short",
			Bad:        json.RawMessage(`{"model":"gpt-4.1","input":"Hi"`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi"}`),
			WantStatus: 400, WantMessage: "We could not parse the JSON body of your request.",
		},
		{
			Rule: RuleKnownFields, Name: "metadata on an input item",
			Bad: js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},
				{"role":"assistant","content":"Hello","metadata":{"source":"cache"}},{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},
				{"role":"assistant","content":"Hello"},{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Unknown parameter: 'input[1].metadata'.",
		},
		{
			Rule: RuleKnownFields, Name: "unknown top-level member",
			Bad:        js(`{"model":"gpt-4.1","input":"Hi","foo":1}`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi"}`),
			WantStatus: 400, WantMessage: "Unknown parameter: 'foo'.",
		},
		{
			Rule: RuleFieldTypes, Name: "message content as a number",
			Bad:        js(`{"model":"gpt-4.1","input":[{"role":"user","content":0}]}`),
			Good:       js(`{"model":"gpt-4.1","input":[{"role":"user","content":"0"}]}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input[0].content': expected one of a string or array of input items, but got an integer instead.",
		},
		{
			Rule: RuleFieldTypes, Name: "input_tokens: input as a number", Path: InputTokensPath,
			Bad:        js(`{"model":"gpt-4.1","input":0}`),
			Good:       js(`{"model":"gpt-4.1","input":"0"}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead.",
		},
		{
			Rule: RuleToolCall, Name: "input_tokens: output without any call", Path: InputTokensPath,
			Bad:        js(`{"input":[{"role":"user","content":"Weather?"},{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			Good:       js(`{"input":[{"role":"user","content":"Weather?"},{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Rule: RuleFieldTypes, Name: "input as a number",
			Bad:        js(`{"model":"gpt-4.1","input":0}`),
			Good:       js(`{"model":"gpt-4.1","input":"0"}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead.",
		},
		{
			Rule: RuleRequiredFields, Name: "function_call without name",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Missing required parameter: 'input[1].name'.",
		},
		{
			Rule: RuleRequiredFields, Name: "compact without model", Path: CompactPath,
			Bad:        js(`{"input":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}`),
			Good:       js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}`),
			WantStatus: 400, WantMessage: "Missing required parameter: 'model'.",
		},
		{
			Rule: RuleRequiredFields, Name: "reasoning item without summary",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a"},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Missing required parameter: 'input[1].summary'.",
		},
		{
			Rule: RuleArgumentsString, Name: "function_call arguments as an object",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":{"location":"Tokyo"}},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input[1].arguments': expected a string, but got an object instead.",
		},
		{
			Rule: RuleMessageRole, Name: "Chat-style tool message in input",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{}"},
				{"role":"tool","tool_call_id":"call_a","content":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
		},
		{
			Rule: RuleAssistantContent, Name: "assistant history with input_text parts",
			Bad: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]},
				{"role":"assistant","content":[{"type":"input_text","text":"Hello","annotations":[]}]},{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]},
				{"role":"assistant","content":[{"type":"output_text","text":"Hello"}]},{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.",
		},
		{
			Rule: RuleFunctionName, Name: "function name with a space",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get weather","parameters":{"type":"object","properties":{}}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{}}}]}`),
			WantStatus: 400, WantMessage: "Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
		},
		{
			Rule: RuleFunctionSchema, Name: "parameters not an object schema",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"array","items":{"type":"string"}}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`),
			WantStatus: 400, WantMessage: `Invalid schema for function 'get_weather': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`,
		},
		{
			Rule: RuleStrictSchema, Name: "strict function without additionalProperties:false",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","strict":true,"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.",
		},
		{
			Rule: RuleToolChoice, Name: "tool_choice without tools",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":"required"}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":"required","tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
		},
		{
			Rule: RuleToolChoice, Name: "forced function that is not declared",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":{"type":"function","name":"get_time"},"tools":[$TOOL]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":{"type":"function","name":"get_weather"},"tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Tool choice 'get_time' not found in 'tools' parameter.",
		},
		{
			Rule: RulePreviousResponse, Name: "unknown previous_response_id",
			Setup:      []json.RawMessage{js(`{"model":"gpt-4.1","input":"Hello"}`)},
			Bad:        js(`{"model":"gpt-4.1","previous_response_id":"resp_doesnotexist","input":"And again?"}`),
			Good:       js(`{"model":"gpt-4.1","previous_response_id":"{{setup:0:id}}","input":"And again?"}`),
			WantStatus: 400, WantMessage: "Previous response with id 'resp_doesnotexist' not found.",
		},
		{
			Rule: RuleUniqueItemIDs, Name: "one reasoning item sent twice",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"type":"reasoning","id":"rs_a","summary":[]},$MSG_B,{"role":"user","content":"Bye"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"type":"reasoning","id":"rs_b","summary":[]},$MSG_B,{"role":"user","content":"Bye"}]}`),
			WantStatus: 400, WantMessage: "Duplicate item found with id rs_a. Remove duplicate items from your input and try again.",
		},
		{
			Rule: RuleUniqueItemIDs, Name: "output replayed beside previous_response_id",
			Setup:      []json.RawMessage{setupReasoningCall},
			Bad:        js(`{"model":"gpt-5","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":[{"type":"reasoning","id":"{{setup:0:output.0.id}}","summary":[]},{"type":"function_call","id":"{{setup:0:output.1.id}}","call_id":"{{setup:0:output.1.call_id}}","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			Good:       js(`{"model":"gpt-5","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":[{"type":"function_call_output","call_id":"{{setup:0:output.1.call_id}}","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Duplicate item found with id rs_",
		},
		{
			Rule: RuleItemsPersisted, Name: "reference to a call of a store:false response",
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
			Rule: RuleItemReference, Name: "reference to an id the API never issued",
			Setup: []json.RawMessage{setupCall},
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"item_reference","id":"fc_doesnotexist"},
				{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"What's the weather in Tokyo?"},
				{"type":"item_reference","id":"{{setup:0:output.0.id}}"},
				{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			WantStatus: 404, WantMessage: "Item with id 'fc_doesnotexist' not found.",
		},
		{
			Rule: RuleToolOutput, Name: "function_call without its output",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool output found for function call call_a.",
		},
		{
			Rule: RuleToolOutput, Name: "previous response's call left unanswered",
			Setup:      []json.RawMessage{setupCall},
			Bad:        js(`{"model":"gpt-4.1","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":"Never mind."}`),
			Good:       js(`{"model":"gpt-4.1","tools":[$TOOL],"previous_response_id":"{{setup:0:id}}","input":[{"type":"function_call_output","call_id":"{{setup:0:output.0.call_id}}","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool output found for function call call_",
		},
		{
			Rule: RuleToolCall, Name: "output without any call",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Rule: RuleToolCall, Name: "output before its call",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Rule: RuleToolCall, Name: "duplicate output",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_x","name":"get_weather","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_x","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "No tool call found for function call output with call_id call_x.",
		},
		{
			Rule: RuleReasoningBefore, Name: "issued fc_ item replayed without its reasoning item",
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
		{
			Rule: RuleReasoningFollowed, Name: "reasoning item without the item after it",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
		},
		{
			Rule: RuleReasoningFollowed, Name: "reasoning item followed by an id-less assistant message",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"role":"assistant","content":"Hello"},{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
		},
		{
			Rule: RuleReasoningFollowed, Name: "reasoning item followed by a user message instead of its web_search_call",
			Bad: js(`{"model":"gpt-5","tools":[{"type":"web_search"}],"input":[{"role":"user","content":"News?"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","tools":[{"type":"web_search"}],"input":[{"role":"user","content":"News?"},{"type":"reasoning","id":"rs_a","summary":[]},
				{"type":"web_search_call","id":"ws_a","status":"completed","action":{"type":"search","query":"news"}},{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Item 'rs_a' of type 'reasoning' was provided without its required following item.",
		},
		{
			Rule: RuleItemsPersisted, Name: "store:false request replaying a reasoning item by id alone",
			Bad: js(`{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[],"encrypted_content":"gAAAAABencrypted"},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 404, WantMessage: "Item with id 'rs_a' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
		},
		{
			Rule: RuleFieldTypes, Name: "temperature below 0",
			Bad:        js(`{"model":"gpt-4.1","input":"Hi","temperature":-1}`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi","temperature":0}`),
			WantStatus: 400, WantMessage: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
		},
		{
			Rule: RuleFieldTypes, Name: "top_p above 1",
			Bad:        js(`{"model":"gpt-4.1","input":"Hi","top_p":1.5}`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi","top_p":1}`),
			WantStatus: 400, WantMessage: "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead.",
		},
		{
			Rule: RuleFieldTypes, Name: "input_file of a kind the API does not read",
			Bad: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Summarize"},
				{"type":"input_file","filename":"report.zip","file_data":"data:application/zip;base64,UEsDBA=="}]}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Summarize"},
				{"type":"input_file","filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}]}]}`),
			WantStatus: 400, WantMessage: UnsupportedFileMessage,
		},
		{
			Rule: RuleFieldTypes, Name: "tool_search_call arguments as a JSON string",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Which tool tells the weather?"},
				{"type":"tool_search_call","call_id":"call_ts","execution":"client","status":"completed","arguments":"{\"query\":\"weather\"}"},
				{"type":"function_call_output","call_id":"call_ts","output":"get_weather"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Which tool tells the weather?"},
				{"type":"tool_search_call","call_id":"call_ts","execution":"client","status":"completed","arguments":{"query":"weather"}},
				{"type":"function_call_output","call_id":"call_ts","output":"get_weather"}]}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input[1].arguments': expected an object, but got a string instead.",
		},
		{
			Rule: RuleToolChoice, Name: "forced function declared nowhere, then in an additional_tools item",
			Bad: js(`{"model":"gpt-4.1","tool_choice":{"type":"function","name":"get_weather"},"input":[{"role":"user","content":"Weather in Tokyo?"}]}`),
			Good: js(`{"model":"gpt-4.1","tool_choice":{"type":"function","name":"get_weather"},"input":[{"type":"additional_tools","role":"developer","tools":[$TOOL]},
				{"role":"user","content":"Weather in Tokyo?"}]}`),
			WantStatus: 400, WantMessage: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
		},
	}...)
}

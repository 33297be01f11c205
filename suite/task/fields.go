package task

import (
	"fmt"
	"strings"
)

// Field is one member of the task JSON, as a driver author reads it.
type Field struct {
	Name, Doc string
}

// Fields are the task JSON's members, in the order of Task, one line
// each: what `toolwire conform --help` and the README list. A test keeps
// it in step with Task.
var Fields = []Field{
	{"scenario", "the scenario's name (also in TOOLWIRE_SCENARIO)"},
	{"dialect", "openai-chat, openai-responses, anthropic or gemini: the API to call (also in TOOLWIRE_DIALECT)"},
	{"model", "the model to name in every request"},
	{"stream", "true: stream every request (SSE); false: plain JSON answers (also in TOOLWIRE_STREAM)"},
	{"system", "optional system prompt: Chat system message, Responses instructions, Anthropic system, Gemini systemInstruction"},
	{"prompt", "the user message that opens the conversation"},
	{"tool_choice", `optional: "auto" (as absent), "required", "none" or a tool name, sent on the first request; a forcing one (required, a name) is dropped (left out, or auto) once the forced call is answered`},
	{"max_turns", "the most model turns to run; a loop still calling tools after them gives up with an error"},
	{"tools", "the functions to declare: name, description, parameters (JSON Schema), strict (send strict: true), results [{when, result}]: the MCP CallToolResult of the first entry whose when is a subset of the call's arguments"},
	{"thinking", "optional {budget_tokens}: Anthropic extended thinking on every request, thinking {type: enabled, budget_tokens}; max_tokens above the budget"},
	{"max_output_tokens", "optional: the output token limit of the first request (Chat max_completion_tokens or max_tokens, Responses max_output_tokens, Anthropic max_tokens, Gemini generationConfig.maxOutputTokens); a turn it cuts is asked again with a larger one"},
	{"item_references", `optional, Responses only: continue by {"type": "item_reference", "id": …} to every earlier output item instead of replaying it (store left on)`},
	{"output", `optional {name, schema}: the final answer must be a JSON value valid against schema (JSON Schema); send it as the API's structured-output demand on the requests — Chat response_format {type: json_schema, json_schema: {name, schema, strict: true}}, Responses text.format {type: json_schema, name, schema, strict: true}, Anthropic output_config.format {type: json_schema, schema}, Gemini generationConfig responseMimeType application/json with responseJsonSchema — and report the answer's text as final_text`},
	{"env", "only for --driver-url: the contract's environment variables (base URLs and keys), which a server cannot read from its own environment"},
}

// FieldsHelp lists the fields for a command's help: a name, then its
// doc wrapped to 80 columns under itself.
func FieldsHelp() string {
	width := 0
	for _, f := range Fields {
		width = max(width, len(f.Name))
	}
	indent := strings.Repeat(" ", width+4)
	var b strings.Builder
	for _, f := range Fields {
		line := fmt.Sprintf("  %-*s ", width, f.Name)
		for _, w := range strings.Fields(f.Doc) {
			if len(line)+1+len(w) > 80 && len(line) > len(indent) {
				b.WriteString(line + "\n")
				line = indent[:len(indent)-1]
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

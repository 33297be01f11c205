package openairesp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// formatMode: format_result answers a function_call_output item.
type formatMode struct{}

// Format is what the conformance suite's format mode knows of the
// Responses API.
func (d *Dialect) Format() dialect.Format { return formatMode{} }

func (formatMode) NativeRule() (string, string) {
	return "format_result answers a function_call_output item {type, call_id: the call's call_id, output} that answers the call", openaiwire.Guide + "; " + outputSource
}

func (formatMode) NormalizeWording() (string, string) {
	return "the function_call items' call_id (not their fc_ item id)", "the JSON-decoded arguments string"
}

func (formatMode) Model(*dialect.FormatCase) string { return "gpt-4.1" }

func (formatMode) CallID(tag string, i int) string { return openaiwire.FormatCallID(tag, i) }

func (formatMode) NativeShape(m map[string]any) string {
	if dialect.StringField(m, "type") != "function_call_output" {
		return fmt.Sprintf("type is %q, want \"function_call_output\"", dialect.StringField(m, "type"))
	}
	if dialect.StringField(m, "call_id") == "" {
		return "no call_id"
	}
	return ""
}

func (formatMode) NativeFix() string {
	return `answer {"type": "function_call_output", "call_id": <call_id>, "output": "<text>" or [input_text/input_image/input_file items]}`
}

func (formatMode) Tool(name, description string, schema map[string]any) any {
	return map[string]any{"type": "function", "name": name, "description": description, "parameters": schema}
}

func (f formatMode) Request(model string, c *dialect.FormatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	input := []any{map[string]any{"role": "user", "content": dialect.FormatPrompt}}
	for i, call := range c.Calls {
		id := f.CallID(c.Tag, i)
		args, err := json.Marshal(call.Args)
		if err != nil {
			return nil, err
		}
		input = append(input, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_tw%d%s", i, strings.TrimPrefix(id, "call_")),
			"call_id": id, "name": call.Name, "arguments": string(args), "status": "completed"})
	}
	for _, o := range outputs {
		input = append(input, dialect.DecodeAny(o))
	}
	return json.Marshal(map[string]any{"model": model, "input": input, "tools": tools})
}

func (formatMode) OwnCallIDs(json.RawMessage) []string { return nil }

func (formatMode) CallIDFix() string {
	return "use the function_call item's call_id, not its fc_ item id"
}

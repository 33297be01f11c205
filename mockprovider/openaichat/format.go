package openaichat

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// formatMode: format_result answers a tool message.
type formatMode struct{}

// Format is what the conformance suite's format mode knows of Chat
// Completions.
func (d *Dialect) Format() dialect.Format { return formatMode{} }

func (formatMode) NativeRule() (string, string) {
	return "format_result answers a tool message {role: \"tool\", tool_call_id: the call's id, content} that answers the call", openaiwire.Guide
}

func (formatMode) NormalizeWording() (string, string) {
	return "the tool_calls' ids", "the JSON-decoded function.arguments string"
}

func (formatMode) Model(*dialect.FormatCase) string { return "gpt-4.1" }

func (formatMode) CallID(tag string, i int) string { return openaiwire.FormatCallID(tag, i) }

func (formatMode) NativeShape(m map[string]any) string {
	if dialect.StringField(m, "role") != "tool" {
		return fmt.Sprintf("role is %q, want \"tool\"", dialect.StringField(m, "role"))
	}
	if dialect.StringField(m, "tool_call_id") == "" {
		return "no tool_call_id"
	}
	return ""
}

func (formatMode) NativeFix() string {
	return `answer {"role": "tool", "tool_call_id": <call_id>, "content": "<text>"}`
}

func (formatMode) Tool(name, description string, schema map[string]any) any {
	return map[string]any{"type": "function", "function": map[string]any{"name": name, "description": description, "parameters": schema}}
}

func (f formatMode) Request(model string, c *dialect.FormatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	var tcs []any
	for i, call := range c.Calls {
		args, err := json.Marshal(call.Args)
		if err != nil {
			return nil, err
		}
		tcs = append(tcs, map[string]any{"id": f.CallID(c.Tag, i), "type": "function", "function": map[string]any{"name": call.Name, "arguments": string(args)}})
	}
	msgs := []any{map[string]any{"role": "user", "content": dialect.FormatPrompt}, map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}}
	for _, o := range outputs {
		msgs = append(msgs, dialect.DecodeAny(o))
	}
	return json.Marshal(map[string]any{"model": model, "messages": msgs, "tools": tools})
}

func (formatMode) OwnCallIDs(json.RawMessage) []string { return nil }
func (formatMode) CallIDFix() string                   { return "" }

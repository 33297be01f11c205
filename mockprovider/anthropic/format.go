package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// formatMode: format_result answers a user message with tool_result blocks
// (a bare tool_result block is accepted too).
type formatMode struct{}

// Format is what the conformance suite's format mode knows of the
// Messages API.
func (d *Dialect) Format() dialect.Format { return formatMode{} }

func (formatMode) NativeRule() (string, string) {
	return "format_result answers a user message whose tool_result block references the call by tool_use_id", guide
}

func (formatMode) NormalizeWording() (string, string) {
	return "the tool_use blocks' id", "the input object as is"
}

func (formatMode) Model(*dialect.FormatCase) string { return "claude-sonnet-4-5" }

func (formatMode) CallID(tag string, i int) string { return fmt.Sprintf("toolu_tw%s%d", tag, i) }

func (formatMode) NativeShape(m map[string]any) string {
	if dialect.StringField(m, "type") == "tool_result" {
		return ""
	}
	blocks, _ := m["content"].([]any)
	if dialect.StringField(m, "role") != "user" || len(blocks) == 0 {
		return "not a user message with content blocks (nor a tool_result block)"
	}
	for _, b := range blocks {
		if bm, _ := b.(map[string]any); bm["type"] == "tool_result" {
			return ""
		}
	}
	return "the user message holds no tool_result block"
}

func (formatMode) NativeFix() string {
	return `answer {"role": "user", "content": [{"type": "tool_result", "tool_use_id": <call_id>, "content": [...], "is_error"?: true}]}`
}

func (formatMode) Tool(name, description string, schema map[string]any) any {
	return map[string]any{"name": name, "description": description, "input_schema": schema}
}

func (f formatMode) Request(model string, c *dialect.FormatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	var uses []any
	for i, call := range c.Calls {
		uses = append(uses, map[string]any{"type": "tool_use", "id": f.CallID(c.Tag, i), "name": call.Name, "input": call.Args})
	}
	msgs := []any{map[string]any{"role": "user", "content": dialect.FormatPrompt}, map[string]any{"role": "assistant", "content": uses}}
	// The answers to one turn's calls travel in one user message.
	var blocks []any
	var other []any
	for _, o := range outputs {
		var m map[string]any
		_ = json.Unmarshal(o, &m)
		if m["type"] == "tool_result" {
			blocks = append(blocks, m)
		} else if list, ok := m["content"].([]any); ok && m["role"] == "user" {
			blocks = append(blocks, list...)
		} else {
			other = append(other, m)
		}
	}
	if len(blocks) > 0 {
		msgs = append(msgs, map[string]any{"role": "user", "content": blocks})
	}
	msgs = append(msgs, other...)
	return json.Marshal(map[string]any{"model": model, "max_tokens": 1024, "messages": msgs, "tools": tools})
}

func (formatMode) OwnCallIDs(json.RawMessage) []string { return nil }
func (formatMode) CallIDFix() string                   { return "" }

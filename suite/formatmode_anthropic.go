package suite

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// formatAnthropic: format_result answers a user message with tool_result
// blocks (a bare tool_result block is accepted too).
type formatAnthropic struct{}

func (formatAnthropic) nativeRule() (string, string) {
	return "format_result answers a user message whose tool_result block references the call by tool_use_id", anthropicGuide
}

func (formatAnthropic) normalizeWording() (string, string) {
	return "the tool_use blocks' id", "the input object as is"
}

func (formatAnthropic) model(*formatCase) string { return "claude-sonnet-4-5" }

func (formatAnthropic) callID(tag string, i int) string { return fmt.Sprintf("toolu_tw%s%d", tag, i) }

func (formatAnthropic) nativeShape(m map[string]any) string {
	if stringField(m, "type") == "tool_result" {
		return ""
	}
	blocks, _ := m["content"].([]any)
	if stringField(m, "role") != "user" || len(blocks) == 0 {
		return "not a user message with content blocks (nor a tool_result block)"
	}
	for _, b := range blocks {
		if bm, _ := b.(map[string]any); bm["type"] == "tool_result" {
			return ""
		}
	}
	return "the user message holds no tool_result block"
}

func (formatAnthropic) nativeFix() string {
	return `answer {"role": "user", "content": [{"type": "tool_result", "tool_use_id": <call_id>, "content": [...], "is_error"?: true}]}`
}

func (formatAnthropic) tool(name, description string, schema map[string]any) any {
	return map[string]any{"name": name, "description": description, "input_schema": schema}
}

func (formatAnthropic) request(model string, c *formatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	var uses []any
	for i, call := range c.calls {
		uses = append(uses, map[string]any{"type": "tool_use", "id": callIDFor(conv.Anthropic, c, i), "name": call.name, "input": call.args})
	}
	msgs := []any{map[string]any{"role": "user", "content": formatPrompt}, map[string]any{"role": "assistant", "content": uses}}
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

func (formatAnthropic) ownCallIDs(json.RawMessage) []string { return nil }
func (formatAnthropic) callIDFix() string                   { return "" }
func (formatAnthropic) resultsByName() bool                 { return false }

// mediaInResults: tool_result content takes image and document blocks.
func (formatAnthropic) mediaInResults(*formatCase) bool { return true }
func (formatAnthropic) structuredObjectIn() string      { return "" }

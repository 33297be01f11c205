package suite

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// formatOpenAIChat: format_result answers a tool message.
type formatOpenAIChat struct{}

func (formatOpenAIChat) nativeRule() (string, string) {
	return "format_result answers a tool message {role: \"tool\", tool_call_id: the call's id, content} that answers the call", openAIGuide
}

func (formatOpenAIChat) normalizeWording() (string, string) {
	return "the tool_calls' ids", "the JSON-decoded function.arguments string"
}

func (formatOpenAIChat) model(*formatCase) string { return "gpt-4.1" }

func (formatOpenAIChat) callID(tag string, i int) string { return fmt.Sprintf("call_tw%s%d", tag, i) }

func (formatOpenAIChat) nativeShape(m map[string]any) string {
	if stringField(m, "role") != "tool" {
		return fmt.Sprintf("role is %q, want \"tool\"", stringField(m, "role"))
	}
	if stringField(m, "tool_call_id") == "" {
		return "no tool_call_id"
	}
	return ""
}

func (formatOpenAIChat) nativeFix() string {
	return `answer {"role": "tool", "tool_call_id": <call_id>, "content": "<text>"}`
}

func (formatOpenAIChat) tool(name, description string, schema map[string]any) any {
	return map[string]any{"type": "function", "function": map[string]any{"name": name, "description": description, "parameters": schema}}
}

func (f formatOpenAIChat) request(model string, c *formatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	var tcs []any
	for i, call := range c.calls {
		tcs = append(tcs, map[string]any{"id": callIDFor(conv.OpenAIChat, c, i), "type": "function", "function": map[string]any{"name": call.name, "arguments": string(mustJSON(call.args))}})
	}
	msgs := []any{map[string]any{"role": "user", "content": formatPrompt}, map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}}
	for _, o := range outputs {
		msgs = append(msgs, decodeAny(o))
	}
	return json.Marshal(map[string]any{"model": model, "messages": msgs, "tools": tools})
}

func (formatOpenAIChat) ownCallIDs(json.RawMessage) []string { return nil }
func (formatOpenAIChat) callIDFix() string                   { return "" }
func (formatOpenAIChat) resultsByName() bool                 { return false }

// mediaInResults: tool messages take text only.
func (formatOpenAIChat) mediaInResults(*formatCase) bool { return false }
func (formatOpenAIChat) structuredObjectIn() string      { return "" }

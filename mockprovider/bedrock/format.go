package bedrock

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// formatMode: format_result answers a user message of toolResult blocks
// (a bare {"toolResult": …} block is accepted too).
type formatMode struct{}

// Format is what the conformance suite's format mode knows of the
// Converse API.
func (d *Dialect) Format() dialect.Format { return formatMode{} }

func (formatMode) NativeRule() (string, string) {
	return "format_result answers a user message whose toolResult block references the call by toolUseId", guide
}

func (formatMode) NormalizeWording() (string, string) {
	return "the toolUse blocks' toolUseId", "the input object as is"
}

func (formatMode) Model(*dialect.FormatCase) string { return DefaultModel }

func (formatMode) CallID(tag string, i int) string { return fmt.Sprintf("tooluse_tw%s%d", tag, i) }

func (formatMode) NativeShape(m map[string]any) string {
	if _, ok := m["toolResult"]; ok {
		return ""
	}
	blocks, _ := m["content"].([]any)
	if dialect.StringField(m, "role") != "user" || len(blocks) == 0 {
		return "not a user message with content blocks (nor a toolResult block)"
	}
	for _, b := range blocks {
		if bm, _ := b.(map[string]any); bm["toolResult"] != nil {
			return ""
		}
	}
	return "the user message holds no toolResult block"
}

func (formatMode) NativeFix() string {
	return `answer {"role": "user", "content": [{"toolResult": {"toolUseId": <call_id>, "content": [{"text": …} | {"json": {…}}], "status"?: "error"}}]}`
}

func (formatMode) Tool(name, description string, schema map[string]any) any {
	spec := map[string]any{"name": name, "inputSchema": map[string]any{"json": schema}}
	if description != "" {
		spec["description"] = description
	}
	return map[string]any{"toolSpec": spec}
}

func (f formatMode) Request(_ string, c *dialect.FormatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	var uses []any
	for i, call := range c.Calls {
		args := call.Args
		if args == nil {
			args = map[string]any{}
		}
		uses = append(uses, map[string]any{"toolUse": map[string]any{"toolUseId": f.CallID(c.Tag, i), "name": call.Name, "input": args}})
	}
	msgs := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"text": dialect.FormatPrompt}}},
		map[string]any{"role": "assistant", "content": uses},
	}
	// The answers to one turn's calls travel in one user message.
	var blocks, other []any
	for _, o := range outputs {
		var m map[string]any
		_ = json.Unmarshal(o, &m)
		if m["toolResult"] != nil {
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
	body := map[string]any{"messages": msgs, "inferenceConfig": map[string]any{"maxTokens": 1024}}
	if len(tools) > 0 {
		body["toolConfig"] = map[string]any{"tools": tools}
	}
	return json.Marshal(body)
}

func (formatMode) OwnCallIDs(json.RawMessage) []string { return nil }
func (formatMode) CallIDFix() string                   { return "" }

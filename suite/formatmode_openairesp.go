package suite

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// formatOpenAIResponses: format_result answers a function_call_output item.
type formatOpenAIResponses struct{}

func (formatOpenAIResponses) nativeRule() (string, string) {
	return "format_result answers a function_call_output item {type, call_id: the call's call_id, output} that answers the call", openAIGuide + "; " + openAIRespOutput
}

func (formatOpenAIResponses) normalizeWording() (string, string) {
	return "the function_call items' call_id (not their fc_ item id)", "the JSON-decoded arguments string"
}

func (formatOpenAIResponses) model(*formatCase) string { return "gpt-4.1" }

func (formatOpenAIResponses) callID(tag string, i int) string {
	return fmt.Sprintf("call_tw%s%d", tag, i)
}

func (formatOpenAIResponses) nativeShape(m map[string]any) string {
	if stringField(m, "type") != "function_call_output" {
		return fmt.Sprintf("type is %q, want \"function_call_output\"", stringField(m, "type"))
	}
	if stringField(m, "call_id") == "" {
		return "no call_id"
	}
	return ""
}

func (formatOpenAIResponses) nativeFix() string {
	return `answer {"type": "function_call_output", "call_id": <call_id>, "output": "<text>" or [input_text/input_image/input_file items]}`
}

func (formatOpenAIResponses) tool(name, description string, schema map[string]any) any {
	return map[string]any{"type": "function", "name": name, "description": description, "parameters": schema}
}

func (formatOpenAIResponses) request(model string, c *formatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	input := []any{map[string]any{"role": "user", "content": formatPrompt}}
	for i, call := range c.calls {
		id := callIDFor(conv.OpenAIResponses, c, i)
		input = append(input, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_tw%d%s", i, strings.TrimPrefix(id, "call_")),
			"call_id": id, "name": call.name, "arguments": string(mustJSON(call.args)), "status": "completed"})
	}
	for _, o := range outputs {
		input = append(input, decodeAny(o))
	}
	return json.Marshal(map[string]any{"model": model, "input": input, "tools": tools})
}

func (formatOpenAIResponses) ownCallIDs(json.RawMessage) []string { return nil }

func (formatOpenAIResponses) callIDFix() string {
	return "use the function_call item's call_id, not its fc_ item id"
}

func (formatOpenAIResponses) resultsByName() bool { return false }

// mediaInResults: function_call_output.output takes input_image and
// input_file items.
func (formatOpenAIResponses) mediaInResults(*formatCase) bool { return true }
func (formatOpenAIResponses) structuredObjectIn() string      { return "" }

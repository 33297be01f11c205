package refdriver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Format is the Converse half of the reference format driver. It works on
// raw JSON, not the SDK, so it and the SDK loop check each other.
func Format() formatdriver.FormatDialect { return bedrockFormat{} }

type bedrockFormat struct{}

func (bedrockFormat) Name() string { return "bedrock" }

func (bedrockFormat) Breaks() []formatdriver.BreakInfo {
	return []formatdriver.BreakInfo{{Name: formatdriver.OmitIsError, Rules: []string{"bedrock.error-flagged"}}}
}

// FormatResult is a user message holding one toolResult block.
func (bedrockFormat) FormatResult(brk formatdriver.Break, call formatdriver.Call, r task.CallToolResult, _ string) (map[string]any, error) {
	block := map[string]any{"toolUseId": call.CallID, "content": content(r)}
	if r.IsError && brk != formatdriver.OmitIsError {
		block["status"] = "error"
	}
	return map[string]any{"role": "user", "content": []any{map[string]any{"toolResult": block}}}, nil
}

// content is the toolResult content: text, image and document blocks,
// structured content as a json block
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultContentBlock.html).
func content(r task.CallToolResult) []any {
	var out []any
	image := func(mime, data string) {
		out = append(out, map[string]any{"image": map[string]any{"format": strings.TrimPrefix(mime, "image/"), "source": map[string]any{"bytes": data}}})
	}
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			out = append(out, map[string]any{"text": c.Text})
		case c.Type == "image" && c.Data != "":
			image(c.MimeType, c.Data)
		case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
			out = append(out, map[string]any{"text": c.Resource.Text})
		case c.Type == "resource" && c.Resource != nil && c.Resource.MimeType == "application/pdf":
			out = append(out, map[string]any{"document": map[string]any{"format": "pdf", "name": "document", "source": map[string]any{"bytes": c.Resource.Blob}}})
		case c.Type == "resource" && c.Resource != nil && strings.HasPrefix(c.Resource.MimeType, "image/"):
			image(c.Resource.MimeType, c.Resource.Blob)
		}
	}
	if r.StructuredContent != nil {
		out = append(out, map[string]any{"json": r.StructuredContent})
	}
	if len(out) == 0 {
		out = append(out, map[string]any{"text": formatdriver.Text(r)})
	}
	return out
}

// NormalizeCalls reads the output message's toolUse blocks.
func (bedrockFormat) NormalizeCalls(_ formatdriver.Break, raw json.RawMessage) ([]formatdriver.Call, error) {
	var resp struct {
		Output struct {
			Message struct {
				Content []struct {
					ToolUse *struct {
						ToolUseID string         `json:"toolUseId"`
						Name      string         `json:"name"`
						Input     map[string]any `json:"input"`
					} `json:"toolUse"`
				} `json:"content"`
			} `json:"message"`
		} `json:"output"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("not a Converse response: %v", err)
	}
	calls := []formatdriver.Call{}
	for _, b := range resp.Output.Message.Content {
		if u := b.ToolUse; u != nil {
			calls = append(calls, formatdriver.Call{Name: u.Name, CallID: u.ToolUseID, Arguments: formatdriver.ObjectArguments(u.Input)})
		}
	}
	return calls, nil
}

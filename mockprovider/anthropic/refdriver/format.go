package refdriver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Format is the Messages half of the reference format driver. It works on
// raw JSON, not the SDK, so it and the SDK loop check each other.
func Format() formatdriver.FormatDialect { return anthropicFormat{} }

type anthropicFormat struct{}

func (anthropicFormat) Name() string { return "anthropic" }

// idForToolUseID names the tool_result's call reference "id" instead of
// "tool_use_id".
const idForToolUseID formatdriver.Break = "id-for-tool-use-id"

func (anthropicFormat) Breaks() []formatdriver.BreakInfo {
	return []formatdriver.BreakInfo{
		{Name: formatdriver.OmitIsError, Rules: []string{"anthropic.error-flagged"}},
		{Name: idForToolUseID, Summary: "Anthropic tool_result references its call with \"id\", not \"tool_use_id\"", Rules: []string{"anthropic.format-result-native"}},
	}
}

// FormatResult is a user message holding one tool_result block.
func (anthropicFormat) FormatResult(brk formatdriver.Break, call formatdriver.Call, r task.CallToolResult, _ string) (map[string]any, error) {
	block := map[string]any{"type": "tool_result", "tool_use_id": call.CallID, "content": content(r)}
	if brk == idForToolUseID {
		delete(block, "tool_use_id")
		block["id"] = call.CallID
	}
	if r.IsError && brk != formatdriver.OmitIsError {
		block["is_error"] = true
	}
	return map[string]any{"role": "user", "content": []any{block}}, nil
}

// content is the tool_result content: text, image and document blocks
// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
func content(r task.CallToolResult) []any {
	var out []any
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			out = append(out, map[string]any{"type": "text", "text": c.Text})
		case c.Type == "image" && c.Data != "":
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": c.MimeType, "data": c.Data}})
		case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
			out = append(out, map[string]any{"type": "text", "text": c.Resource.Text})
		case c.Type == "resource" && c.Resource != nil && c.Resource.MimeType == "application/pdf":
			out = append(out, map[string]any{"type": "document", "source": map[string]any{"type": "base64", "media_type": "application/pdf", "data": c.Resource.Blob}})
		case c.Type == "resource" && c.Resource != nil && strings.HasPrefix(c.Resource.MimeType, "image/"):
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": c.Resource.MimeType, "data": c.Resource.Blob}})
		}
	}
	if len(out) == 0 {
		out = append(out, map[string]any{"type": "text", "text": formatdriver.Text(r)})
	}
	return out
}

// NormalizeCalls reads the tool_use blocks.
func (anthropicFormat) NormalizeCalls(_ formatdriver.Break, raw json.RawMessage) ([]formatdriver.Call, error) {
	var resp struct {
		Content []struct {
			Type  string         `json:"type"`
			ID    string         `json:"id"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("not a message: %v", err)
	}
	calls := []formatdriver.Call{}
	for _, b := range resp.Content {
		if b.Type == "tool_use" {
			calls = append(calls, formatdriver.Call{Name: b.Name, CallID: b.ID, Arguments: formatdriver.ObjectArguments(b.Input)})
		}
	}
	return calls, nil
}

package refdriver

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Format is the Responses half of the reference format driver. It works
// on raw JSON, not the SDK, so it and the SDK loop check each other.
func Format() formatdriver.FormatDialect { return respFormat{} }

type respFormat struct{}

func (respFormat) Name() string { return "openai-responses" }

func (respFormat) Breaks() []formatdriver.BreakInfo {
	return []formatdriver.BreakInfo{
		{Name: formatdriver.ErrorAsNull, Rules: []string{"openai-responses.error-flagged", "openai-responses.result-carries-data"}},
		{Name: formatdriver.ArgumentsAsObject, Rules: []string{"openai-responses.normalize-arguments"}},
	}
}

// FormatResult is a function_call_output item.
func (respFormat) FormatResult(brk formatdriver.Break, call formatdriver.Call, r task.CallToolResult, _ string) (map[string]any, error) {
	return map[string]any{"type": "function_call_output", "call_id": call.CallID, "output": output(brk, r)}, nil
}

// output is a string, or input_text/input_image/input_file items when the
// result carries media (https://platform.openai.com/docs/guides/function-calling).
func output(brk formatdriver.Break, r task.CallToolResult) any {
	media := r.Media()
	text := formatdriver.ErrorText(brk, r, formatdriver.Text(r))
	if len(media) == 0 {
		return text
	}
	var items []any
	if text != "" {
		items = append(items, map[string]any{"type": "input_text", "text": text})
	}
	for i, m := range media {
		url := "data:" + m.MimeType + ";base64," + m.Data
		if m.IsImage() {
			items = append(items, map[string]any{"type": "input_image", "image_url": url})
		} else {
			items = append(items, map[string]any{"type": "input_file", "filename": fmt.Sprintf("attachment-%d", i+1), "file_data": url})
		}
	}
	return items
}

// NormalizeCalls reads the function_call output items, by call_id — not
// the fc_ item id (https://platform.openai.com/docs/guides/function-calling).
func (respFormat) NormalizeCalls(brk formatdriver.Break, raw json.RawMessage) ([]formatdriver.Call, error) {
	var resp struct {
		Output []struct {
			Type      string `json:"type"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"output"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("not a response: %v", err)
	}
	calls := []formatdriver.Call{}
	for _, it := range resp.Output {
		if it.Type == "function_call" {
			calls = append(calls, formatdriver.Call{Name: it.Name, CallID: it.CallID, Arguments: formatdriver.StringArguments(brk, it.Arguments)})
		}
	}
	return calls, nil
}

package refdriver

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Format is the Chat Completions half of the reference format driver. It
// works on raw JSON, not the SDK, so it and the SDK loop check each other.
func Format() formatdriver.FormatDialect { return chatFormat{} }

type chatFormat struct{}

func (chatFormat) Name() string { return "openai-chat" }

func (chatFormat) Breaks() []formatdriver.BreakInfo {
	return []formatdriver.BreakInfo{
		{Name: formatdriver.ErrorAsNull, Rules: []string{"openai-chat.error-flagged", "openai-chat.result-carries-data"}},
		{Name: formatdriver.ArgumentsAsObject, Rules: []string{"openai-chat.normalize-arguments"}},
	}
}

// FormatResult is a tool message; tool messages carry text only
// (https://platform.openai.com/docs/api-reference/chat/create).
func (chatFormat) FormatResult(brk formatdriver.Break, call formatdriver.Call, r task.CallToolResult, _ string) (map[string]any, error) {
	return map[string]any{"role": "tool", "tool_call_id": call.CallID, "content": formatdriver.PlainText(brk, r)}, nil
}

// NormalizeCalls reads the first choice's tool_calls.
func (chatFormat) NormalizeCalls(brk formatdriver.Break, raw json.RawMessage) ([]formatdriver.Call, error) {
	var resp struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("not a chat completion: %v", err)
	}
	calls := []formatdriver.Call{}
	if len(resp.Choices) == 0 {
		return calls, nil
	}
	for _, tc := range resp.Choices[0].Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		calls = append(calls, formatdriver.Call{Name: tc.Function.Name, CallID: tc.ID, Arguments: formatdriver.StringArguments(brk, tc.Function.Arguments)})
	}
	return calls, nil
}

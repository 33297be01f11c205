package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKWhitespaceTextBesideToolUse: an assistant turn whose text block
// is " " followed by two tool_use blocks, streamed back with the results:
// what simonw/llm-anthropic sends and claude-haiku-4-5 answers 200
// (testdata/corpus/simonw-llm-anthropic.jsonl, test_tools.yaml#2). The
// same " " as the whole turn is still refused.
func TestSDKWhitespaceTextBesideToolUse(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	const key = "whitespace-text"
	send := streaming(client(ts, key))
	ask := sdk.NewUserMessage(sdk.NewTextBlock("What's the weather in Paris and Rome?"))
	p := newParams("")
	p.Messages = []sdk.MessageParam{
		ask,
		sdk.NewAssistantMessage(sdk.NewTextBlock(" "),
			sdk.NewToolUseBlock("toolu_01A", map[string]any{"location": "Paris"}, "get_weather"),
			sdk.NewToolUseBlock("toolu_01B", map[string]any{"location": "Rome"}, "get_weather")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_01A", "18C, cloudy", false),
			sdk.NewToolResultBlock("toolu_01B", "24C, sunny", false)),
	}
	if _, err := send(p); err != nil {
		t.Fatalf("whitespace text beside tool_use: %v", err)
	}
	assertCleanJournal(t, ts, key, 1)

	p.Messages = []sdk.MessageParam{
		ask,
		sdk.NewAssistantMessage(sdk.NewTextBlock(" ")),
		sdk.NewUserMessage(sdk.NewTextBlock("Go on.")),
	}
	assertAPIError(t, send, p, anthropic.RuleNonEmptyTextBlock, "messages: text content blocks must contain non-whitespace text")
}

// TestSDKMessageNotAnObject: a string where a message object belongs, as
// dd-trace-py's error test sends through the Python SDK; the real API
// answered "messages.0: Input does not match the expected shape."
// (testdata/corpus/datadog-dd-trace-py.jsonl, anthropic_completion_error.yaml#1).
func TestSDKMessageNotAnObject(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	send := nonStreaming(client(ts, "message-string"), option.WithJSONSet("messages", []any{"Invalid content"}))
	assertAPIError(t, send, newParams("ignored"), anthropic.RuleFieldTypes, "messages.0: Input does not match the expected shape.")
}

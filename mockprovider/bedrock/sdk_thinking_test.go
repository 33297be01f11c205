package bedrock_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
)

func thinkingFields() document.Interface {
	return document.NewLazyDocument(map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 1024}})
}

// TestSDKThinkingPassBack: with thinking in additionalModelRequestFields,
// the answer opens with a signed reasoningContent block, streamed and
// not; the call turn sent back with it is answered, without it refused
// with the text Bedrock relays from Anthropic.
func TestSDKThinkingPassBack(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDTHINK")
	ctx := context.Background()
	limit := &types.InferenceConfiguration{MaxTokens: aws.Int32(4096)}

	out, err := client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()},
		ToolConfig: weatherConfig(), InferenceConfig: limit, AdditionalModelRequestFields: thinkingFields()})
	if err != nil {
		t.Fatal(err)
	}
	turn := out.Output.(*types.ConverseOutputMemberMessage).Value
	rc, ok := turn.Content[0].(*types.ContentBlockMemberReasoningContent)
	if !ok {
		t.Fatalf("first block %T, want reasoningContent", turn.Content[0])
	}
	rt := rc.Value.(*types.ReasoningContentBlockMemberReasoningText).Value
	if aws.ToString(rt.Text) == "" || aws.ToString(rt.Signature) == "" {
		t.Fatalf("reasoning %+v: text and signature wanted", rt)
	}
	var id string
	for _, b := range turn.Content {
		if u, ok := b.(*types.ContentBlockMemberToolUse); ok {
			id = aws.ToString(u.Value.ToolUseId)
		}
	}
	if id == "" || out.StopReason != types.StopReasonToolUse {
		t.Fatalf("no call after the reasoning: %+v", turn.Content)
	}

	// Without its reasoning, the call turn is refused.
	stripped := types.Message{Role: turn.Role, Content: turn.Content[1:]}
	_, err = client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask(), stripped, resultFor(id)},
		ToolConfig: weatherConfig(), InferenceConfig: limit, AdditionalModelRequestFields: thinkingFields()})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "ValidationException" ||
		!strings.Contains(apiErr.ErrorMessage(), "The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.") {
		t.Fatalf("stripped reasoning: %v", err)
	}

	// As received, streamed: answered, and the answer after the results
	// (interleaved thinking off) opens without reasoning.
	stream, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask(), turn, resultFor(id)},
		ToolConfig: weatherConfig(), InferenceConfig: limit, AdditionalModelRequestFields: thinkingFields()})
	if err != nil {
		t.Fatal(err)
	}
	reasoning, _, _, text, stop, err := drain(t, stream)
	if err != nil || text == "" || stop != types.StopReasonEndTurn || reasoning != "" {
		t.Fatalf("final answer: reasoning %q text %q stop %q err %v", reasoning, text, stop, err)
	}

	// A fresh turn, streamed: the reasoning's text and signature stream
	// before the call.
	stream, err = client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()},
		ToolConfig: weatherConfig(), InferenceConfig: limit, AdditionalModelRequestFields: thinkingFields()})
	if err != nil {
		t.Fatal(err)
	}
	reasoning, signature, tools, _, _, err := drain(t, stream)
	if err != nil || reasoning == "" || signature == "" || len(tools) != 1 {
		t.Fatalf("streamed: reasoning %q signature %q tools %v err %v", reasoning, signature, tools, err)
	}
}

package openairesp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
)

// TestSDKInputTokens: the count endpoint validates like create and answers
// the same deterministic count create reports as usage.input_tokens.
func TestSDKInputTokens(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-count")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	in := responses.InputTokenCountParamsInputUnion{OfResponseInputItemArray: []responses.ResponseInputItemUnionParam{userText("Weather in Rome?")}}
	count, err := c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Model: openai.String("gpt-4.1"), Tools: tools, Input: in})
	if err != nil {
		t.Fatal(err)
	}
	if count.Object != "response.input_tokens" || count.InputTokens <= 0 {
		t.Fatalf("count %s", count.RawJSON())
	}
	again, err := c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Model: openai.String("gpt-4.1"), Tools: tools, Input: in})
	if err != nil || again.InputTokens != count.InputTokens {
		t.Fatalf("second count %v %v", err, again)
	}
	r, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: tools, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage.InputTokens != count.InputTokens {
		t.Errorf("create reports %d input tokens, count %d", r.Usage.InputTokens, count.InputTokens)
	}
	// The same rules as create.
	_, err = c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Input: responses.InputTokenCountParamsInputUnion{
		OfResponseInputItemArray: []responses.ResponseInputItemUnionParam{userText("Hi"), output("call_x", "18C")}}})
	apiError(t, err, 400, "No tool call found for function call output with call_id call_x.")
}

// TestSDKCompact: compacting a tool loop answers the user messages and one
// compaction item; passing that output back continues the same
// conversation (the mock reads the compaction as the history it replaced).
func TestSDKCompact(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-compact")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: tools, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	history := append(responses.ResponseInputParam{userText("Weather in Rome?")}, replay(first)...)
	history = append(history, output(calls(first)[0].CallID, "warm"))
	compacted, err := c.Responses.Compact(ctx, responses.ResponseCompactParams{Model: "gpt-4.1",
		Input: responses.ResponseCompactParamsInputUnion{OfResponseInputItemArray: history}})
	if err != nil {
		t.Fatal(err)
	}
	if compacted.Object != "response.compaction" || len(compacted.Output) != 2 || compacted.Output[0].Type != "message" ||
		compacted.Output[1].Type != "compaction" || compacted.Output[1].EncryptedContent == "" || compacted.Usage.InputTokens <= 0 {
		t.Fatalf("compacted %s", compacted.RawJSON())
	}
	var next responses.ResponseInputParam
	for _, it := range compacted.Output {
		next = append(next, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(it.RawJSON())))
	}
	next = append(next, userText("And tomorrow?"))
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: tools, Input: inputList(next...)}); err != nil {
		t.Fatal(err)
	}
	journal := ts.Journal("sk-compact")
	conv := journal[len(journal)-1].Conversation
	if conv.AssistantTurns() != 1 || len(conv.Turns) != 3 || len(conv.Turns[1].Calls()) != 1 || len(conv.Turns[2].Results()) != 1 {
		t.Fatalf("the compaction did not stand for the history: %+v", conv.Turns)
	}
	noViolations(t, ts, "sk-compact")

	// A missing model is a 400, and compact takes only its own members.
	_, err = c.Responses.Compact(ctx, responses.ResponseCompactParams{Input: responses.ResponseCompactParamsInputUnion{OfString: openai.String("Hi")}})
	if apiErr := apiError(t, err, 400, "Missing required parameter: 'model'."); apiErr.Param != "model" {
		t.Errorf("param %q", apiErr.Param)
	}
	_, err = c.Responses.Compact(ctx, responses.ResponseCompactParams{Model: "gpt-4.1", Input: responses.ResponseCompactParamsInputUnion{OfString: openai.String("Hi")}},
		option.WithJSONSet("tools", []any{}))
	apiError(t, err, 400, "Unknown parameter: 'tools'.")
}

// TestSDKToolChoiceNeedsTools: tool_choice without tools, or forcing a
// function the request does not declare, is a 400 on create (streamed or
// not) and on the count endpoint.
func TestSDKToolChoiceNeedsTools(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-choice")
	ctx := context.Background()
	required := responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: openai.Opt(responses.ToolChoiceOptionsRequired)}
	forced := responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "get_time"}}
	cases := []struct {
		params responses.ResponseNewParams
		want   string
	}{
		{responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Hi")), ToolChoice: required},
			"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."},
		{responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Hi")), ToolChoice: forced, Tools: []responses.ToolUnionParam{weatherTool()}},
			"Tool choice 'get_time' not found in 'tools' parameter."},
	}
	for _, tc := range cases {
		_, err := c.Responses.New(ctx, tc.params)
		if apiErr := apiError(t, err, 400, tc.want); apiErr.Param != "tool_choice" {
			t.Errorf("param %q", apiErr.Param)
		}
		s := c.Responses.NewStreaming(ctx, tc.params)
		for s.Next() {
		}
		apiError(t, s.Err(), 400, tc.want)
	}
	_, err := c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Input: responses.InputTokenCountParamsInputUnion{OfString: openai.String("Hi")},
		ToolChoice: responses.InputTokenCountParamsToolChoiceUnion{OfToolChoiceMode: openai.Opt(responses.ToolChoiceOptionsAuto)}})
	apiError(t, err, 400, cases[0].want)
	// Declared: accepted.
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Weather in Rome?")),
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "get_weather"}},
		Tools:      []responses.ToolUnionParam{weatherTool()}}); err != nil {
		t.Fatal(err)
	}
}

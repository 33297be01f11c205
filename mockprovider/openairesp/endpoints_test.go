package openairesp_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
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

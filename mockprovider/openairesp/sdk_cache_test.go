package openairesp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
)

// TestSDKCachedTokens: a prompt of 1,024 tokens or more seen before reports
// its shared prefix as usage.input_tokens_details.cached_tokens (in steps of
// 128 from 1,024), whole and streamed; a first sight and a short prompt
// report 0 (https://platform.openai.com/docs/guides/prompt-caching).
func TestSDKCachedTokens(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-cache")
	ctx := context.Background()
	params := func(instructions string) responses.ResponseNewParams {
		return responses.ResponseNewParams{Model: "gpt-4.1", Tools: []responses.ToolUnionParam{weatherTool()},
			Instructions: openai.String(instructions), Input: inputList(userText("Weather in Paris?"))}
	}
	long := strings.Repeat("You answer weather questions tersely. ", 160) // ~6,000 characters
	// Instructions are not input items: the long prefix goes in as a
	// developer message so the cache sees it.
	longParams := params("")
	longParams.Input = inputList(developerText(long), userText("Weather in Paris?"))
	cached := func(p responses.ResponseNewParams) (int64, int64) {
		t.Helper()
		r, err := c.Responses.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return r.Usage.InputTokensDetails.CachedTokens, r.Usage.InputTokens
	}
	if got, in := cached(longParams); got != 0 || in < 1024 {
		t.Fatalf("first sight: cached %d of %d input tokens", got, in)
	}
	got, in := cached(longParams)
	if got < 1024 || got%128 != 0 || got > in {
		t.Fatalf("repeat: cached %d of %d input tokens", got, in)
	}
	stream := c.Responses.NewStreaming(ctx, longParams)
	defer stream.Close()
	var streamed int64 = -1
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.completed" {
			streamed = ev.Response.Usage.InputTokensDetails.CachedTokens
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if streamed != got {
		t.Errorf("streamed: cached %d, want %d", streamed, got)
	}
	short := params("Be brief.")
	cached(short)
	if got, _ := cached(short); got != 0 {
		t.Errorf("short prompt: cached %d", got)
	}
	noViolations(t, ts, "sk-cache")
}

func developerText(s string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(s, responses.EasyInputMessageRoleDeveloper)
}

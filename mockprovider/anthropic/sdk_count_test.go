package anthropic_test

import (
	"context"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKCountTokens: count_tokens answers {"input_tokens": N} with N the
// input_tokens the same prompt reports on /v1/messages, deterministically,
// and validates the request as /v1/messages does (less max_tokens).
func TestSDKCountTokens(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "count")
	p := newParams("What's the weather in Paris?")
	count := sdk.MessageCountTokensParams{Model: p.Model, Messages: p.Messages,
		Tools: []sdk.MessageCountTokensToolUnionParam{{OfTool: p.Tools[0].OfTool}, {OfTool: p.Tools[1].OfTool}}}
	got, err := c.Messages.CountTokens(context.Background(), count)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Messages.CountTokens(context.Background(), count)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got.InputTokens <= 0 || got.InputTokens != again.InputTokens || got.InputTokens != msg.Usage.InputTokens {
		t.Fatalf("count %d, again %d, messages usage %d: want one positive number", got.InputTokens, again.InputTokens, msg.Usage.InputTokens)
	}
	beta, err := c.Beta.Messages.CountTokens(context.Background(), sdk.BetaMessageCountTokensParams{Model: p.Model,
		Messages: []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("What's the weather in Paris?"))}})
	if err != nil || beta.InputTokens <= 0 {
		t.Fatalf("beta count %+v %v", beta, err)
	}

	// The same validation: a duplicate tool name, and a member only
	// /v1/messages takes.
	count.Tools = append(count.Tools, count.Tools[0])
	_, err = c.Messages.CountTokens(context.Background(), count)
	assertSDKRule(t, err, anthropic.RuleToolNamesUnique, "tools: Tool names must be unique.")
	status, h, body := postPath(t, ts, "/v1/messages/count_tokens", `{"model":"claude-haiku-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`)
	assertEnvelope(t, status, h, body, 400, "invalid_request_error", "max_tokens: Extra inputs are not permitted")
	status, _, body = postPath(t, ts, "/v1/messages/count_tokens", `{"model":"claude-haiku-4-5","messages":[{"role":"user","content":"Hi"}]}`)
	if status != 200 || body != `{"input_tokens":1}` {
		t.Fatalf("count answered %d %s", status, body)
	}
}

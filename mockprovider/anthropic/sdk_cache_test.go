package anthropic_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKCacheControlLimit: four cache_control breakpoints are served,
// a fifth gets the API's 400, streamed or not.
func TestSDKCacheControlLimit(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "cache")
	params := func(breakpoints int) sdk.MessageNewParams {
		p := newParams("What's the weather in Paris?")
		p.CacheControl = sdk.NewCacheControlEphemeralParam()
		p.System = []sdk.TextBlockParam{{Text: "You are a weather assistant.", CacheControl: sdk.NewCacheControlEphemeralParam()}}
		p.Tools[1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
		p.Messages[0].OfUser.Content[0].OfText.CacheControl = sdk.NewCacheControlEphemeralParam()
		if breakpoints > 4 {
			p.Tools[0].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		return p
	}
	for name, send := range map[string]func(sdk.MessageNewParams) (*sdk.Message, error){"json": nonStreaming(c), "sse": streaming(c)} {
		if _, err := send(params(4)); err != nil {
			t.Fatalf("%s: four breakpoints: %v", name, err)
		}
		assertAPIError(t, send, params(5), anthropic.RuleCacheControlLimit, "A maximum of 4 blocks with cache_control may be provided. Found 5.")
	}
}

// longSystem is a system prompt of about 1,250 tokens: above Sonnet's
// cacheable minimum (1,024), below Haiku 4.5's (4,096).
var longSystem = strings.Repeat("The weather assistant answers with care. ", 120)

// cachedParams asks Sonnet with the long system prompt marked for caching.
func cachedParams(system string, ttl sdk.CacheControlEphemeralTTL) sdk.MessageNewParams {
	p := newParams("What's the weather in Paris?")
	p.Model = "claude-sonnet-4-5"
	cc := sdk.NewCacheControlEphemeralParam()
	cc.TTL = ttl
	p.System = []sdk.TextBlockParam{{Text: system, CacheControl: cc}}
	return p
}

// promptTokens is the prompt's size as a request without breakpoints
// reports it (all of it in input_tokens).
func promptTokens(t *testing.T, c sdk.Client, p sdk.MessageNewParams) int64 {
	t.Helper()
	p.System = []sdk.TextBlockParam{{Text: p.System[0].Text}}
	msg, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if u := msg.Usage; u.CacheCreationInputTokens != 0 || u.CacheReadInputTokens != 0 {
		t.Fatalf("no breakpoint, yet cache figures %+v", u)
	}
	return msg.Usage.InputTokens
}

// streamUsages sends p streamed and returns the usage of message_start,
// of message_delta, and the accumulated message's.
func streamUsages(c sdk.Client) func(sdk.MessageNewParams) (start sdk.Usage, delta sdk.MessageDeltaUsage, msg *sdk.Message, err error) {
	return func(p sdk.MessageNewParams) (sdk.Usage, sdk.MessageDeltaUsage, *sdk.Message, error) {
		s := c.Messages.NewStreaming(context.Background(), p)
		defer s.Close()
		var start sdk.Usage
		var delta sdk.MessageDeltaUsage
		var acc sdk.Message
		for s.Next() {
			e := s.Current()
			switch e.Type {
			case "message_start":
				start = e.Message.Usage
			case "message_delta":
				delta = e.Usage
			}
			if err := acc.Accumulate(e); err != nil {
				return start, delta, nil, err
			}
		}
		return start, delta, &acc, s.Err()
	}
}

// TestSDKPromptCacheCreateThenRead: the first request writes the marked
// prefix, the same prefix again reads it, a changed prefix writes anew;
// input + creation + read is always the whole prompt. Streamed, message_start
// and message_delta carry the same figures as the body.
func TestSDKPromptCacheCreateThenRead(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	total := promptTokens(t, client(ts, "cache-total"), cachedParams(longSystem, ""))
	for _, mode := range []string{"json", "sse"} {
		t.Run(mode, func(t *testing.T) {
			c := client(ts, "cache-"+mode)
			send := func(p sdk.MessageNewParams) sdk.Usage {
				t.Helper()
				if mode == "json" {
					msg, err := c.Messages.New(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					return msg.Usage
				}
				start, delta, msg, err := streamUsages(c)(p)
				if err != nil {
					t.Fatal(err)
				}
				if start.InputTokens != msg.Usage.InputTokens || start.CacheCreationInputTokens != msg.Usage.CacheCreationInputTokens ||
					start.CacheReadInputTokens != msg.Usage.CacheReadInputTokens || start.CacheCreation.Ephemeral5mInputTokens != msg.Usage.CacheCreation.Ephemeral5mInputTokens ||
					delta.InputTokens != start.InputTokens || delta.CacheCreationInputTokens != start.CacheCreationInputTokens ||
					delta.CacheReadInputTokens != start.CacheReadInputTokens {
					t.Fatalf("message_start %+v and message_delta %+v disagree", start, delta)
				}
				return msg.Usage
			}
			first := send(cachedParams(longSystem, ""))
			if first.CacheCreationInputTokens < 1024 || first.CacheReadInputTokens != 0 ||
				first.CacheCreation.Ephemeral5mInputTokens != first.CacheCreationInputTokens || first.CacheCreation.Ephemeral1hInputTokens != 0 {
				t.Fatalf("first request: %+v, want the prefix written (5m)", first)
			}
			if sum := first.InputTokens + first.CacheCreationInputTokens; sum != total {
				t.Fatalf("input %d + creation %d = %d, want the prompt's %d", first.InputTokens, first.CacheCreationInputTokens, sum, total)
			}
			again := send(cachedParams(longSystem, ""))
			if again.CacheReadInputTokens != first.CacheCreationInputTokens || again.CacheCreationInputTokens != 0 ||
				again.CacheCreation.Ephemeral5mInputTokens != 0 || again.InputTokens != first.InputTokens {
				t.Fatalf("same prefix again: %+v, want it read (%d tokens)", again, first.CacheCreationInputTokens)
			}
			changed := send(cachedParams("Be brief. "+longSystem, ""))
			if changed.CacheCreationInputTokens == 0 || changed.CacheReadInputTokens != 0 {
				t.Fatalf("changed prefix: %+v, want it written anew", changed)
			}
		})
	}
}

// TestSDKPromptCacheTTL: a 1h breakpoint's tokens land in
// ephemeral_1h_input_tokens; with a 1h system and a 5m message
// breakpoint, each part goes to its own ttl.
func TestSDKPromptCacheTTL(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "cache-ttl")
	msg, err := c.Messages.New(context.Background(), cachedParams(longSystem, sdk.CacheControlEphemeralTTLTTL1h))
	if err != nil {
		t.Fatal(err)
	}
	u := msg.Usage
	if u.CacheCreationInputTokens == 0 || u.CacheCreation.Ephemeral1hInputTokens != u.CacheCreationInputTokens || u.CacheCreation.Ephemeral5mInputTokens != 0 {
		t.Fatalf("1h breakpoint: %+v", u)
	}

	mixed := cachedParams(longSystem+"Mixed.", sdk.CacheControlEphemeralTTLTTL1h)
	mixed.Messages[0].OfUser.Content[0].OfText.Text = strings.Repeat("Here is the week's forecast data. ", 40)
	mixed.Messages[0].OfUser.Content[0].OfText.CacheControl = sdk.NewCacheControlEphemeralParam()
	msg, err = c.Messages.New(context.Background(), mixed)
	if err != nil {
		t.Fatal(err)
	}
	u = msg.Usage
	if u.CacheCreation.Ephemeral1hInputTokens < 1024 || u.CacheCreation.Ephemeral5mInputTokens < 300 ||
		u.CacheCreation.Ephemeral1hInputTokens+u.CacheCreation.Ephemeral5mInputTokens != u.CacheCreationInputTokens {
		t.Fatalf("1h system + 5m message: %+v", u)
	}
}

// TestSDKPromptCacheShortPrefix: a prefix below the model's minimum is not
// cached and not an error: Haiku 4.5 needs 4,096 tokens, and a short
// system prompt is short for Sonnet too.
func TestSDKPromptCacheShortPrefix(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	haiku := cachedParams(longSystem, "")
	haiku.Model = "claude-haiku-4-5"
	for name, p := range map[string]sdk.MessageNewParams{"haiku": haiku, "short": cachedParams("You are a weather assistant.", "")} {
		c := client(ts, "cache-short-"+name)
		for i := range 2 {
			msg, err := c.Messages.New(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if u := msg.Usage; u.CacheCreationInputTokens != 0 || u.CacheReadInputTokens != 0 || u.CacheCreation.Ephemeral5mInputTokens != 0 {
				t.Fatalf("%s, request %d: %+v, want nothing cached", name, i+1, u)
			}
		}
	}
}

// TestSDKPromptCacheAutomaticLoop: the top-level cache_control moves with
// the conversation; each turn of a tool loop reads what the previous turn
// wrote and writes only the new blocks.
func TestSDKPromptCacheAutomaticLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	p := newParams("What's the weather in Paris?")
	p.Model = "claude-sonnet-4-5"
	p.System = []sdk.TextBlockParam{{Text: longSystem}}
	p.CacheControl = sdk.NewCacheControlEphemeralParam()
	msgs := loop(t, nonStreaming(client(ts, "cache-auto")), p)
	if len(msgs) < 2 {
		t.Fatalf("loop ended after %d turns", len(msgs))
	}
	first, second := msgs[0].Usage, msgs[1].Usage
	if first.CacheCreationInputTokens == 0 || first.CacheReadInputTokens != 0 {
		t.Fatalf("turn 1: %+v", first)
	}
	if second.CacheReadInputTokens != first.CacheCreationInputTokens || second.CacheCreationInputTokens == 0 {
		t.Fatalf("turn 2: %+v, want turn 1's %d tokens read and the new blocks written", second, first.CacheCreationInputTokens)
	}
	assertCleanJournal(t, ts, "cache-auto", len(msgs))
}

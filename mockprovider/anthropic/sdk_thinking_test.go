package anthropic_test

import (
	"errors"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

func thinkingParams(prompt string) sdk.MessageNewParams {
	p := newParams(prompt)
	p.MaxTokens = 4096
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(2048)
	return p
}

// TestSDKThinkingPassBack: with thinking on, the answer opens with a
// signed thinking block before its tool_use (streamed as thinking_delta +
// signature_delta); the SDK's ToParam passes it back and the loop ends;
// an edited signature or a dropped thinking block gets the API's 400.
func TestSDKThinkingPassBack(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for name, send := range map[string]func(sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error){
		"json": func(c sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error) { return nonStreaming(c) },
		"sse":  func(c sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error) { return streaming(c) },
	} {
		t.Run(name, func(t *testing.T) {
			key := "thinking-" + name
			msgs := loop(t, send(client(ts, key)), thinkingParams("What's the weather in Paris? Use get_weather."))
			first := msgs[0]
			if len(first.Content) < 2 || first.Content[0].Type != "thinking" || first.Content[0].Signature == "" || first.Content[1].Type != "tool_use" {
				t.Fatalf("first answer %+v, want thinking then tool_use", first.Content)
			}
			if last := msgs[len(msgs)-1]; last.Content[0].Type == "thinking" {
				t.Fatalf("without the interleaved beta the continuation thinks again: %+v", last.Content)
			}
			assertCleanJournal(t, ts, key, len(msgs))
			if name == "sse" {
				var deltas []string
				for _, e := range ts.Journal(key)[0].Events {
					if s := string(e.Data); strings.Contains(s, `"thinking_delta"`) || strings.Contains(s, `"signature_delta"`) {
						deltas = append(deltas, e.Event)
					}
				}
				if len(deltas) < 2 {
					t.Fatalf("stream carried %d thinking/signature deltas", len(deltas))
				}
			}

			// The same continuation, tampered with.
			p := thinkingParams("What's the weather in Paris? Use get_weather.")
			p.Messages = append(p.Messages, first.ToParam(), sdk.NewUserMessage(answer(first.Content[1])))
			p.Messages[1].OfAssistant.Content[0].OfThinking.Signature += "x"
			assertAPIError(t, send(client(ts, key+"-forged")), p, anthropic.RuleThinkingSignature,
				"messages.1.content.0: Invalid `signature` in `thinking` block")
			p.Messages[1].OfAssistant.Content = p.Messages[1].OfAssistant.Content[1:]
			assertAPIError(t, send(client(ts, key+"-dropped")), p, anthropic.RuleThinkingBlockFirst,
				"messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.")
		})
	}
}

// TestSDKInterleavedThinking: under the interleaved-thinking beta the
// model thinks again after tool results, and the budget may pass
// max_tokens.
func TestSDKInterleavedThinking(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	key := "interleaved"
	p := thinkingParams("What's the weather in Paris? Use get_weather.")
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(8192)
	msgs := loop(t, nonStreaming(client(ts, key, option.WithHeader("anthropic-beta", "interleaved-thinking-2025-05-14"))), p)
	for i, m := range msgs {
		if m.Content[0].Type != "thinking" {
			t.Fatalf("answer %d does not open with thinking: %+v", i, m.Content)
		}
	}
	assertCleanJournal(t, ts, key, len(msgs))
}

// TestSDKThinkingRequestRules: the request-level thinking 400s reach the
// SDK as the API's errors.
func TestSDKThinkingRequestRules(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	send := nonStreaming(client(ts, "thinking-rules"))
	p := thinkingParams("Paris?")
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(512)
	assertAPIError(t, send, p, anthropic.RuleThinkingBudgetMinimum, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(4096)
	assertAPIError(t, send, p, anthropic.RuleThinkingBudgetBelow, "`max_tokens` must be greater than `thinking.budget_tokens`.")
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(2048)
	p.ToolChoice = sdk.ToolChoiceParamOfTool("get_weather")
	assertAPIError(t, send, p, anthropic.RuleThinkingForcedChoice, "Thinking may not be enabled when tool_choice forces tool use.")
}

// assertAPIError sends p and expects the SDK's *Error with the rule's 400.
func assertAPIError(t *testing.T, send func(sdk.MessageNewParams) (*sdk.Message, error), p sdk.MessageNewParams, rule, wantPrefix string) {
	t.Helper()
	_, err := send(p)
	assertSDKRule(t, err, rule, wantPrefix)
}

// assertSDKRule expects err to be the SDK's *Error for the rule's 400.
func assertSDKRule(t *testing.T, err error, rule, wantPrefix string) {
	t.Helper()
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v, want an API error", err)
	}
	if apiErr.StatusCode != 400 || apiErr.Response.Header.Get("X-Toolwire-Rule") != rule {
		t.Fatalf("status %d rule %q, want 400 %s", apiErr.StatusCode, apiErr.Response.Header.Get("X-Toolwire-Rule"), rule)
	}
	if !strings.Contains(apiErr.Error(), wantPrefix) {
		t.Fatalf("error %q does not carry %q", apiErr.Error(), wantPrefix)
	}
}

// TestSDKThinkingOnceOpensTheLoop: without the interleaved beta the model
// thinks once, at the start of its turn; the later steps of a multi-step
// loop carry no thinking block, and the API accepts them because the turn
// opens with one (https://github.com/dust-tt/srchd/pull/41). Dropping that
// opening block is still the 400, at the message it was dropped from.
func TestSDKThinkingOnceOpensTheLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	key := "thinking-chain"
	send := nonStreaming(client(ts, key, option.WithHeader(mockprovider.ScenarioHeader, "multi-turn-chain")))
	p := thinkingParams("Find ada@example.com and list her open orders.")
	msgs := loop(t, send, p)
	if len(msgs) != 3 {
		t.Fatalf("%d answers, want 3 (two steps, then text)", len(msgs))
	}
	if msgs[0].Content[0].Type != "thinking" || msgs[1].Content[0].Type == "thinking" {
		t.Fatalf("want thinking on the first step only: %+v / %+v", msgs[0].Content, msgs[1].Content)
	}
	assertCleanJournal(t, ts, key, len(msgs))

	// The second step's request with the opening thinking block dropped.
	p = thinkingParams("Find ada@example.com and list her open orders.")
	opening := msgs[0].ToParam()
	opening.OfAssistant.Content = opening.OfAssistant.Content[1:]
	p.Messages = append(p.Messages, opening, sdk.NewUserMessage(answer(msgs[0].Content[1])),
		msgs[1].ToParam(), sdk.NewUserMessage(answer(lastToolUse(msgs[1]))))
	assertAPIError(t, send, p, anthropic.RuleThinkingBlockFirst,
		"messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.")
}

func lastToolUse(m *sdk.Message) sdk.ContentBlockUnion {
	for i := len(m.Content) - 1; i >= 0; i-- {
		if m.Content[i].Type == "tool_use" {
			return m.Content[i]
		}
	}
	return sdk.ContentBlockUnion{}
}

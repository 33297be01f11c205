package openaichat_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
)

// checkChoices asserts n choices of one reply: each at its index, each
// finished with finish, each with the same calls (names and arguments)
// under ids no other choice uses.
func checkChoices(t *testing.T, form string, choices []openai.ChatCompletionChoice, n int, finish string) {
	t.Helper()
	if len(choices) != n {
		t.Fatalf("%s: %d choices, want %d", form, len(choices), n)
	}
	seen := map[string]int{}
	for i, c := range choices {
		if c.Index != int64(i) || c.FinishReason != finish {
			t.Errorf("%s: choice %d has index %d, finish %q (want %q)", form, i, c.Index, c.FinishReason, finish)
		}
		if c.Message.Content != choices[0].Message.Content || len(c.Message.ToolCalls) != len(choices[0].Message.ToolCalls) {
			t.Errorf("%s: choice %d differs from choice 0: %+v", form, i, c.Message)
			continue
		}
		for k, call := range c.Message.ToolCalls {
			first := choices[0].Message.ToolCalls[k]
			if call.Function.Name != first.Function.Name || call.Function.Arguments != first.Function.Arguments {
				t.Errorf("%s: choice %d call %d is %+v, choice 0 has %+v", form, i, k, call.Function, first.Function)
			}
			if prev, dup := seen[call.ID]; dup || call.ID == "" {
				t.Errorf("%s: call id %q of choice %d is also choice %d's", form, call.ID, i, prev)
			}
			seen[call.ID] = i
		}
	}
}

// TestSDKChoicesWhole: n 3 answers three choices of the same call, each
// with its own call ids, and bills the completion tokens of all three; a
// tool loop that answers choices[0], as every SDK helper does, ends in
// text as with one choice, and the mock finds nothing wrong with it.
func TestSDKChoicesWhole(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key)

	one, err := client.Chat.Completions.New(context.Background(), weatherParams("What's the weather in Paris?"))
	if err != nil {
		t.Fatal(describe(err))
	}
	params := weatherParams("What's the weather in Paris?")
	params.N = openai.Int(3)
	final, seen := runLoop(t, client, params, weatherTool)
	if len(seen) != 2 {
		t.Fatalf("want call then answer, got %d completions", len(seen))
	}
	checkChoices(t, "calls", seen[0].Choices, 3, "tool_calls")
	checkChoices(t, "final", final.Choices, 3, "stop")
	if final.Choices[0].Message.Content == "" {
		t.Errorf("final answer without text: %s", final.RawJSON())
	}
	got, want := seen[0].Usage, one.Usage
	if got.CompletionTokens != 3*want.CompletionTokens || got.PromptTokens != want.PromptTokens || got.TotalTokens != got.PromptTokens+got.CompletionTokens {
		t.Errorf("usage with n 3 %+v; with one choice %+v", got, want)
	}
	if vs := ts.Violations(key); len(vs) != 0 {
		t.Errorf("violations: %v", vs)
	}
}

// TestSDKChoicesStreamed: streamed, every chunk's choice names its index
// and every choice gets its own finish_reason; the SDK's accumulator
// rebuilds the three choices, the usage chunk counts all of them, and a
// loop on choices[0] completes.
func TestSDKChoicesStreamed(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key)
	params := weatherParams("What's the weather in Paris?")
	params.N = openai.Int(3)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}

	whole, err := client.Chat.Completions.New(context.Background(), func() openai.ChatCompletionNewParams {
		p := params
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
		return p
	}())
	if err != nil {
		t.Fatal(describe(err))
	}
	acc := accumulate(t, client, params)
	checkChoices(t, "streamed", acc.Choices, 3, "tool_calls")
	if acc.Usage.CompletionTokens != whole.Usage.CompletionTokens || acc.Usage.TotalTokens != whole.Usage.TotalTokens {
		t.Errorf("streamed usage %+v, whole %+v", acc.Usage, whole.Usage)
	}
	finished := map[int64]int{}
	for _, ev := range lastEvents(t, ts, key) {
		if string(ev.Data) == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Index        *int64  `json:"index"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(ev.Data, &ch); err != nil {
			t.Fatalf("chunk %s: %v", ev.Data, err)
		}
		for _, c := range ch.Choices {
			if c.Index == nil {
				t.Fatalf("chunk without its choice's index: %s", ev.Data)
			}
			if c.FinishReason != nil {
				finished[*c.Index]++
			}
		}
	}
	if len(finished) != 3 || finished[0] != 1 || finished[1] != 1 || finished[2] != 1 {
		t.Errorf("finish_reason chunks per choice: %v", finished)
	}

	choice := acc.Choices[0]
	params.Messages = append(params.Messages, choice.Message.ToParam())
	for _, call := range choice.Message.ToolCalls {
		params.Messages = append(params.Messages, openai.ToolMessage(`{"temperature":19}`, call.ID))
	}
	acc = accumulate(t, client, params)
	checkChoices(t, "streamed final", acc.Choices, 3, "stop")
	if vs := ts.Violations(key); len(vs) != 0 {
		t.Errorf("violations: %v", vs)
	}
}

// TestSDKChoicesAboveMaximum: n above 128 is the API's 400, which the SDK
// returns as *openai.Error; 128 itself is answered.
func TestSDKChoicesAboveMaximum(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	params := weatherParams("Hi")
	params.N = openai.Int(130)
	_, err := client.Chat.Completions.New(context.Background(), params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want *openai.Error, got %v", err)
	}
	if apiErr.StatusCode != http.StatusBadRequest || apiErr.Message != "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 130 instead." ||
		apiErr.Param != "n" || apiErr.Code != "integer_above_max_value" || apiErr.Type != "invalid_request_error" {
		t.Errorf("error %d %s", apiErr.StatusCode, apiErr.RawJSON())
	}
	if got := apiErr.Response.Header.Get("X-Toolwire-Rule"); got != openaichat.RuleChoicesRange {
		t.Errorf("X-Toolwire-Rule %q", got)
	}
	params.N = openai.Int(128)
	resp, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	if len(resp.Choices) != 128 || resp.Choices[127].Index != 127 {
		t.Errorf("%d choices", len(resp.Choices))
	}
}

// TestChoicesBoundedWhenLenient: in lenient mode a huge n is journaled
// and answered with the API's most, 128 choices, so an answer never grows
// with the number a request names; n 0 answers one.
func TestChoicesBoundedWhenLenient(t *testing.T) {
	ts := mockprovider.NewTestServer(t, lenientOptions())
	key := sessionKey(t)
	for n, want := range map[string]int{"1000000000": 128, "0": 1} {
		a := post(t, ts.URL, key, []byte(`{"model":"gpt-4o-mini","n":`+n+`,"messages":[{"role":"user","content":"hi"}]}`), nil)
		var c struct {
			Choices []json.RawMessage `json:"choices"`
		}
		if err := json.Unmarshal(a.Body, &c); a.Status != http.StatusOK || err != nil || len(c.Choices) != want {
			t.Errorf("n %s: %d, %d choices (want %d): %v", n, a.Status, len(c.Choices), want, err)
		}
	}
	journaled := false
	for _, v := range ts.Violations(key) {
		journaled = journaled || v.Rule == openaichat.RuleChoicesRange
	}
	if !journaled {
		t.Errorf("n above 128 not journaled: %v", ts.Violations(key))
	}
}

package openaichat_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// accumulate streams one request through openai-go's accumulator, failing
// on any chunk the accumulator refuses.
func accumulate(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams, opts ...option.RequestOption) openai.ChatCompletionAccumulator {
	t.Helper()
	stream := client.Chat.Completions.NewStreaming(context.Background(), params, opts...)
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		if !acc.AddChunk(stream.Current()) {
			t.Fatalf("accumulator refused chunk %s", stream.Current().RawJSON())
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", describe(err))
	}
	return acc
}

// lastEvents is the streamed answer of the session's latest request.
func lastEvents(t *testing.T, ts *mockprovider.TestServer, key string) []session.Event {
	j := ts.Journal(key)
	if len(j) == 0 {
		t.Fatal("empty journal")
	}
	return j[len(j)-1].Events
}

func TestStreamToolLoop(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers []option.RequestOption
		maxFrag int
	}{
		{name: "default fragments", maxFrag: 12},
		{name: "one-byte fragments", headers: []option.RequestOption{option.WithHeader(mockprovider.StreamHeader, "fragment_size=1")}, maxFrag: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := mockprovider.NewTestServer(t, mockprovider.Options{})
			key := sessionKey(t)
			client := newClient(ts, key, tc.headers...)
			params := weatherParams("Weather in Lisbon?")

			acc := accumulate(t, client, params)
			choice := acc.Choices[0]
			if choice.FinishReason != "tool_calls" || len(choice.Message.ToolCalls) != 1 {
				t.Fatalf("accumulated: %+v", acc.ChatCompletion)
			}
			call := choice.Message.ToolCalls[0]
			var args map[string]any
			if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || call.Function.Name != "get_weather" || !strings.HasPrefix(call.ID, "call_") {
				t.Fatalf("accumulated call %+v: %v", call, err)
			}
			assertChunkShapes(t, lastEvents(t, ts, key), call.Function.Arguments, tc.maxFrag)

			params.Messages = append(params.Messages, choice.Message.ToParam(), openai.ToolMessage(`{"temperature":19}`, call.ID))
			acc = accumulate(t, client, params)
			if got := acc.Choices[0].Message.Content; acc.Choices[0].FinishReason != "stop" || !strings.Contains(got, "temperature") {
				t.Errorf("final streamed answer %q (finish %q)", got, acc.Choices[0].FinishReason)
			}
			if vs := ts.Violations(key); len(vs) != 0 {
				t.Errorf("violations: %v", vs)
			}
		})
	}
}

// assertChunkShapes checks the call's chunks against the recorded shape:
// the first carries role, id, type, name and empty arguments; the rest
// carry only argument fragments no longer than maxFrag; [DONE] ends it.
func assertChunkShapes(t *testing.T, events []session.Event, args string, maxFrag int) {
	t.Helper()
	if n := len(events); n < 3 || string(events[n-1].Data) != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %d events", n)
	}
	type toolDelta struct {
		Index    *int    `json:"index"`
		ID       *string `json:"id"`
		Type     *string `json:"type"`
		Function struct {
			Name      *string `json:"name"`
			Arguments *string `json:"arguments"`
		} `json:"function"`
	}
	var rebuilt strings.Builder
	fragments := 0
	for i, ev := range events[:len(events)-1] {
		var ch struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Role      *string     `json:"role"`
					ToolCalls []toolDelta `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(ev.Data, &ch); err != nil || ch.Object != "chat.completion.chunk" || len(ch.Choices) != 1 {
			t.Fatalf("event %d: %s", i, ev.Data)
		}
		d := ch.Choices[0].Delta
		if i == 0 {
			// content and refusal must be present and null (a pointer
			// field cannot tell null from absent, so read the raw delta).
			var raw struct {
				Choices []struct {
					Delta map[string]json.RawMessage `json:"delta"`
				} `json:"choices"`
			}
			_ = json.Unmarshal(ev.Data, &raw)
			rd := raw.Choices[0].Delta
			if d.Role == nil || *d.Role != "assistant" || string(rd["content"]) != "null" || string(rd["refusal"]) != "null" || len(d.ToolCalls) != 1 {
				t.Fatalf("first chunk: %s", ev.Data)
			}
			tc := d.ToolCalls[0]
			if tc.ID == nil || tc.Type == nil || tc.Function.Name == nil || tc.Function.Arguments == nil || *tc.Function.Arguments != "" || *tc.Index != 0 {
				t.Fatalf("first call chunk: %s", ev.Data)
			}
			continue
		}
		if len(d.ToolCalls) == 1 {
			tc := d.ToolCalls[0]
			if tc.ID != nil || tc.Type != nil || tc.Function.Name != nil || d.Role != nil {
				t.Errorf("argument chunk repeats call metadata: %s", ev.Data)
			}
			if l := len(*tc.Function.Arguments); l > maxFrag {
				t.Errorf("fragment of %d bytes > %d", l, maxFrag)
			}
			rebuilt.WriteString(*tc.Function.Arguments)
			fragments++
		}
	}
	if rebuilt.String() != args {
		t.Errorf("fragments rebuild %q, want %q", rebuilt.String(), args)
	}
	if maxFrag == 1 && fragments != len(args) {
		t.Errorf("%d fragments for %d bytes at fragment_size=1", fragments, len(args))
	}
}

func TestStreamIncludeUsage(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	params := openai.ChatCompletionNewParams{Model: sdkModel, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	acc := accumulate(t, newClient(ts, key), params)
	if acc.Usage.TotalTokens == 0 || acc.Usage.TotalTokens != acc.Usage.PromptTokens+acc.Usage.CompletionTokens {
		t.Errorf("usage not accumulated: %+v", acc.Usage)
	}
	if acc.Choices[0].Message.Content == "" || acc.Choices[0].FinishReason != "stop" {
		t.Errorf("text answer: %+v", acc.Choices[0])
	}
	events := lastEvents(t, ts, key)
	usageChunk := events[len(events)-2].Data
	var ch map[string]json.RawMessage
	_ = json.Unmarshal(usageChunk, &ch)
	if string(ch["choices"]) != "[]" || len(ch["usage"]) < 10 {
		t.Errorf("usage chunk: %s", usageChunk)
	}
	var first map[string]json.RawMessage
	_ = json.Unmarshal(events[0].Data, &first)
	if string(first["usage"]) != "null" {
		t.Errorf("chunks before the usage chunk must carry usage null: %s", events[0].Data)
	}

	// Without include_usage no chunk mentions usage.
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	accumulate(t, newClient(ts, key), params)
	for _, ev := range lastEvents(t, ts, key) {
		if strings.Contains(string(ev.Data), `"usage"`) {
			t.Fatalf("usage sent without include_usage: %s", ev.Data)
		}
	}
}

// TestStreamForcedToolChoice: a call forced by name finishes with "stop"
// (recorded quirk), in streams and in plain answers.
func TestStreamForcedToolChoice(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	params := weatherParams("Anything")
	params.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfFunctionToolChoice: &openai.ChatCompletionNamedToolChoiceParam{
		Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "get_weather"}}}
	acc := accumulate(t, client, params)
	if acc.Choices[0].FinishReason != "stop" || len(acc.Choices[0].Message.ToolCalls) != 1 {
		t.Errorf("streamed forced call: finish %q, %d calls", acc.Choices[0].FinishReason, len(acc.Choices[0].Message.ToolCalls))
	}
	resp, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	if resp.Choices[0].FinishReason != "stop" || len(resp.Choices[0].Message.ToolCalls) != 1 {
		t.Errorf("forced call: finish %q", resp.Choices[0].FinishReason)
	}
}

// TestStreamParallelAndText: text first, then two calls with their own
// indexes, all reassembled by the accumulator.
func TestStreamParallelAndText(t *testing.T) {
	ts := scenarioServer(t)
	client := newClient(ts, sessionKey(t), option.WithHeader(mockprovider.ScenarioHeader, "parallel-weather"), option.WithHeader(mockprovider.StreamHeader, "fragment_size=3"))
	acc := accumulate(t, client, weatherParams("Paris and Rome?"))
	msg := acc.Choices[0].Message
	if msg.Content != "Checking both." || len(msg.ToolCalls) != 2 || acc.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("accumulated: %+v", acc.ChatCompletion)
	}
	if msg.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` || msg.ToolCalls[1].Function.Arguments != `{"city":"Rome"}` {
		t.Errorf("arguments: %q %q", msg.ToolCalls[0].Function.Arguments, msg.ToolCalls[1].Function.Arguments)
	}
}

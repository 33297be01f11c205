package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// A 1×1 transparent PNG, the image a tool returns.
const pixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

func client(ts *mockprovider.TestServer, key string, opts ...option.RequestOption) sdk.Client {
	base := []option.RequestOption{option.WithBaseURL(ts.AnthropicBaseURL()), option.WithAPIKey(key), option.WithMaxRetries(0)}
	return sdk.NewClient(append(base, opts...)...)
}

func weatherTools() []sdk.ToolUnionParam {
	return []sdk.ToolUnionParam{
		{OfTool: &sdk.ToolParam{
			Name:        "get_weather",
			Description: sdk.String("Get current weather for a location."),
			InputSchema: sdk.ToolInputSchemaParam{
				Properties: map[string]any{"location": map[string]any{"type": "string"}},
				Required:   []string{"location"},
			},
		}},
		{OfTool: &sdk.ToolParam{
			Name:        "get_chart",
			Description: sdk.String("Render a weather chart for a location."),
			InputSchema: sdk.ToolInputSchemaParam{
				Properties: map[string]any{"location": map[string]any{"type": "string"}},
				Required:   []string{"location"},
			},
		}},
	}
}

func newParams(prompt string) sdk.MessageNewParams {
	return sdk.MessageNewParams{
		Model:     "claude-haiku-4-5",
		MaxTokens: 1024,
		Tools:     weatherTools(),
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(prompt))},
	}
}

// answer runs the "tools" of the tests: get_weather fails for Atlantis
// (is_error), get_chart returns text plus an image.
func answer(b sdk.ContentBlockUnion) sdk.ContentBlockParamUnion {
	var args struct {
		Location string `json:"location"`
	}
	_ = json.Unmarshal(b.Input, &args)
	switch {
	case b.Name == "get_chart":
		return sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
			ToolUseID: b.ID,
			Content: []sdk.ToolResultBlockParamContentUnion{
				{OfText: &sdk.TextBlockParam{Text: "chart for " + args.Location}},
				{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{
					OfBase64: &sdk.Base64ImageSourceParam{Data: pixelPNG, MediaType: sdk.Base64ImageSourceMediaTypeImagePNG},
				}}},
			},
		}}
	case strings.Contains(args.Location, "Atlantis"):
		return sdk.NewToolResultBlock(b.ID, "unknown location: "+args.Location, true)
	}
	return sdk.NewToolResultBlock(b.ID, `{"location":"`+args.Location+`","temperature":18}`, false)
}

// loop drives a tool loop to its final answer with the SDK, the way an
// agent does: replay the assistant message, answer every tool_use.
func loop(t *testing.T, send func(sdk.MessageNewParams) (*sdk.Message, error), p sdk.MessageNewParams) []*sdk.Message {
	t.Helper()
	var out []*sdk.Message
	for turn := 0; turn < 5; turn++ {
		msg, err := send(p)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		out = append(out, msg)
		p.Messages = append(p.Messages, msg.ToParam())
		var results []sdk.ContentBlockParamUnion
		for _, b := range msg.Content {
			if b.Type == "tool_use" {
				results = append(results, answer(b))
			}
		}
		if len(results) == 0 {
			if msg.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("final turn stop_reason %q, want end_turn", msg.StopReason)
			}
			return out
		}
		if msg.StopReason != sdk.StopReasonToolUse {
			t.Fatalf("turn %d with calls: stop_reason %q, want tool_use", turn, msg.StopReason)
		}
		p.Messages = append(p.Messages, sdk.NewUserMessage(results...))
	}
	t.Fatal("tool loop did not end")
	return nil
}

func nonStreaming(c sdk.Client, opts ...option.RequestOption) func(sdk.MessageNewParams) (*sdk.Message, error) {
	return func(p sdk.MessageNewParams) (*sdk.Message, error) {
		return c.Messages.New(context.Background(), p, opts...)
	}
}

func streaming(c sdk.Client, opts ...option.RequestOption) func(sdk.MessageNewParams) (*sdk.Message, error) {
	return func(p sdk.MessageNewParams) (*sdk.Message, error) {
		s := c.Messages.NewStreaming(context.Background(), p, opts...)
		defer s.Close()
		var msg sdk.Message
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				return nil, err
			}
		}
		if err := s.Err(); err != nil {
			return nil, err
		}
		return &msg, nil
	}
}

// assertCleanJournal: every request of the session was answered 200 with
// no violation at all.
func assertCleanJournal(t *testing.T, ts *mockprovider.TestServer, key string, want int) {
	t.Helper()
	j := ts.Journal(key)
	if len(j) != want {
		t.Fatalf("journal has %d entries, want %d", len(j), want)
	}
	for _, e := range j {
		if e.Status != 200 || len(e.Violations) > 0 {
			t.Fatalf("entry %d: status %d violations %v", e.Seq, e.Status, e.Violations)
		}
	}
}

func TestSDKToolLoopDefaultModel(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	key := "sdk-default"
	msgs := loop(t, nonStreaming(client(ts, key)), newParams("What's the weather in Paris?"))
	if len(msgs) != 2 {
		t.Fatalf("%d turns, want 2", len(msgs))
	}
	first := msgs[0]
	if !strings.HasPrefix(first.ID, "msg_01") || first.Role != "assistant" || first.Model != "claude-haiku-4-5" {
		t.Errorf("message header: id %q role %q model %q", first.ID, first.Role, first.Model)
	}
	call := first.Content[0]
	if call.Type != "tool_use" || call.Name != "get_weather" || !strings.HasPrefix(call.ID, "toolu_01") {
		t.Fatalf("first block %+v, want a get_weather tool_use with a toolu_01 id", call)
	}
	var args map[string]any
	if err := json.Unmarshal(call.Input, &args); err != nil || args["location"] == nil {
		t.Fatalf("input %s: want the required location synthesized", call.Input)
	}
	final := msgs[1].Content[0].Text
	if !strings.Contains(final, "temperature") {
		t.Errorf("final text %q does not quote the tool result", final)
	}
	if msgs[1].Usage.InputTokens <= 0 || msgs[1].Usage.OutputTokens <= 0 {
		t.Errorf("usage %+v", msgs[1].Usage)
	}
	assertCleanJournal(t, ts, key, 2)
}

func TestSDKToolLoopScenarioSingleCall(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	key := "sdk-single-call"
	c := client(ts, key, option.WithHeader(mockprovider.ScenarioHeader, "single-call"))
	msgs := loop(t, nonStreaming(c), newParams("What's the weather in Tokyo?"))
	if got := string(msgs[0].Content[0].Input); got != `{"location":"Tokyo, Japan"}` {
		t.Errorf("scripted arguments %s", got)
	}
	if !strings.HasPrefix(msgs[1].Content[0].Text, "The weather: get_weather:") {
		t.Errorf("final text %q", msgs[1].Content[0].Text)
	}
	assertCleanJournal(t, ts, key, 2)
}

// parallelScenarios adds a test-local scenario with text plus three
// parallel calls: one ordinary, one failing (is_error), one returning an
// image.
func parallelScenarios(t testing.TB) mockprovider.Options {
	set, err := mockprovider.BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	err = set.Add(&scenario.Scenario{
		Name: "anthropic-parallel",
		Turns: []scenario.Turn{
			{Text: "Let me look that up.", Calls: []scenario.Call{
				{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}},
				{Name: "get_weather", Arguments: map[string]any{"location": "Atlantis"}},
				{Name: "get_chart", Arguments: map[string]any{"location": "Paris"}},
			}},
			{Text: "Results: {{results}}"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mockprovider.Options{Scenarios: set}
}

func TestSDKParallelCallsErrorAndImageResult(t *testing.T) {
	for _, mode := range []struct {
		name   string
		stream bool
	}{{"json", false}, {"stream", true}} {
		t.Run(mode.name, func(t *testing.T) {
			ts := newServer(t, parallelScenarios(t))
			key := "sdk-parallel-" + mode.name
			c := client(ts, key, option.WithHeader(mockprovider.ScenarioHeader, "anthropic-parallel"))
			send := nonStreaming(c)
			if mode.stream {
				send = streaming(c)
			}
			msgs := loop(t, send, newParams("Weather and chart for Paris, and Atlantis?"))
			first := msgs[0]
			if len(first.Content) != 4 || first.Content[0].Type != "text" {
				t.Fatalf("want text + 3 tool_use blocks, got %+v", first.Content)
			}
			ids := map[string]bool{}
			for _, b := range first.Content[1:] {
				if b.Type != "tool_use" || ids[b.ID] {
					t.Fatalf("block %+v: want tool_use with a fresh id", b)
				}
				ids[b.ID] = true
			}
			final := msgs[1].Content[0].Text
			for _, want := range []string{"error get_weather:", "unknown location: Atlantis", "[image image/png]", `temperature\":18`} {
				if !strings.Contains(final, want) {
					t.Errorf("final text %q lacks %q", final, want)
				}
			}
			assertCleanJournal(t, ts, key, 2)
			// The decoded results keep the error flag and the image.
			conv2 := ts.Journal(key)[1].Conversation
			results := conv2.LastTurn().Results()
			if len(results) != 3 || !results[1].IsError || results[2].Content[1].Type != conv.ContentImage || results[2].Content[1].MIMEType != "image/png" {
				t.Fatalf("decoded results %+v", results)
			}
		})
	}
}

// TestSDKStreamingAccumulate: the SDK's accumulator rebuilds the same
// message from the stream at the default fragment size and at one byte per
// fragment, and the events follow the API's order.
func TestSDKStreamingAccumulate(t *testing.T) {
	ts := newServer(t, parallelScenarios(t))
	refClient := client(ts, "stream-ref", option.WithHeader(mockprovider.ScenarioHeader, "anthropic-parallel"))
	ref, err := refClient.Messages.New(context.Background(), newParams("Paris?"))
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{"", "fragment_size=1"} {
		t.Run("fragments="+frag, func(t *testing.T) {
			key := "stream-" + frag
			opts := []option.RequestOption{option.WithHeader(mockprovider.ScenarioHeader, "anthropic-parallel")}
			if frag != "" {
				opts = append(opts, option.WithHeader(mockprovider.StreamHeader, frag))
			}
			msg, err := streaming(client(ts, key, opts...))(newParams("Paris?"))
			if err != nil {
				t.Fatal(err)
			}
			if msg.StopReason != sdk.StopReasonToolUse || len(msg.Content) != len(ref.Content) {
				t.Fatalf("stop %q, %d blocks; want tool_use, %d blocks", msg.StopReason, len(msg.Content), len(ref.Content))
			}
			if msg.Content[0].Text != ref.Content[0].Text {
				t.Errorf("text %q, want %q", msg.Content[0].Text, ref.Content[0].Text)
			}
			for i := 1; i < len(msg.Content); i++ {
				if string(msg.Content[i].Input) != string(ref.Content[i].Input) || msg.Content[i].Name != ref.Content[i].Name {
					t.Errorf("block %d: input %s name %s, want %s %s", i, msg.Content[i].Input, msg.Content[i].Name, ref.Content[i].Input, ref.Content[i].Name)
				}
			}
			if msg.Usage.OutputTokens != ref.Usage.OutputTokens {
				t.Errorf("cumulative output_tokens %d, want %d", msg.Usage.OutputTokens, ref.Usage.OutputTokens)
			}
			events := ts.Journal(key)[0].Events
			var names []string
			for _, e := range events {
				if len(names) == 0 || names[len(names)-1] != e.Event {
					names = append(names, e.Event)
				}
			}
			want := "message_start content_block_start ping content_block_delta content_block_stop " +
				strings.Repeat("content_block_start content_block_delta content_block_stop ", 3) + "message_delta message_stop"
			if got := strings.Join(names, " "); got != want {
				t.Errorf("event order:\n got %s\nwant %s", got, want)
			}
			// First input delta of each tool_use is empty; with one-byte
			// fragments every other delta is one byte.
			prevStart := false
			for _, e := range events {
				var ev struct {
					Type  string `json:"type"`
					Delta struct {
						Type        string  `json:"type"`
						PartialJSON *string `json:"partial_json"`
						Text        *string `json:"text"`
					} `json:"delta"`
				}
				_ = json.Unmarshal(e.Data, &ev)
				if ev.Delta.Type == "input_json_delta" {
					if prevStart && *ev.Delta.PartialJSON != "" {
						t.Errorf("first input_json_delta %q, want empty", *ev.Delta.PartialJSON)
					}
					if frag != "" && !prevStart && len(*ev.Delta.PartialJSON) != 1 {
						t.Errorf("fragment %q is not one byte", *ev.Delta.PartialJSON)
					}
				}
				if frag != "" && ev.Delta.Type == "text_delta" && len(*ev.Delta.Text) != 1 {
					t.Errorf("text fragment %q is not one byte", *ev.Delta.Text)
				}
				prevStart = ev.Type == "content_block_start"
			}
		})
	}
}

func TestSDKStreamingToolLoopOneByteFragments(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	key := "stream-loop"
	c := client(ts, key, option.WithHeader(mockprovider.StreamHeader, "fragment_size=1"))
	msgs := loop(t, streaming(c), newParams("What's the weather in Paris?"))
	if len(msgs) != 2 || !strings.Contains(msgs[1].Content[0].Text, "temperature") {
		t.Fatalf("loop ended with %+v", msgs[len(msgs)-1].Content)
	}
	assertCleanJournal(t, ts, key, 2)
}

func TestSDKStatusFaults(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, tc := range []struct {
		kind    string
		status  int
		errType string
	}{
		{"rate_limit", 429, "rate_limit_error"},
		{"overloaded", 529, "overloaded_error"},
		{"server_error", 500, "api_error"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			c := client(ts, "fault-"+tc.kind, option.WithHeader(mockprovider.FaultHeader, tc.kind))
			_, err := c.Messages.New(context.Background(), newParams("Paris?"))
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T), want *anthropic.Error", err, err)
			}
			if apiErr.StatusCode != tc.status || string(apiErr.Type()) != tc.errType || !strings.HasPrefix(apiErr.RequestID, "req_") {
				t.Fatalf("status %d type %q request id %q, want %d %q req_…", apiErr.StatusCode, apiErr.Type(), apiErr.RequestID, tc.status, tc.errType)
			}
			if tc.kind == "rate_limit" {
				h := apiErr.Response.Header
				if h.Get("retry-after") == "" || h.Get("anthropic-ratelimit-requests-remaining") != "0" || h.Get("anthropic-ratelimit-requests-reset") == "" {
					t.Errorf("rate-limit headers missing: %v", h)
				}
			}
		})
	}
}

// TestSDKRetriesOverloadedOnce: the SDK retries a 529 and succeeds on the
// second attempt; the journal shows both.
func TestSDKRetriesOverloadedOnce(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	key := "fault-retry"
	c := client(ts, key, option.WithMaxRetries(2), option.WithHeader(mockprovider.FaultHeader, "overloaded;count=1"))
	msg, err := c.Messages.New(context.Background(), newParams("Paris?"))
	if err != nil {
		t.Fatalf("retry did not succeed: %v", err)
	}
	if msg.StopReason != sdk.StopReasonToolUse {
		t.Errorf("stop_reason %q", msg.StopReason)
	}
	j := ts.Journal(key)
	if len(j) != 2 || j[0].Status != 529 || j[0].Fault != "overloaded" || j[1].Status != 200 {
		t.Fatalf("journal: %d entries %+v", len(j), j)
	}
}

// TestSDKStreamFaults: a stream broken by an in-stream error event, a
// dropped connection or a corrupted event ends in a stream error.
func TestSDKStreamFaults(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, kind := range []string{"stream_error", "disconnect", "malformed_chunk"} {
		t.Run(kind, func(t *testing.T) {
			c := client(ts, "stream-fault-"+kind, option.WithHeader(mockprovider.FaultHeader, kind+";after=3"))
			_, err := streaming(c)(newParams("Paris?"))
			if err == nil {
				t.Fatal("stream ended without error")
			}
			t.Logf("stream error: %v", err)
			if kind == "stream_error" {
				var apiErr *sdk.Error
				if !errors.As(err, &apiErr) || apiErr.Type() != "overloaded_error" {
					t.Fatalf("error %v (%T), want an overloaded_error *anthropic.Error", err, err)
				}
			}
		})
	}
}

package openairesp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
)

// streamed is what a client can gather from one response stream.
type streamed struct {
	types     []string
	argDeltas map[string][]string // item id → argument fragments
	argsDone  map[string]string
	textDelta []string
	text      string
	summary   string
	completed *responses.Response
}

// consume reads a stream with the SDK, checking the framing every event
// must satisfy: response.created first, sequence numbers 0, 1, 2, ….
func consume(t *testing.T, stream interface {
	Next() bool
	Current() responses.ResponseStreamEventUnion
	Err() error
}) (*streamed, error) {
	t.Helper()
	s := &streamed{argDeltas: map[string][]string{}, argsDone: map[string]string{}}
	for stream.Next() {
		ev := stream.Current()
		if len(s.types) == 0 && ev.Type != "response.created" {
			t.Errorf("first event %s, want response.created", ev.Type)
		}
		if ev.SequenceNumber != int64(len(s.types)) {
			t.Errorf("event %d (%s) has sequence_number %d", len(s.types), ev.Type, ev.SequenceNumber)
		}
		s.types = append(s.types, ev.Type)
		switch ev.Type {
		case "response.function_call_arguments.delta":
			s.argDeltas[ev.ItemID] = append(s.argDeltas[ev.ItemID], ev.Delta)
		case "response.function_call_arguments.done":
			s.argsDone[ev.ItemID] = ev.Arguments
		case "response.output_text.delta":
			s.textDelta = append(s.textDelta, ev.Delta)
		case "response.output_text.done":
			s.text = ev.Text
		case "response.reasoning_summary_text.done":
			s.summary = ev.Text
		case "response.completed":
			r := ev.Response
			s.completed = &r
		}
	}
	return s, stream.Err()
}

func TestSDKStreamingToolLoop(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fragment string // X-Toolwire-Stream header
		maxRunes int
	}{
		{"default fragments", "", 12},
		{"1-byte fragments", "fragment_size=1", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := mockprovider.NewTestServer(t, mockprovider.Options{Scenarios: scenarios(t)})
			key := "sk-stream-" + strings.ReplaceAll(tc.name, " ", "-")
			opts := []option.RequestOption{option.WithHeader(mockprovider.ScenarioHeader, "parallel")}
			if tc.fragment != "" {
				opts = append(opts, option.WithHeader(mockprovider.StreamHeader, tc.fragment))
			}
			c := client(ts, key, opts...)
			ctx := context.Background()
			tools := []responses.ToolUnionParam{weatherTool(), timeTool()}
			first, err := consume(t, c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: inputList(userText("Paris?"))}))
			if err != nil || first.completed == nil {
				t.Fatalf("stream: %v (events %v)", err, first.types)
			}
			cs := calls(first.completed)
			if len(cs) != 2 || first.completed.Output[0].Type != "reasoning" || first.summary != "Two lookups are needed." {
				t.Fatalf("completed %s", first.completed.RawJSON())
			}
			for _, call := range cs {
				frags := first.argDeltas[call.ID]
				if strings.Join(frags, "") != call.Arguments || first.argsDone[call.ID] != call.Arguments {
					t.Errorf("%s: deltas %q, done %q, item %q", call.ID, frags, first.argsDone[call.ID], call.Arguments)
				}
				for _, f := range frags {
					if utf8.RuneCountInString(f) > tc.maxRunes || f == "" {
						t.Errorf("fragment %q longer than %d", f, tc.maxRunes)
					}
				}
			}
			for _, want := range []string{"response.in_progress", "response.output_item.added", "response.output_item.done", "response.reasoning_summary_part.added"} {
				if !contains(first.types, want) {
					t.Errorf("no %s event in %v", want, first.types)
				}
			}

			// The streamed response is stored: retrievable and continuable.
			got, err := c.Responses.Get(ctx, first.completed.ID, responses.ResponseGetParams{})
			if err != nil || got.ID != first.completed.ID || len(calls(got)) != 2 {
				t.Fatalf("get: %v", err)
			}
			final, err := consume(t, c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools,
				PreviousResponseID: openai.String(first.completed.ID),
				Input:              inputList(output(cs[0].CallID, "rainy"), output(cs[1].CallID, "noon"))}))
			if err != nil || final.completed == nil {
				t.Fatalf("continuation: %v", err)
			}
			if strings.Join(final.textDelta, "") != final.text || final.completed.OutputText() != final.text || !strings.Contains(final.text, "rainy") {
				t.Errorf("text deltas %q, done %q, completed %q", final.textDelta, final.text, final.completed.OutputText())
			}
			for _, f := range final.textDelta {
				if utf8.RuneCountInString(f) > tc.maxRunes {
					t.Errorf("text fragment %q longer than %d", f, tc.maxRunes)
				}
			}
			for _, want := range []string{"response.content_part.added", "response.content_part.done", "response.output_text.done"} {
				if !contains(final.types, want) {
					t.Errorf("no %s event in %v", want, final.types)
				}
			}
			noViolations(t, ts, key)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSDKStatusFaults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, tc := range []struct {
		kind   string
		status int
	}{{"rate_limit", 429}, {"overloaded", 503}, {"server_error", 500}} {
		t.Run(tc.kind, func(t *testing.T) {
			c := client(ts, "sk-fault-"+tc.kind, option.WithHeader(mockprovider.FaultHeader, tc.kind))
			_, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Hi"))})
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.Message == "" {
				t.Fatalf("got %v, want *openai.Error with status %d", err, tc.status)
			}
			if tc.kind == "rate_limit" && apiErr.Response.Header.Get("Retry-After") == "" {
				t.Error("rate limit without Retry-After")
			}
		})
	}
}

// TestSDKRetrySucceeds: one injected 500, the SDK's own retry gets the
// answer on attempt 2, and the journal shows both requests.
func TestSDKRetrySucceeds(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-retry", option.WithMaxRetries(2), option.WithHeader(mockprovider.FaultHeader, "server_error;count=1"))
	r, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Hi"))})
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputText() == "" {
		t.Errorf("response %s", r.RawJSON())
	}
	journal := ts.Journal("sk-retry")
	if len(journal) != 2 || journal[0].Status != http.StatusInternalServerError || journal[1].Status != http.StatusOK {
		t.Fatalf("journal has %d entries: %+v", len(journal), journal)
	}
}

func TestSDKStreamFaults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, kind := range []string{"stream_error", "disconnect", "malformed_chunk"} {
		for _, after := range []string{"0", "3"} {
			t.Run(kind+"/after="+after, func(t *testing.T) {
				key := "sk-sfault-" + kind + after
				c := client(ts, key, option.WithHeader(mockprovider.FaultHeader, kind+";after="+after))
				s, err := consume(t, c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
					Model: "gpt-4.1", Tools: []responses.ToolUnionParam{weatherTool()}, Input: inputList(userText("Weather?"))}))
				if err == nil {
					t.Fatalf("stream ended cleanly after %v", s.types)
				}
				if s.completed != nil {
					t.Error("a broken stream still completed")
				}
				if kind == "stream_error" && !strings.Contains(err.Error(), "overloaded") {
					t.Errorf("stream error %v does not carry the error message", err)
				}
			})
		}
	}
	// The journal keeps the in-stream error and the terminal
	// response.failed, numbered after the events before them.
	journal := ts.Journal("sk-sfault-stream_error3")
	events := journal[len(journal)-1].Events
	if len(events) != 5 || events[3].Event != "error" || events[4].Event != "response.failed" {
		t.Fatalf("events %+v", events)
	}
	if !strings.Contains(string(events[3].Data), `"sequence_number":3`) || !strings.Contains(string(events[3].Data), `"error":{"type":"server_error"`) ||
		!strings.Contains(string(events[4].Data), `"status":"failed"`) {
		t.Errorf("error events %s / %s", events[3].Data, events[4].Data)
	}
}

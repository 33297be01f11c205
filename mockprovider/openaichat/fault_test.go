package openaichat_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/toolwire/toolwire/mockprovider"
)

func TestFaultStatuses(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, tc := range []struct {
		kind   string
		status int
		typ    string
	}{
		{"rate_limit", http.StatusTooManyRequests, "requests"},
		{"overloaded", http.StatusServiceUnavailable, "server_error"},
		{"server_error", http.StatusInternalServerError, "server_error"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			client := newClient(ts, sessionKey(t), option.WithMaxRetries(0), option.WithHeader(mockprovider.FaultHeader, tc.kind))
			_, err := client.Chat.Completions.New(context.Background(), weatherParams("hi"))
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("want *openai.Error, got %v", err)
			}
			if apiErr.StatusCode != tc.status || apiErr.Type != tc.typ || apiErr.Message == "" {
				t.Errorf("got %d %s", apiErr.StatusCode, apiErr.RawJSON())
			}
			if tc.kind == "rate_limit" && apiErr.Response.Header.Get("Retry-After") == "" {
				t.Error("rate limit without Retry-After")
			}
		})
	}
}

// TestFaultRetrySucceeds: one injected 500, and the SDK's own retry gets
// the answer on the second attempt.
func TestFaultRetrySucceeds(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key, option.WithHeader(mockprovider.FaultHeader, "server_error;count=1"))
	resp, err := client.Chat.Completions.New(context.Background(), weatherParams("hi"))
	if err != nil {
		t.Fatalf("retry did not recover: %v", describe(err))
	}
	if len(resp.Choices[0].Message.ToolCalls) != 1 {
		t.Errorf("answer after retry: %s", resp.RawJSON())
	}
	j := ts.Journal(key)
	if len(j) != 2 || j[0].Status != http.StatusInternalServerError || j[0].Fault != "server_error" || j[1].Status != http.StatusOK {
		t.Errorf("journal: want 500 then 200, got %d entries", len(j))
	}
}

// TestStreamFaults: mid-stream failures surface as stream errors, never as
// a silently truncated answer.
func TestStreamFaults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, kind := range []string{"stream_error", "disconnect", "malformed_chunk"} {
		t.Run(kind, func(t *testing.T) {
			client := newClient(ts, sessionKey(t), option.WithMaxRetries(0), option.WithHeader(mockprovider.FaultHeader, kind+";after=2"))
			stream := client.Chat.Completions.NewStreaming(context.Background(), weatherParams("Weather in Paris?"))
			defer stream.Close()
			n := 0
			for stream.Next() {
				n++
			}
			err := stream.Err()
			if err == nil {
				t.Fatalf("stream ended cleanly after %d chunks", n)
			}
			if n != 2 {
				t.Errorf("fault after=2 but %d chunks arrived", n)
			}
			if kind == "stream_error" {
				var se *ssestream.StreamError
				if !errors.As(err, &se) {
					t.Fatalf("want *ssestream.StreamError, got %T %v", err, err)
				}
			}
		})
	}
}

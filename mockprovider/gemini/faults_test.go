package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
)

func hello() []*genai.Content {
	return []*genai.Content{genai.NewContentFromText("hello", genai.RoleUser)}
}

// TestSDKFaults: injected failures reach go-genai as the APIError the real
// API would produce.
func TestSDKFaults(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, tc := range []struct {
		fault  string
		code   int
		status string
		msg    string
	}{
		{"rate_limit", 429, "RESOURCE_EXHAUSTED", "You exceeded your current quota"},
		{"overloaded", 503, "UNAVAILABLE", "The model is overloaded. Please try again later."},
		{"server_error", 500, "INTERNAL", "An internal error has occurred."},
	} {
		client := newClient(t, ts, "fault-"+tc.fault, map[string]string{mockprovider.FaultHeader: tc.fault}, nil)
		_, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", hello(), nil)
		ae := apiError(t, err)
		if ae.Code != tc.code || ae.Status != tc.status || !strings.HasPrefix(ae.Message, tc.msg) {
			t.Errorf("%s: %+v", tc.fault, ae)
		}
		if tc.fault == "rate_limit" {
			found := false
			for _, d := range ae.Details {
				found = found || d["@type"] == "type.googleapis.com/google.rpc.RetryInfo" && d["retryDelay"] != ""
			}
			if !found {
				t.Errorf("rate_limit: no RetryInfo detail in %+v", ae.Details)
			}
		}
	}
	// The raw answer carries Retry-After too.
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "raw-429", []byte(`{"contents":[{"parts":[{"text":"hi"}]}]}`), map[string]string{mockprovider.FaultHeader: "rate_limit"})
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("rate_limit raw: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	parseGoogleError(t, resp.StatusCode, b)
}

// TestSDKRetryAfterOverload: one overloaded answer, then success, through
// go-genai's own retry (HTTPOptions.RetryOptions, which retries 503 by
// default; delays zeroed so the test does not sleep).
func TestSDKRetryAfterOverload(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	zero := 0.0
	attempts := int32(2)
	retry := &genai.HTTPRetryOptions{Attempts: &attempts, InitialDelay: &zero, MaxDelay: &zero, Jitter: &zero}
	client := newClient(t, ts, "retry", map[string]string{mockprovider.FaultHeader: "overloaded;count=1"}, retry)
	resp, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", hello(), nil)
	if err != nil {
		t.Fatalf("retry did not succeed: %v", err)
	}
	if resp.Text() == "" {
		t.Fatal("empty answer after retry")
	}
	j := ts.Journal("retry")
	if len(j) != 2 || j[0].Status != 503 || j[1].Status != 200 {
		t.Fatalf("journal: want 503 then 200, got %d entries", len(j))
	}
}

// TestSDKStreamFaults: faults in a stream surface as errors from the
// iterator, after the chunks sent before them.
func TestSDKStreamFaults(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	for _, tc := range []struct {
		fault string
		check func(t *testing.T, err error)
	}{
		{"stream_error;after=2", func(t *testing.T, err error) {
			if ae := apiError(t, err); ae.Code != 503 || ae.Status != "UNAVAILABLE" {
				t.Errorf("stream_error: %+v", ae)
			}
		}},
		{"malformed_chunk;after=2", func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "unmarshal") {
				t.Errorf("malformed_chunk: %v", err)
			}
		}},
		{"disconnect;after=2", func(t *testing.T, err error) {
			if err == nil {
				t.Error("disconnect: no error")
			}
		}},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			client := newClient(t, ts, "stream-"+tc.fault, map[string]string{
				mockprovider.ScenarioHeader: "gemini-long-text", mockprovider.StreamHeader: "fragment_size=4", mockprovider.FaultHeader: tc.fault,
			}, nil)
			_, _, chunks, err := streamText(client.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", hello(), nil))
			if len(chunks) != 2 {
				t.Errorf("%d chunks before the fault, want 2", len(chunks))
			}
			tc.check(t, err)
		})
	}
}

// TestSSEWireShape: data-only events separated by \r\n\r\n, each a whole
// GenerateContentResponse sharing one responseId, no [DONE].
func TestSSEWireShape(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "sse",
		[]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`),
		map[string]string{mockprovider.ScenarioHeader: "gemini-long-text", mockprovider.StreamHeader: "fragment_size=20"})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	body := string(b)
	if !strings.HasSuffix(body, "\r\n\r\n") || strings.Contains(body, "[DONE]") || strings.Contains(body, "event:") {
		t.Fatalf("wire shape: %q", body)
	}
	events := strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n")
	ids := map[string]bool{}
	for i, ev := range events {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			t.Fatalf("event %d: %q", i, ev)
		}
		var g struct {
			Candidates []struct {
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
			ResponseID string `json:"responseId"`
		}
		if err := json.Unmarshal([]byte(data), &g); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		ids[g.ResponseID] = true
		if last := i == len(events)-1; (g.Candidates[0].FinishReason == "STOP") != last {
			t.Errorf("event %d: finishReason %q", i, g.Candidates[0].FinishReason)
		}
	}
	if len(events) < 3 || len(ids) != 1 {
		t.Fatalf("%d events, %d response ids", len(events), len(ids))
	}
}

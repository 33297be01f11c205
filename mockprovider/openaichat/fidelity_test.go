package openaichat_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
)

var requestID = regexp.MustCompile(`^req_[0-9a-f]{32}$`)

// checkOpenAIHeaders holds an answer to the headers every OpenAI answer
// carries and the SDKs read.
func checkOpenAIHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	if id := h.Get("x-request-id"); !requestID.MatchString(id) {
		t.Errorf("%s: x-request-id %q", what, id)
	}
	if ms, err := strconv.Atoi(h.Get("openai-processing-ms")); err != nil || ms < 1 {
		t.Errorf("%s: openai-processing-ms %q", what, h.Get("openai-processing-ms"))
	}
	if v := h.Get("openai-version"); v != "2020-10-01" {
		t.Errorf("%s: openai-version %q", what, v)
	}
	for _, k := range []string{"x-ratelimit-limit-requests", "x-ratelimit-limit-tokens", "x-ratelimit-remaining-requests",
		"x-ratelimit-remaining-tokens", "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"} {
		if h.Get(k) == "" {
			t.Errorf("%s: no %s", what, k)
		}
	}
}

// TestSDKResponseHeaders: the Go SDK hands the answer's headers over
// (option.WithResponseInto; the Python and Node SDKs read x-request-id
// into _request_id), on a completion, a stream and an error alike, and
// each answer has its own request id.
func TestSDKResponseHeaders(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	ctx := context.Background()

	var first, second *http.Response
	if _, err := client.Chat.Completions.New(ctx, weatherParams("Weather in Paris?"), option.WithResponseInto(&first)); err != nil {
		t.Fatal(describe(err))
	}
	checkOpenAIHeaders(t, "completion", first.Header)
	if _, err := client.Chat.Completions.New(ctx, weatherParams("Weather in Rome?"), option.WithResponseInto(&second)); err != nil {
		t.Fatal(describe(err))
	}
	if first.Header.Get("x-request-id") == second.Header.Get("x-request-id") {
		t.Error("two answers share a request id")
	}

	var streamed *http.Response
	stream := client.Chat.Completions.NewStreaming(ctx, weatherParams("Weather in Oslo?"), option.WithResponseInto(&streamed))
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		t.Fatal(describe(err))
	}
	checkOpenAIHeaders(t, "stream", streamed.Header)

	bad := weatherParams("hi")
	bad.Model = ""
	_, err := client.Chat.Completions.New(ctx, bad, option.WithMaxRetries(0))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("want a 400, got %v", err)
	}
	checkOpenAIHeaders(t, "error", apiErr.Response.Header)
}

// TestRateLimitFaultKeepsItsHeaders: the exhausted values of the
// rate-limit fault are not overwritten by the every-answer ones.
func TestRateLimitFaultKeepsItsHeaders(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	a := post(t, ts.URL, sessionKey(t), []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`),
		map[string]string{mockprovider.FaultHeader: "rate_limit"})
	if a.Status != http.StatusTooManyRequests {
		t.Fatalf("status %d: %s", a.Status, a.Body)
	}
	if got := a.Header.Values("x-ratelimit-remaining-requests"); len(got) != 1 || got[0] != "0" {
		t.Errorf("x-ratelimit-remaining-requests %q", got)
	}
	checkOpenAIHeaders(t, "rate limit", a.Header)
}

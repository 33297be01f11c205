package anthropic_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider"
)

// TestSDKRateLimitHeadersOnEveryAnswer: request-id and the
// anthropic-ratelimit-* headers come with every answer — JSON, stream,
// count_tokens and error — not only with the rate-limit fault's 429.
func TestSDKRateLimitHeadersOnEveryAnswer(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "headers")
	check := func(name string, resp *http.Response) {
		t.Helper()
		if resp == nil {
			t.Fatalf("%s: no response", name)
		}
		if !strings.HasPrefix(resp.Header.Get("Request-Id"), "req_011C") {
			t.Errorf("%s: request-id %q", name, resp.Header.Get("Request-Id"))
		}
		for _, bucket := range []string{"requests", "tokens", "input-tokens", "output-tokens"} {
			for _, f := range []string{"limit", "remaining", "reset"} {
				if resp.Header.Get("anthropic-ratelimit-"+bucket+"-"+f) == "" {
					t.Errorf("%s: no anthropic-ratelimit-%s-%s", name, bucket, f)
				}
			}
		}
		if resp.StatusCode != 429 && resp.Header.Get("anthropic-ratelimit-requests-remaining") == "0" {
			t.Errorf("%s: request bucket empty on a %d", name, resp.StatusCode)
		}
	}
	var resp *http.Response
	if _, err := c.Messages.New(context.Background(), newParams("Paris?"), option.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	check("json", resp)

	resp = nil
	s := c.Messages.NewStreaming(context.Background(), newParams("Paris?"), option.WithResponseInto(&resp))
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	check("stream", resp)

	resp = nil
	p := newParams("Paris?")
	if _, err := c.Messages.CountTokens(context.Background(), sdk.MessageCountTokensParams{Model: p.Model, Messages: p.Messages}, option.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	check("count_tokens", resp)

	resp = nil
	p.MaxTokens = 0
	p.Messages = nil
	if _, err := c.Messages.New(context.Background(), p, option.WithResponseInto(&resp)); err == nil {
		t.Fatal("empty request accepted")
	}
	check("error", resp)

	resp = nil
	if _, err := c.Messages.New(context.Background(), newParams("Paris?"), option.WithResponseInto(&resp),
		option.WithHeader(mockprovider.FaultHeader, "rate_limit")); err == nil {
		t.Fatal("rate-limit fault not answered")
	}
	check("429", resp)
	if resp.Header.Get("anthropic-ratelimit-requests-remaining") != "0" || resp.Header.Get("retry-after") == "" {
		t.Errorf("429 headers %v", resp.Header)
	}
}

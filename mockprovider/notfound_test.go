package mockprovider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
)

// Unknown paths and wrong methods get the provider's JSON envelope, never
// Go's plain-text 404/405.
func TestUnknownPathsAnswerInTheProvidersEnvelope(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	cases := []struct {
		method, path string
		headers      map[string]string
		want         string
	}{
		{"POST", "/v1/nope", map[string]string{"Authorization": "Bearer k"},
			`{"error":{"message":"Invalid URL (POST /v1/nope)","type":"invalid_request_error","param":null,"code":null}}`},
		{"GET", "/v1/chat/completions", map[string]string{"Authorization": "Bearer k"},
			`{"error":{"message":"Invalid URL (GET /v1/chat/completions)","type":"invalid_request_error","param":null,"code":null}}`},
		{"POST", "/chat/completions", map[string]string{"Authorization": "Bearer k"},
			`"code":"unknown_url"`},
		{"POST", "/v1/messagez", map[string]string{"X-Api-Key": "k", "Anthropic-Version": "2023-06-01"},
			`"error":{"type":"not_found_error","message":"Not Found"}`},
		{"POST", "/v1beta/models/gemini-2.5-flash:generateContentz", map[string]string{"X-Goog-Api-Key": "k"},
			`"status":"NOT_FOUND"`},
		{"GET", "/_toolwire/nope", nil, `toolwire: no such endpoint`},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(`{}`))
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d, content-type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if !strings.Contains(string(body), c.want) {
				t.Fatalf("body %s\nwant it to contain %s", body, c.want)
			}
		})
	}
}

// The SDKs raise their own typed 404 with the API's message.
func TestUnknownPathsSDKErrors(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	ctx := context.Background()
	oai := openai.NewClient(option.WithBaseURL(ts.URL+"/v2"), option.WithAPIKey("nf"), option.WithMaxRetries(0))
	_, err := oai.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != 404 || oe.Code != "unknown_url" {
		t.Fatalf("openai error %v", err)
	}
	ant := anthropic.NewClient(anthropicoption.WithBaseURL(ts.URL+"/nope"), anthropicoption.WithAPIKey("nf"), anthropicoption.WithMaxRetries(0))
	_, err = ant.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 10, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 404 || !strings.Contains(ae.RawJSON(), "not_found_error") {
		t.Fatalf("anthropic error %v", err)
	}
}

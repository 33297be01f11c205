package openaichat_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/rules"
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

// TestSDKAzure: openai-go's azure options (deployment path from the
// body's model, ?api-version=, Api-Key header) and an Azure v1 base URL
// with bearer auth both drive a tool loop, streamed and not.
func TestSDKAzure(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	var seen []*http.Request
	record := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		seen = append(seen, r)
		return next(r)
	})
	deployment := openai.NewClient(azure.WithEndpoint(ts.URL, "2024-10-21"), azure.WithAPIKey(key), azure.WithUnsafeAllowHTTP(), record)
	v1 := openai.NewClient(option.WithBaseURL(ts.URL+"/openai/v1/"), option.WithAPIKey(key), record)
	for name, client := range map[string]openai.Client{"deployment": deployment, "v1": v1} {
		t.Run(name, func(t *testing.T) {
			seen = nil
			final, _ := runLoop(t, client, weatherParams("Weather in Paris?"), weatherTool)
			if final.Choices[0].FinishReason != "stop" {
				t.Errorf("final: %s", final.RawJSON())
			}
			acc := accumulate(t, client, weatherParams("Weather in Rome?"))
			if len(acc.Choices) == 0 || len(acc.Choices[0].Message.ToolCalls) != 1 {
				t.Errorf("streamed: %+v", acc.Choices)
			}
			r := seen[0]
			switch name {
			case "deployment":
				if r.URL.Path != "/openai/deployments/"+sdkModel+"/chat/completions" || r.URL.Query().Get("api-version") != "2024-10-21" ||
					r.Header.Get("Api-Key") != key || r.Header.Get("Authorization") != "" {
					t.Errorf("request %s %v", r.URL, r.Header)
				}
			case "v1":
				if r.URL.Path != "/openai/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
					t.Errorf("request %s %v", r.URL, r.Header)
				}
			}
		})
	}
	if vs := ts.Violations(key); len(vs) != 0 {
		t.Errorf("violations: %v", vs)
	}
	if n := len(ts.Journal(key)); n != 6 {
		t.Errorf("journal has %d entries, want 6 (one session for both forms)", n)
	}
}

// TestAzureDeploymentNamesTheModel: a raw request to a deployment may
// leave model out; the deployment names it.
func TestAzureDeploymentNamesTheModel(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/openai/deployments/my-gpt/chat/completions?api-version=2024-10-21",
		strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("api-key", "azure-raw")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c openai.ChatCompletion
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusOK || c.Model != "my-gpt" {
		t.Fatalf("status %d model %q err %v", resp.StatusCode, c.Model, err)
	}
	// api-key counts only on Azure paths, as api.openai.com ignores it.
	req, _ = http.NewRequest(http.MethodPost, ts.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("api-key", "azure-raw")
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusUnauthorized {
		t.Errorf("api-key on /v1: status %d", resp2.StatusCode)
	}
}

// sdkError runs one request through the SDK, streamed or not, and returns
// the API error it ended with.
func sdkError(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams, streamed bool) *openai.Error {
	t.Helper()
	var err error
	if streamed {
		s := client.Chat.Completions.NewStreaming(context.Background(), params, option.WithMaxRetries(0))
		for s.Next() {
		}
		err = s.Err()
	} else {
		_, err = client.Chat.Completions.New(context.Background(), params, option.WithMaxRetries(0))
	}
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want an API error, got %v", err)
	}
	return apiErr
}

// TestSDKToolControlsNeedTools: tool_choice or parallel_tool_calls
// without tools are the API's 400s, streamed and not; a forced function
// that is not declared is only journaled (no capture shows the API's
// answer).
func TestSDKToolControlsNeedTools(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	plain := func() openai.ChatCompletionNewParams {
		return openai.ChatCompletionNewParams{Model: sdkModel, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	}
	noneChoice := plain()
	noneChoice.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
	parallel := plain()
	parallel.ParallelToolCalls = openai.Bool(false)
	undeclared := weatherParams("Weather?")
	undeclared.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "get_time"})
	for _, c := range []struct {
		name   string
		params openai.ChatCompletionNewParams
		param  string
		msg    string
	}{
		{"tool_choice none", noneChoice, "tool_choice", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."},
		{"parallel_tool_calls", parallel, "parallel_tool_calls", "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."},
	} {
		for _, streamed := range []bool{false, true} {
			e := sdkError(t, client, c.params, streamed)
			if e.StatusCode != http.StatusBadRequest || e.Param != c.param || e.Message != c.msg || e.Type != "invalid_request_error" {
				t.Errorf("%s (streamed %v): %d %s", c.name, streamed, e.StatusCode, e.RawJSON())
			}
		}
	}
	if _, err := client.Chat.Completions.New(context.Background(), plain()); err != nil {
		t.Errorf("the same request without the controls: %v", describe(err))
	}
	key := sessionKey(t) + "-undeclared"
	undeclaredClient := newClient(ts, key)
	if _, err := undeclaredClient.Chat.Completions.New(context.Background(), undeclared); err != nil {
		t.Fatalf("undeclared forced function: %v", describe(err))
	}
	if vs := ts.Violations(key); len(vs) != 1 || vs[0].Rule != openaichat.RuleForcedToolDeclared || vs[0].Level != rules.SHOULD {
		t.Errorf("undeclared forced function journaled %v", vs)
	}
}

// TestSDKReasoningModelsRefuseMaxTokens: o-series and gpt-5 models answer
// max_tokens with unsupported_parameter, streamed and not; other models
// take it, and max_completion_tokens passes everywhere.
func TestSDKReasoningModelsRefuseMaxTokens(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	for _, model := range []string{"o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5.1", "gpt-5-nano"} {
		p := weatherParams("hi")
		p.Model = model
		p.MaxTokens = openai.Int(100)
		for _, streamed := range []bool{false, true} {
			e := sdkError(t, client, p, streamed)
			if e.StatusCode != http.StatusBadRequest || e.Param != "max_tokens" || e.Code != "unsupported_parameter" || e.Message != openaichat.MaxTokensUnsupportedMessage {
				t.Errorf("%s (streamed %v): %s", model, streamed, e.RawJSON())
			}
		}
		p.MaxTokens = openai.ChatCompletionNewParams{}.MaxTokens
		p.MaxCompletionTokens = openai.Int(100)
		if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
			t.Errorf("%s with max_completion_tokens: %v", model, describe(err))
		}
	}
	for _, model := range []string{"gpt-4o-mini", "gpt-4.1", "gpt-4o"} {
		p := weatherParams("hi")
		p.Model = model
		p.MaxTokens = openai.Int(100)
		if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
			t.Errorf("%s with max_tokens: %v", model, describe(err))
		}
	}
}

// TestSDKCachedTokens: a prompt of 1,024 tokens or more sent again in the
// same session reports its seen prefix as cached_tokens (a multiple of
// 128 from 1,024), streamed with include_usage and not; a short prompt,
// a first sight and another session report 0.
func TestSDKCachedTokens(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key)
	ctx := context.Background()
	long := weatherParams("Weather in Paris?")
	long.Messages[0] = openai.SystemMessage(strings.Repeat("You answer weather questions tersely. ", 160)) // ~6,000 characters

	cached := func(c openai.Client, p openai.ChatCompletionNewParams) (int64, int64) {
		t.Helper()
		resp, err := c.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(describe(err))
		}
		return resp.Usage.PromptTokensDetails.CachedTokens, resp.Usage.PromptTokens
	}
	if got, prompt := cached(client, long); got != 0 || prompt < 1024 {
		t.Fatalf("first sight: cached %d of %d prompt tokens", got, prompt)
	}
	got, prompt := cached(client, long)
	if got < 1024 || got%128 != 0 || got > prompt {
		t.Fatalf("repeat: cached %d of %d prompt tokens", got, prompt)
	}
	// The next turn of the same conversation shares the prefix.
	next := long
	next.Messages = append(append([]openai.ChatCompletionMessageParamUnion(nil), long.Messages...), openai.AssistantMessage("Sunny."), openai.UserMessage("And Rome?"))
	if more, _ := cached(client, next); more != got {
		t.Errorf("continued conversation: cached %d, want the shared prefix %d", more, got)
	}

	streamed := long
	streamed.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	if acc := accumulate(t, client, streamed); acc.Usage.PromptTokensDetails.CachedTokens != got {
		t.Errorf("streamed: cached %d, want %d", acc.Usage.PromptTokensDetails.CachedTokens, got)
	}

	short := weatherParams("Weather in Paris?")
	cached(client, short)
	if got, _ := cached(client, short); got != 0 {
		t.Errorf("short prompt: cached %d", got)
	}
	if got, _ := cached(newClient(ts, key+"-other"), long); got != 0 {
		t.Errorf("another session: cached %d", got)
	}
}

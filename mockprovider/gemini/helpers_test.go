package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// newServer starts a mock serving only the Gemini dialect, so these tests
// depend on no other dialect's state.
func newServer(t *testing.T, opts mockprovider.Options) *mockprovider.TestServer {
	t.Helper()
	if opts.Dialects == nil {
		opts.Dialects = []dialect.Dialect{gemini.New()}
	}
	return mockprovider.NewTestServer(t, opts)
}

// newClient is the official SDK pointed at the mock; the API key names the
// session.
func newClient(t *testing.T, ts *mockprovider.TestServer, key string, headers map[string]string, retry *genai.HTTPRetryOptions) *genai.Client {
	t.Helper()
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:  key,
		Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:      ts.GeminiBaseURL(),
			Headers:      h,
			RetryOptions: retry,
		},
	})
	if err != nil {
		t.Fatalf("genai.NewClient: %v", err)
	}
	return c
}

// postRaw sends one JSON body to a path with a key and extra headers.
func postRaw(t testing.TB, ts *mockprovider.TestServer, path, key string, body []byte, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-goog-api-key", key)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// googleError is the Gemini error envelope, decoded strictly enough to
// notice a wrong shape.
type googleError struct {
	Error *struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Status  string           `json:"status"`
		Details []map[string]any `json:"details"`
	} `json:"error"`
}

// parseGoogleError checks b is the Google envelope with code == status.
func parseGoogleError(t testing.TB, status int, b []byte) googleError {
	t.Helper()
	var ge googleError
	if err := json.Unmarshal(b, &ge); err != nil || ge.Error == nil {
		t.Fatalf("not a Google error envelope (%v): %s", err, b)
	}
	if ge.Error.Code != status || ge.Error.Status == "" || ge.Error.Message == "" {
		t.Fatalf("envelope %+v does not match HTTP %d", *ge.Error, status)
	}
	return ge
}

// apiError unwraps the SDK's error type.
func apiError(t *testing.T, err error) genai.APIError {
	t.Helper()
	var ae genai.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not a genai.APIError", err, err)
	}
	return ae
}

// assertJournaled: the session's journal holds a SHOULD violation of rule
// (a breach the API is not known to refuse: answered 200, journaled).
func assertJournaled(t *testing.T, ts *mockprovider.TestServer, key, rule string) {
	t.Helper()
	for _, v := range ts.Violations(key) {
		if v.Rule == rule && v.Level == "SHOULD" {
			return
		}
	}
	t.Fatalf("%s not journaled as SHOULD: %v", rule, ts.Violations(key))
}

// weatherTool is the get_weather declaration of https://platform.openai.com/docs/guides/function-calling.
func weatherTool() *genai.Tool {
	return &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name:        "get_weather",
		Description: "Get current weather for a location.",
		Parameters: &genai.Schema{
			Type:       genai.TypeObject,
			Properties: map[string]*genai.Schema{"location": {Type: genai.TypeString, Description: "City and country"}},
			Required:   []string{"location"},
		},
	}}}
}

func timeTool() *genai.Tool {
	return &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name:                 "get_time",
		Description:          "Get the local time in a city.",
		ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
	}}}
}

// testScenarios are the built-in set plus the scripts these tests need.
func testScenarios(t *testing.T) *scenario.Set {
	t.Helper()
	set, err := mockprovider.BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []*scenario.Scenario{
		{
			Name: "gemini-parallel-same-tool", Description: "Two calls to one tool in one turn.",
			Turns: []scenario.Turn{
				{Calls: []scenario.Call{{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}}, {Name: "get_weather", Arguments: map[string]any{"location": "Rome"}}}},
				{Text: "Both: {{results}}"},
			},
		},
		{
			Name: "gemini-parallel-two-tools", Description: "Calls to two tools in one turn.",
			Turns: []scenario.Turn{
				{Calls: []scenario.Call{{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}}, {Name: "get_time", Arguments: map[string]any{"city": "Paris"}}}},
				{Text: "Done: {{results}}"},
			},
		},
		{
			Name: "gemini-long-text", Description: "A text answer long enough to stream in many chunks.",
			Turns: []scenario.Turn{{Text: "Streaming text arrives in fragments — even multi-byte ones like é and 東京."}},
		},
		{
			Name: "gemini-unsigned-call", Description: "A call scripted without a signature (\"-\").",
			Turns: []scenario.Turn{{Calls: []scenario.Call{{Name: "get_weather", ThoughtSignature: "-"}}}},
		},
		{
			Name: "gemini-scripted-ids", Description: "A call with a scripted id and signature.",
			Turns: []scenario.Turn{
				{Calls: []scenario.Call{{Name: "get_weather", ID: "tool_0", ThoughtSignature: "c2NyaXB0ZWQ=", Arguments: map[string]any{"location": "Oslo"}}}},
				{Text: "{{results}}"},
			},
		},
	} {
		if err := set.Add(sc); err != nil {
			t.Fatal(err)
		}
	}
	return set
}

func contains(haystack, needle string) bool { return strings.Contains(haystack, needle) }

package gemini_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"cloud.google.com/go/auth"
	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
)

// TestSDKCountTokens: countTokens answers the promptTokenCount
// generateContent reports for the same request, deterministically, on the
// Gemini API and on Vertex AI.
func TestSDKCountTokens(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	ctx := context.Background()
	contents := genai.Text("What is the weather in Paris?")

	c := newClient(t, ts, "count", nil, nil)
	gen, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ct, err := c.Models.CountTokens(ctx, "gemini-2.5-flash", contents, nil)
		if err != nil {
			t.Fatalf("CountTokens: %v", err)
		}
		if ct.TotalTokens != gen.UsageMetadata.PromptTokenCount || ct.TotalTokens == 0 {
			t.Fatalf("totalTokens %d, generateContent promptTokenCount %d", ct.TotalTokens, gen.UsageMetadata.PromptTokenCount)
		}
	}

	vertex, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "p", Location: "us-central1",
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken("count-vertex")}),
		HTTPOptions: genai.HTTPOptions{BaseURL: ts.GeminiBaseURL()}})
	if err != nil {
		t.Fatal(err)
	}
	ct, err := vertex.Models.CountTokens(ctx, "gemini-2.5-flash", contents, &genai.CountTokensConfig{
		SystemInstruction: genai.NewContentFromText("Be brief.", genai.RoleUser), Tools: []*genai.Tool{weatherTool()}})
	if err != nil {
		t.Fatalf("Vertex CountTokens: %v", err)
	}
	if ct.TotalTokens <= gen.UsageMetadata.PromptTokenCount {
		t.Fatalf("Vertex count with tools %d not above %d", ct.TotalTokens, gen.UsageMetadata.PromptTokenCount)
	}
}

// TestCountTokensGenerateContentRequest: the wrapped form counts what
// generateContent of the inner request reports, and is validated like it,
// errors located under generate_content_request.
func TestCountTokensGenerateContentRequest(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	inner := `{"contents":[{"role":"user","parts":[{"text":"hi there"}]}],"generationConfig":{"temperature":0.1}}`
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "count-raw", []byte(inner), nil)
	var gen struct {
		UsageMetadata struct{ PromptTokenCount int } `json:"usageMetadata"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &gen) != nil {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	resp, b = postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:countTokens", "count-raw", []byte(`{"generateContentRequest":`+inner+`}`), nil)
	var ct struct {
		TotalTokens         int              `json:"totalTokens"`
		PromptTokensDetails []map[string]any `json:"promptTokensDetails"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &ct) != nil || ct.TotalTokens != gen.UsageMetadata.PromptTokenCount || len(ct.PromptTokensDetails) != 1 {
		t.Fatalf("%d %s (generateContent counted %d)", resp.StatusCode, b, gen.UsageMetadata.PromptTokenCount)
	}

	bad := []struct{ body, message, rule string }{
		{`{"generateContentRequest":{"contents":[{"role":"user","parts":[{"text":"hi"}],"foo":1}]}}`,
			`Invalid JSON payload received. Unknown name "foo" at 'generate_content_request.contents[0]': Cannot find field.`, "gemini.known-fields"},
		{`{"contents":[{"role":"user","parts":[{"text":1}]}]}`,
			`Invalid JSON payload received. Invalid value at 'contents[0].parts[0].text' (TYPE_STRING), 1`, "gemini.field-types"},
		{`{"contents":[]}`, "* GenerateContentRequest.contents: contents is not specified\n", "gemini.contents-required"},
	}
	for _, c := range bad {
		resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:countTokens", "count-raw", []byte(c.body), nil)
		ge := parseGoogleError(t, resp.StatusCode, b)
		if resp.StatusCode != http.StatusBadRequest || ge.Error.Message != c.message || resp.Header.Get("X-Toolwire-Rule") != c.rule {
			t.Fatalf("%s: %d %s %s", c.body, resp.StatusCode, resp.Header.Get("X-Toolwire-Rule"), b)
		}
	}
}

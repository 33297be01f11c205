package gemini_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/auth"
	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
)

// staticToken is an OAuth access token the Vertex backend sends as a
// bearer, through the SDK's own credentials transport.
type staticToken string

func (s staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Type: "Bearer"}, nil
}

// roundTrip runs one generate and one streamed generate with the weather
// tool and checks the call comes back both times.
func roundTrip(t *testing.T, c *genai.Client) {
	t.Helper()
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	resp, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("What is the weather in Paris?"), cfg)
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	if len(resp.FunctionCalls()) != 1 {
		t.Fatalf("calls = %v", resp.FunctionCalls())
	}
	n := 0
	for chunk, err := range c.Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text("What is the weather in Paris?"), cfg) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		n += len(chunk.FunctionCalls())
	}
	if n != 1 {
		t.Fatalf("streamed calls = %d", n)
	}
}

// lastPath is the path of the last request a session's journal holds.
func lastPath(t *testing.T, ts *mockprovider.TestServer, key string) string {
	t.Helper()
	j := ts.Journal(key)
	if len(j) == 0 {
		t.Fatalf("nothing journaled for %s", key)
	}
	return j[len(j)-1].Path
}

// TestSDKAPIVersions: the Gemini API under v1beta (go-genai's default),
// v1 (@google/genai 3.x's default) and v1alpha.
func TestSDKAPIVersions(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, v := range []string{"v1beta", "v1", "v1alpha"} {
		t.Run(v, func(t *testing.T) {
			key := "version-" + v
			c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: ts.GeminiBaseURL(), APIVersion: v}})
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, c)
			if p := lastPath(t, ts, key); !strings.HasPrefix(p, "/"+v+"/models/gemini-2.5-flash:streamGenerateContent") {
				t.Fatalf("path %s", p)
			}
		})
	}
}

// TestSDKVertexBackend: go-genai's Vertex AI backend with a project,
// location and OAuth credentials (a static token: no Google account is
// needed), and in express mode with an API key.
func TestSDKVertexBackend(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	t.Run("project", func(t *testing.T) {
		c, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "my-project", Location: "us-central1",
			Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken("vertex-token")}),
			HTTPOptions: genai.HTTPOptions{BaseURL: ts.GeminiBaseURL()}})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c)
		if p := lastPath(t, ts, "vertex-token"); !strings.HasPrefix(p, "/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent") {
			t.Fatalf("path %s", p)
		}
	})
	t.Run("express", func(t *testing.T) {
		c, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendVertexAI, APIKey: "vertex-express",
			HTTPOptions: genai.HTTPOptions{BaseURL: ts.GeminiBaseURL(), APIVersion: "v1"}})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c)
		if p := lastPath(t, ts, "vertex-express"); !strings.HasPrefix(p, "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent") {
			t.Fatalf("path %s", p)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		resp, b := postRaw(t, ts, "/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent", "", []byte(`{"contents":[{"parts":[{"text":"hi"}]}]}`), nil)
		ge := parseGoogleError(t, resp.StatusCode, b)
		if resp.StatusCode != http.StatusUnauthorized || ge.Error.Status != "UNAUTHENTICATED" || !strings.HasPrefix(ge.Error.Message, "Request is missing required authentication credential.") {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
	})
}

package anthropic_test

import (
	"context"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/toolwire/toolwire/mockprovider"
)

// vertexClient is the official SDK's Vertex backend pointed at the mock:
// a static bearer token stands in for Google credentials.
func vertexClient(ts *mockprovider.TestServer, token string) sdk.Client {
	creds := &google.Credentials{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token})}
	return sdk.NewClient(
		option.WithoutEnvironmentDefaults(),
		vertex.WithCredentials(context.Background(), "us-east5", "toolwire-test", creds),
		option.WithBaseURL(ts.URL+"/"),
		option.WithMaxRetries(0),
	)
}

// TestSDKVertex runs the tool loop through the SDK's Vertex backend
// (…/publishers/anthropic/models/{model}:rawPredict and
// :streamRawPredict, anthropic_version in the body, bearer auth) and
// counts tokens through …/models/count-tokens:rawPredict.
func TestSDKVertex(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := vertexClient(ts, "vertex-key")
	for name, send := range map[string]func(sdk.MessageNewParams) (*sdk.Message, error){
		"rawPredict": nonStreaming(c), "streamRawPredict": streaming(c),
	} {
		t.Run(name, func(t *testing.T) {
			before := len(ts.Journal("vertex-key"))
			msgs := loop(t, send, newParams("What's the weather in Paris? Use get_weather."))
			j := ts.Journal("vertex-key")[before:]
			want := "/v1/projects/toolwire-test/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5:" + name
			if len(j) != len(msgs) || j[0].Path != want || j[0].Status != 200 || len(j[0].Violations) > 0 {
				t.Fatalf("journal %+v, want %d clean entries at %s", j, len(msgs), want)
			}
			if msgs[0].Model != "claude-haiku-4-5" {
				t.Fatalf("model %q from the path", msgs[0].Model)
			}
		})
	}
	p := newParams("What's the weather in Paris?")
	n, err := c.Messages.CountTokens(context.Background(), sdk.MessageCountTokensParams{Model: p.Model, Messages: p.Messages})
	if err != nil || n.InputTokens <= 0 {
		t.Fatalf("count-tokens: %+v %v", n, err)
	}
	j := ts.Journal("vertex-key")
	if last := j[len(j)-1]; last.Path != "/v1/projects/toolwire-test/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict" {
		t.Fatalf("count-tokens went to %s", last.Path)
	}
}

// TestVertexWireRules: without anthropic_version in the body Vertex
// answers 400; an unknown method is a 404.
func TestVertexWireRules(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	h := httpHeaders("vertex-raw")
	h.Del("X-Api-Key")
	h.Del("Anthropic-Version")
	h.Set("Authorization", "Bearer vertex-raw")
	path := "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5:"
	status, rh, body := postTo(t, ts, path+"rawPredict", h, `{"max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`)
	assertEnvelope(t, status, rh, body, 400, "invalid_request_error", "anthropic_version: Field required")
	status, _, body = postTo(t, ts, path+"rawPredict", h, `{"anthropic_version":"vertex-2023-10-16","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`)
	if status != 200 {
		t.Fatalf("rawPredict answered %d %s", status, body)
	}
	status, rh, body = postTo(t, ts, path+"predict", h, `{"anthropic_version":"vertex-2023-10-16","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`)
	assertEnvelope(t, status, rh, body, 404, "not_found_error", "The requested method predict is not supported")
}

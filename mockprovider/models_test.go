package mockprovider_test

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
)

// GET /v1/models/{id} answers each SDK in its own shape on one path.
func TestGetModelBothSDKs(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	ctx := context.Background()
	oai := openai.NewClient(option.WithBaseURL(ts.OpenAIBaseURL()), option.WithAPIKey("m"), option.WithMaxRetries(0))
	m, err := oai.Models.Get(ctx, "gpt-4.1")
	if err != nil || m.ID != "gpt-4.1" || m.Object != "model" {
		t.Fatalf("openai: %+v %v", m, err)
	}
	ant := anthropic.NewClient(anthropicoption.WithBaseURL(ts.AnthropicBaseURL()), anthropicoption.WithAPIKey("m"), anthropicoption.WithMaxRetries(0))
	am, err := ant.Models.Get(ctx, "claude-sonnet-4-5", anthropic.ModelGetParams{})
	if err != nil || am.ID != "claude-sonnet-4-5" || string(am.Type) != "model" {
		t.Fatalf("anthropic: %+v %v", am, err)
	}
}

package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKGetModel: GetModel answers the SDK's Models.Get with the model
// object (capabilities, limits, lifecycle) and a 404 for an unknown id.
// The server dispatches GET /v1/models/{id} by header; here the handler
// is mounted alone.
func TestSDKGetModel(t *testing.T) {
	d := anthropic.New()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models/{id}", d.GetModel)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("models"), option.WithMaxRetries(0))

	m, err := c.Models.Get(context.Background(), "claude-haiku-4-5-20251001", sdk.ModelGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "claude-haiku-4-5-20251001" || m.Type != "model" || m.DisplayName != "Claude Haiku 4.5" || m.Line != sdk.ModelLineHaiku ||
		m.Lifecycle != sdk.ModelInfoLifecycleActive || m.MaxTokens != 64000 || m.MaxInputTokens != 200000 || m.CreatedAt.IsZero() ||
		!m.Capabilities.Thinking.Types.Enabled.Supported || !m.Capabilities.ImageInput.Supported {
		t.Fatalf("model %s", m.RawJSON())
	}
	for _, f := range []string{"capabilities", "deprecated_at", "retires_at", "max_input_tokens"} {
		if !m.JSON.ExtraFields[f].Valid() && !fieldPresent(m, f) {
			t.Errorf("model object lacks %s", f)
		}
	}

	// The model anthropic-sdk-go v2's README uses, and a deprecated one
	// (the SDK names its end of life).
	if m, err := c.Models.Get(context.Background(), sdk.ModelClaudeOpus5_5, sdk.ModelGetParams{}); err != nil || m.Line != sdk.ModelLineOpus {
		t.Fatalf("%s: %v", sdk.ModelClaudeOpus5_5, err)
	}
	if m, err := c.Models.Get(context.Background(), sdk.ModelClaudeSonnet4_5, sdk.ModelGetParams{}); err != nil ||
		m.Lifecycle != sdk.ModelInfoLifecycleDeprecated || m.RetiresAt.IsZero() {
		t.Fatalf("%s: %v %+v", sdk.ModelClaudeSonnet4_5, err, m)
	}

	_, err = c.Models.Get(context.Background(), "claude-nope", sdk.ModelGetParams{})
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Type() != "not_found_error" {
		t.Fatalf("unknown model: %v", err)
	}
	// The SDK refuses to send without a key; a bare client gets the 401.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/models/claude-haiku-4-5", nil)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("without a key: %d", resp.StatusCode)
	}
}

func fieldPresent(m *sdk.ModelInfo, name string) bool {
	switch name {
	case "capabilities":
		return m.JSON.Capabilities.Valid()
	case "deprecated_at":
		return m.JSON.DeprecatedAt.Raw() == "null"
	case "retires_at":
		return m.JSON.RetiresAt.Raw() == "null"
	case "max_input_tokens":
		return m.JSON.MaxInputTokens.Valid()
	}
	return false
}

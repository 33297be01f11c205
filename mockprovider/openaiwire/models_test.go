package openaiwire_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// TestSDKGetModel: the Go SDK's Models.Get reads the model object, with
// the headers of every answer; a missing key is the API's 401.
func TestSDKGetModel(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models/{id}", openaiwire.GetModel)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("sk-test"))
	var resp *http.Response
	m, err := client.Models.Get(context.Background(), "gpt-4o-mini", option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "gpt-4o-mini" || m.Object != "model" || m.OwnedBy != "system" || m.Created == 0 {
		t.Errorf("model %s", m.RawJSON())
	}
	if resp.Header.Get("x-request-id") == "" || resp.Header.Get("openai-version") == "" {
		t.Errorf("headers %v", resp.Header)
	}

	ft := "ft:gpt-4o-mini-2024-07-18:acme::abc123" // fine-tuned ids carry colons
	if m, err := client.Models.Get(context.Background(), ft); err != nil || m.ID != ft {
		t.Fatalf("fine-tuned id: %v %+v", err, m)
	}

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/models/gpt-4o-mini", nil)
	noKey, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	noKey.Body.Close()
	if noKey.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a key: status %d", noKey.StatusCode)
	}
	anonymous := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey(""), option.WithMaxRetries(0))
	_, err = anonymous.Models.Get(context.Background(), "gpt-4o-mini", option.WithHeaderDel("Authorization"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
		t.Errorf("SDK without a key: %v", err)
	}

	// Called directly (the server's dispatch) with no id: the API's 404.
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/v1/models/", nil)
	r.Header.Set("Authorization", "Bearer sk-test")
	openaiwire.GetModel(rec, r)
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"Invalid URL (GET /v1/models/)"`) {
		t.Errorf("no id: %d %s", rec.Code, rec.Body)
	}
}

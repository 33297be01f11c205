package mockprovider_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
)

func getWith(t *testing.T, url string, headers map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Which provider a stray request was meant for is each dialect's own
// judgement (dialect.Stray); the server takes the surest. Anthropic's
// marks outrank Gemini's, OpenAI takes what no mark claims, and a server
// without the dialect that would claim a request answers in its own words.
func TestStrayRequestsGoToTheSurestDialect(t *testing.T) {
	all := mockprovider.NewTestServer(t, mockprovider.Options{})
	code, body := getWith(t, all.URL+"/v1beta/nope", map[string]string{"X-Api-Key": "k"})
	if code != http.StatusNotFound || !strings.Contains(body, `"not_found_error"`) {
		t.Errorf("x-api-key on a Gemini path: %d %s, want Anthropic's 404", code, body)
	}
	code, body = getWith(t, all.URL+"/nope", map[string]string{"Authorization": "Bearer k"})
	if code != http.StatusNotFound || !strings.Contains(body, `"code":"unknown_url"`) {
		t.Errorf("a bare bearer key: %d %s, want OpenAI's 404", code, body)
	}

	only := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{gemini.New()}})
	code, body = getWith(t, only.URL+"/nope", map[string]string{"Authorization": "Bearer k"})
	if code != http.StatusNotFound || !strings.Contains(body, "toolwire: no such endpoint") {
		t.Errorf("no dialect claims it: %d %s, want toolwire's own 404", code, body)
	}
}

// A Models API path two dialects serve goes to the one whose SDK's marks
// the request carries, else to the one that claims none; served by one
// dialect only, the path answers that dialect's requests alone.
func TestSharedModelRoutesFollowTheClaims(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{openaichat.New(), anthropic.New()}})
	code, body := getWith(t, ts.URL+"/v1/models/claude-sonnet-4-5", map[string]string{"X-Api-Key": "k", "Anthropic-Version": "2023-06-01"})
	if code != http.StatusOK || !strings.Contains(body, `"type":"model"`) {
		t.Errorf("Anthropic retrieve: %d %s", code, body)
	}
	code, body = getWith(t, ts.URL+"/v1/models/gpt-4.1", map[string]string{"Authorization": "Bearer k"})
	if code != http.StatusOK || !strings.Contains(body, `"object":"model"`) {
		t.Errorf("OpenAI retrieve: %d %s", code, body)
	}

	anthropicOnly := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New()}})
	code, body = getWith(t, anthropicOnly.URL+"/v1/models", map[string]string{"X-Api-Key": "k", "Anthropic-Version": "2023-06-01"})
	if code != http.StatusOK || !strings.Contains(body, `"has_more"`) {
		t.Errorf("Anthropic list: %d %s", code, body)
	}
	if code, body = getWith(t, anthropicOnly.URL+"/v1/models", map[string]string{"Authorization": "Bearer k"}); code != http.StatusNotFound {
		t.Errorf("an OpenAI list where OpenAI is not served: %d %s, want 404", code, body)
	}
}

package mockprovider_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

func get(t *testing.T, url string, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

// send makes a request with a JSON body and returns the status and body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	return do(t, method, url, nil, body)
}

// rawPost posts a JSON body with headers.
func rawPost(t *testing.T, url string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	return do(t, http.MethodPost, url, hdr, body)
}

func do(t *testing.T, method, url string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
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

func TestHealth(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	code, body := get(t, ts.URL+"/_toolwire/health", nil)
	if code != 200 || body["status"] != "ok" {
		t.Fatalf("health: %d %v", code, body)
	}
}

func TestModelListsFollowTheCallersDialect(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	code, body := get(t, ts.URL+"/v1/models", map[string]string{"Authorization": "Bearer s"})
	if code != 200 || body["object"] != "list" {
		t.Fatalf("openai list: %d %v", code, body)
	}
	code, body = get(t, ts.URL+"/v1/models", map[string]string{"x-api-key": "s", "anthropic-version": "2023-06-01"})
	if _, hasMore := body["has_more"]; code != 200 || !hasMore {
		t.Fatalf("anthropic list: %d %v", code, body)
	}
	code, body = get(t, ts.URL+"/v1beta/models", map[string]string{"x-goog-api-key": "s"})
	if _, ok := body["models"]; code != 200 || !ok {
		t.Fatalf("gemini list: %d %v", code, body)
	}
	if code, _ := get(t, ts.URL+"/v1/models", nil); code != http.StatusUnauthorized {
		t.Fatalf("model list without a key: %d, want 401", code)
	}
}

func TestAdminScenarioAndFaults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	if code, body := send(t, http.MethodPut, ts.URL+"/_toolwire/sessions/k1/scenario", `{"name":"single-call"}`); code != 200 {
		t.Fatalf("set scenario: %d %s", code, body)
	}
	if s, _ := ts.Mock.Sessions().Lookup("k1"); s == nil || s.Scenario() != "single-call" {
		t.Fatal("scenario not stored on the session")
	}
	code, body := send(t, http.MethodPut, ts.URL+"/_toolwire/sessions/k1/scenario", `{"name":"single-cal"}`)
	if code != http.StatusNotFound || !strings.Contains(body, `closest: \"single-call\"`) {
		t.Fatalf("unknown scenario: %d %s", code, body)
	}
	if code, body := send(t, http.MethodPost, ts.URL+"/_toolwire/sessions/k1/faults", `{"fault":"rate_limit;count=2"}`); code != 200 {
		t.Fatalf("queue fault: %d %s", code, body)
	}
	if code, body := send(t, http.MethodPost, ts.URL+"/_toolwire/sessions/k1/faults", `{"fault":"meteor"}`); code != 400 || !strings.Contains(body, "unknown toolwire fault kind") {
		t.Fatalf("bad fault: %d %s", code, body)
	}
	if code, _ := send(t, http.MethodPost, ts.URL+"/_toolwire/sessions/k1/reset", ``); code != 200 {
		t.Fatal("reset failed")
	}
	if s, _ := ts.Mock.Sessions().Lookup("k1"); s.Scenario() != "" || s.TakeFault() != nil {
		t.Fatal("reset kept state")
	}
	if code, _ := get(t, ts.URL+"/_toolwire/sessions/nobody/journal", nil); code != http.StatusNotFound {
		t.Fatalf("journal of unknown session: %d", code)
	}
}

func TestParseFault(t *testing.T) {
	f, err := mockprovider.ParseFault("disconnect;count=1;after=3")
	if err != nil || f.Kind != "disconnect" || f.Remaining != 1 || f.After != 3 {
		t.Fatalf("got %+v, %v", f, err)
	}
	f, err = mockprovider.ParseFault("latency;ms=250")
	if err != nil || f.MS != 250 || f.Remaining != -1 {
		t.Fatalf("got %+v, %v", f, err)
	}
	for _, bad := range []string{"", "nope", "rate_limit;count=x", "rate_limit;when=now", "rate_limit;count=-1"} {
		if _, err := mockprovider.ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q) accepted", bad)
		}
	}
}

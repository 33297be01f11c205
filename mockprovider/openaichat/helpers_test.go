package openaichat_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

const chatPath = "/v1/chat/completions"

// sessionKey gives each test its own session (journal, ids, fault counters).
func sessionKey(t testing.TB) string {
	return "sk-test-" + strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
}

// lenientOptions keep every default option and only turn on lenient mode
// (a non-zero rules.Options is taken as given by the server).
func lenientOptions() mockprovider.Options {
	o := rules.DefaultOptions()
	o.Lenient = true
	return mockprovider.Options{Rules: o}
}

type answer struct {
	Status int
	Header http.Header
	Body   []byte
}

func post(t testing.TB, url, key string, body []byte, headers map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+chatPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// openAIError is the envelope every error must come in.
type openAIError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    any    `json:"code"`
}

// envelope parses {"error":{message,type,param,code}} and fails unless all
// four members are there (param and code may be null, never absent).
func envelope(t testing.TB, body []byte) openAIError {
	t.Helper()
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("error body is not the OpenAI envelope: %v\n%s", err, body)
	}
	inner, ok := raw["error"]
	if !ok || len(raw) != 1 {
		t.Fatalf("want exactly {\"error\":{…}}, got %s", body)
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := inner[k]; !ok {
			t.Fatalf("error envelope lacks %q: %s", k, body)
		}
	}
	var e struct {
		Error openAIError `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error
}

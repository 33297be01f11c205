package mockprovider_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestOneLogLinePerRequest(t *testing.T) {
	var out syncBuffer
	logger := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Logger: logger})
	post := func(body string) {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer secret-key-123")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	post(`{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`)
	post(`{"model":"gpt-4.1","messages":[{"role":"tool","tool_call_id":"call_x","content":"r"}]}`)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %d:\n%s", len(lines), out.String())
	}
	if strings.Contains(out.String(), "secret-key-123") {
		t.Fatal("the API key reached the log")
	}
	var first, second map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	if first["status"] != 200.0 || first["dialect"] != "openai-chat" || first["session"] != mockprovider.SessionTag("secret-key-123") || first["level"] != "INFO" {
		t.Fatalf("first line %v", first)
	}
	if second["status"] != 400.0 || second["rule"] == nil || second["level"] != "WARN" {
		t.Fatalf("second line %v", second)
	}
}

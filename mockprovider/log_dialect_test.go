package mockprovider_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
)

// capturedLog keeps every record a logger handles.
type capturedLog struct {
	mu      sync.Mutex
	records []slog.Record
}

func (c *capturedLog) Enabled(context.Context, slog.Level) bool { return true }
func (c *capturedLog) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, r.Clone())
	return nil
}
func (c *capturedLog) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *capturedLog) WithGroup(string) slog.Handler      { return c }

// lines returns each record's attributes as strings.
func (c *capturedLog) lines() []map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]string
	for _, r := range c.records {
		m := map[string]string{"msg": r.Message}
		r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
		out = append(out, m)
	}
	return out
}

// waitLines waits (a hang guard only) for n log lines: a socket's line is
// written when its handler returns, after the client closed it.
func (c *capturedLog) waitLines(t *testing.T, n int) []map[string]string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := c.lines()
		if len(lines) >= n || time.Now().After(deadline) {
			return lines
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Each request's log line names the dialect whose route served it:
// Responses requests, its stored-response routes and its WebSocket upgrade
// were all logged as openai-chat.
func TestLogNamesTheDialectOfTheRoute(t *testing.T) {
	logs := &capturedLog{}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Logger: slog.New(logs)})
	for _, d := range []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic, conv.Gemini} {
		postModel(t, ts, d, "sk-log-"+string(d), false, "")
	}
	do(t, http.MethodGet, ts.URL+"/v1/responses/resp_missing", map[string]string{"Authorization": "Bearer sk-log"}, "")
	socketTurn(t, ts, "sk-log-socket", "")
	want := []struct{ method, path, dialect string }{
		{"POST", "/v1/chat/completions", "openai-chat"},
		{"POST", "/v1/responses", "openai-responses"},
		{"POST", "/v1/messages", "anthropic"},
		{"POST", "/v1beta/models/gemini-2.5-flash:generateContent", "gemini"},
		{"GET", "/v1/responses/resp_missing", "openai-responses"},
		{"GET", "/v1/responses", "openai-responses"}, // the WebSocket upgrade
	}
	lines := logs.waitLines(t, len(want))
	if len(lines) != len(want) {
		t.Fatalf("want %d log lines, got %v", len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l["method"] != w.method || l["path"] != w.path || l["dialect"] != w.dialect || !strings.HasPrefix(l["session"], "s-") {
			t.Errorf("line %d: %v, want %s %s dialect=%s", i, l, w.method, w.path, w.dialect)
		}
	}
}

// A socket that never upgrades is logged under its route's dialect too.
func TestLogNamesTheDialectOfAFailedUpgrade(t *testing.T) {
	logs := &capturedLog{}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Logger: slog.New(logs)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/responses", nil) // no key: 401
	if err == nil {
		t.Fatal("an upgrade without a key was accepted")
	}
	lines := logs.waitLines(t, 1)
	if len(lines) != 1 || lines[0]["dialect"] != "openai-responses" || lines[0]["status"] != "401" {
		t.Errorf("log %v", lines)
	}
}

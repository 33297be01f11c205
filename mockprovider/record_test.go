package mockprovider_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// TestRecordThenReplay records streamed Anthropic and Gemini exchanges
// through a proxying mock (the "real API" is a second mock on its own
// loopback port), then replays them: the bytes match event for event, the
// recordings hold no secret, and the replayed traffic passes the rules.
func TestRecordThenReplay(t *testing.T) {
	upstream := httptest.NewServer(mockprovider.New(mockprovider.Options{}))
	defer upstream.Close()
	dir := t.TempDir()
	rec, err := record.NewRecorder(dir, record.Upstreams{"anthropic": upstream.URL, "gemini": upstream.URL, "openai": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	recording := mockprovider.NewTestServer(t, mockprovider.Options{Recorder: rec})

	const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
	type call struct {
		path, body string
		hdr        map[string]string
	}
	calls := []call{
		{"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":256,"stream":true,"tools":[{"name":"get_weather","description":"weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],"messages":[{"role":"user","content":"Weather in Paris?"}]}`,
			map[string]string{"x-api-key": secret, "anthropic-version": "2023-06-01"}},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[{"name":"get_weather","description":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}],"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}]}`,
			map[string]string{"x-goog-api-key": secret}},
	}
	var recorded []string
	for _, c := range calls {
		code, body := rawPost(t, recording.URL+c.path, c.hdr, c.body)
		if code != 200 {
			t.Fatalf("record %s: %d %s", c.path, code, body)
		}
		recorded = append(recorded, body)
	}
	if !strings.Contains(recorded[1], "\r\n\r\n") {
		t.Fatal("Gemini stream lost its \\r\\n\\r\\n separators through the proxy")
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"+record.RecordingExt))
	if len(files) != 1 {
		t.Fatalf("want one recording for the session, got %v", files)
	}
	raw, _ := os.ReadFile(files[0])
	if bytes.Contains(raw, []byte(secret)) || strings.Contains(files[0], secret) {
		t.Fatal("the recording leaks the caller's key")
	}

	rp, err := record.LoadReplayer(dir)
	if err != nil {
		t.Fatal(err)
	}
	replaying := mockprovider.NewTestServer(t, mockprovider.Options{Replayer: rp})
	for i, c := range calls {
		c.hdr = map[string]string{"x-api-key": "replay-key", "anthropic-version": "2023-06-01", "x-goog-api-key": "replay-key"}
		code, body := rawPost(t, replaying.URL+c.path, c.hdr, c.body)
		if code != 200 || body != recorded[i] {
			t.Fatalf("replay %s differs (%d):\n got %q\nwant %q", c.path, code, body, recorded[i])
		}
	}
	if vs := replaying.Violations("replay-key"); len(vs) != 0 {
		t.Fatalf("replayed conversation broke rules: %+v", vs)
	}
	entries := replaying.Journal("replay-key")
	if len(entries) != 2 || len(entries[0].Events) == 0 {
		t.Fatalf("replayed streams not journaled event for event: %+v", entries)
	}

	code, body := rawPost(t, replaying.URL+"/v1/messages", map[string]string{"x-api-key": "replay-key", "anthropic-version": "2023-06-01"},
		`{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Something else"}]}`)
	if code != 400 || !strings.Contains(body, "no recording matches this request; closest recording: POST /v1/messages") {
		t.Fatalf("unmatched request: %d %s", code, body)
	}
}

// An upstream that cannot be reached is a 502 in the provider's own
// envelope that names the family only; the address and the dial error go
// to the recorder's log.
func TestRecordUnreachableUpstreamIs502(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() // nothing listens here any more
	ln.Close()
	rec, err := record.NewRecorder(t.TempDir(), record.Upstreams{"anthropic": closed, "gemini": closed, "openai": closed})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	rec.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Recorder: rec})
	for _, c := range []struct{ path, body, errKey, family string }{
		{"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`, "type", "anthropic"},
		{"/v1/chat/completions", `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`, "type", "openai"},
		{"/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "status", "gemini"},
	} {
		hdr := map[string]string{"x-api-key": "unreachable-key", "anthropic-version": "2023-06-01", "Authorization": "Bearer unreachable-key", "x-goog-api-key": "unreachable-key"}
		code, body := rawPost(t, ts.URL+c.path, hdr, c.body)
		var env struct {
			Error map[string]any `json:"error"`
		}
		if code != 502 || json.Unmarshal([]byte(body), &env) != nil || env.Error[c.errKey] == nil {
			t.Fatalf("%s: want a 502 in the provider's envelope, got %d %s", c.path, code, body)
		}
		if msg, _ := env.Error["message"].(string); msg != "toolwire record: upstream unreachable ("+c.family+")" {
			t.Errorf("%s: message %q", c.path, msg)
		}
		if strings.Contains(body, ln.Addr().String()) || strings.Contains(body, "dial") {
			t.Errorf("%s: the answer leaks the upstream's address or dial error: %s", c.path, body)
		}
	}
	if !strings.Contains(logged.String(), ln.Addr().String()) || !strings.Contains(logged.String(), "connection refused") {
		t.Errorf("the cause is not logged: %s", logged.String())
	}
}

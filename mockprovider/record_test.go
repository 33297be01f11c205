package mockprovider_test

import (
	"bytes"
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

package record_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// providerKey is a provider key shape that Redact must leave nowhere: an
// OpenAI or Anthropic secret key starting at a word boundary. (A key glued
// to a preceding letter or digit, "task-…", is deliberately not a key.)
var providerKey = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,})`)

// FuzzRedact: Redact never panics, never leaves an sk-… key (in the text,
// or in a string of the text when it is JSON), never leaves the session key
// (unless the key is made of the placeholder's own letters, "REDACTED"
// itself could then contain it), and redacting twice changes nothing more.
//
//	go test -run='^$' -fuzz='^FuzzRedact$' -fuzztime=30s ./mockprovider/record
func FuzzRedact(f *testing.F) {
	for _, seed := range []struct{ body, key string }{
		{`{"api_key":"abc","note":"use sk-proj-ABCDEFGHIJKLMNOPQRSTUV now"}`, "my-session-key"},
		{`{"messages":[{"role":"user","content":"my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz"}]}`, ""},
		{`Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz0123`, ""},
		{`{"x-goog-api-key": "AIzaSyA1234567890123456789012345678901"}`, ""},
		{`{"token":"sk-unterminated`, "sess"},
		{`"sk-sk-sk-AAAAAAAAAAAAAAAAAAAA"`, "AAAA"},
		{`{"Authorization" :   "Bearer sk-1234567890abcdefgh"}`, "Bearer"},
		{`data: {"id":"msg_1","content":[{"type":"text","text":"ok sk-ABCDEFGHIJKLMNOPQRST"}]}`, "msg_1"},
		{"ya29.a0AfH6SMBx and a task-1234567890123456789 that is not a key", "task"},
		{`{"session":"ci-run-42","echo":"ci-run-42"}`, "ci-run-42"},
	} {
		f.Add(seed.body, seed.key)
	}
	f.Fuzz(func(t *testing.T, body, key string) {
		out := record.Redact(body, key)
		if m := providerKey.FindStringSubmatch(out); m != nil {
			t.Fatalf("Redact(%q, %q) left key %q in %q", body, key, m[1], out)
		}
		// Recordings are JSON: a key is just as readable after a JSON
		// escape ("\nsk-…" is a newline then the key), so look at the
		// decoded strings too.
		for _, str := range jsonStrings(out) {
			if m := providerKey.FindStringSubmatch(str); m != nil {
				t.Fatalf("Redact(%q, %q) left key %q inside the JSON string %q", body, key, m[1], str)
			}
		}
		if len(key) >= 4 && !strings.ContainsAny(key, "REDACT") && strings.Contains(out, key) {
			t.Fatalf("Redact(%q, %q) left the session key in %q", body, key, out)
		}
		if again := record.Redact(out, ""); again != out {
			t.Fatalf("redacting %q again changed it to %q", out, again)
		}
	})
}

// jsonStrings returns every string (keys and values) of s when it is
// JSON, else nothing.
func jsonStrings(s string) []string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// recorded is the fixture the replay fuzzer searches: two dialects, a
// repeated request (replayed in order) and a streamed answer.
var recorded = []record.Exchange{
	{Dialect: conv.Anthropic, Method: "POST", Path: "/v1/messages", Request: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Status: 200, Body: `{"first":true}`},
	{Dialect: conv.Anthropic, Method: "POST", Path: "/v1/messages", Request: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Status: 200, Body: `{"second":true}`},
	{Dialect: conv.Gemini, Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=REDACTED", Request: `{"contents":[{"role":"user","parts":[{"text":"héllo"}]}]}`, Status: 200,
		Events: []record.Event{{Data: `{"candidates":[]}`}}, Separator: "\r\n\r\n"},
	{Dialect: conv.OpenAIChat, Method: "POST", Path: "/v1/chat/completions", Request: `not json at all`, Status: 500, Body: `oops`},
}

func newReplayer(t testing.TB) *record.Replayer {
	dir := t.TempDir()
	b, err := yaml.Marshal(record.File{Name: "rec-fuzz", Recorded: time.Unix(0, 0).UTC(), Exchanges: recorded})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rec-fuzz.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rp, err := record.LoadReplayer(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rp
}

// FuzzReplayFind: Find never panics on any request; a hit is a recording
// of the same dialect, method and path whose request is canonically the
// one sent; a miss always explains itself.
//
//	go test -run='^$' -fuzz='^FuzzReplayFind$' -fuzztime=30s ./mockprovider/record
func FuzzReplayFind(f *testing.F) {
	for _, ex := range recorded {
		f.Add(string(ex.Dialect), ex.Method, ex.Path, ex.Request)
	}
	f.Add("anthropic", "POST", "/v1/messages", `{"messages":[{"content":"hi","role":"user"}],  "model":"m"}`)
	f.Add("gemini", "POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaSECRET", `{"contents":[{"parts":[{"text":"héllo"}],"role":"user"}]}`)
	f.Add("anthropic", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"bye"}]}`)
	f.Add("rap", "GET", "", "")
	f.Add("gemini", "POST", "/x?key=", "\xff\xfe")
	rp := newReplayer(f)
	f.Fuzz(func(t *testing.T, dialect, method, uri, body string) {
		ex, closest := rp.Find(conv.Dialect(dialect), method, uri, body)
		if ex == nil {
			if closest == "" {
				t.Fatalf("a miss for %s %s %s %q gave no explanation", dialect, method, uri, body)
			}
			return
		}
		if string(ex.Dialect) != dialect || ex.Method != method {
			t.Fatalf("request %s %s matched a %s %s recording", dialect, method, ex.Dialect, ex.Method)
		}
		if !strings.Contains(uri, "key=") && ex.Path != uri {
			t.Fatalf("request path %q matched recording path %q", uri, ex.Path)
		}
		if record.Canonical(ex.Request) != record.Canonical(record.Redact(body, "")) {
			t.Fatalf("request %q matched recording %q", body, ex.Request)
		}
	})
}

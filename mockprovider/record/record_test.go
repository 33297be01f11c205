package record

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

func TestRedactRemovesSecrets(t *testing.T) {
	in := `{"api_key":"abc","note":"use sk-proj-ABCDEFGHIJKLMNOPQRSTUV now","k":"AIzaSyA1234567890123456789012345678901","session":"my-session-key"}`
	out := Redact(in, "my-session-key")
	for _, leak := range []string{`"abc"`, "sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "AIzaSyA1234567890123456789012345678901", "my-session-key"} {
		if strings.Contains(out, leak) {
			t.Errorf("redacted body still contains %q: %s", leak, out)
		}
	}
	if out := Redact(`{"content":"my key:\nsk-proj-ABCDEFGHIJKLMNOPQRSTUV"}`, ""); strings.Contains(out, "sk-proj-ABCDEFGHIJKLMNOPQRSTUV") {
		t.Errorf("a key after a JSON escape leaked: %s", out)
	}
	if got := redactQuery("/v1beta/models/m:streamGenerateContent?alt=sse&key=AIzaSECRET"); got != "/v1beta/models/m:streamGenerateContent?alt=sse&key=REDACTED" {
		t.Errorf("query key not redacted: %s", got)
	}
}

func TestParseUpstreams(t *testing.T) {
	up, err := ParseUpstreams("openai=https://api.openai.com/,anthropic=http://127.0.0.1:9")
	if err != nil || up["openai"] != "https://api.openai.com" || up["anthropic"] != "http://127.0.0.1:9" {
		t.Fatalf("got %v, %v", up, err)
	}
	for _, bad := range []string{"openai", "mistral=http://x", "gemini="} {
		if _, err := ParseUpstreams(bad); err == nil {
			t.Errorf("ParseUpstreams(%q) accepted", bad)
		}
	}
}

func TestEventsRoundTripWithTheirSeparator(t *testing.T) {
	for _, sep := range []string{"\n\n", "\r\n\r\n"} {
		nl := sep[:len(sep)/2]
		src := "event: a" + nl + "data: {\"x\":1}" + sep + "data: {\"y\":2}" + sep
		rec := httptest.NewRecorder()
		evs, gotSep, err := copyEvents(rec, nil, strings.NewReader(src))
		if err != nil || gotSep != sep || len(evs) != 2 || evs[0].Event != "a" || evs[1].Data != `{"y":2}` {
			t.Fatalf("sep %q: events %+v sep %q err %v", sep, evs, gotSep, err)
		}
		if rec.Body.String() != src {
			t.Fatalf("bytes were not passed through unchanged")
		}
		ex := Exchange{Status: 200, Events: evs, Separator: gotSep}
		out := httptest.NewRecorder()
		ex.Write(out)
		if out.Body.String() != src {
			t.Fatalf("replay differs:\n got %q\nwant %q", out.Body.String(), src)
		}
	}
}

func TestFindMatchesCanonicallyAndNamesTheClosest(t *testing.T) {
	rp := &Replayer{used: map[int]bool{}, exchanges: []Exchange{
		{Dialect: "anthropic", Method: "POST", Path: "/v1/messages", Request: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Status: 200, Body: "first"},
		{Dialect: "anthropic", Method: "POST", Path: "/v1/messages", Request: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Status: 200, Body: "second"},
	}}
	same := `{"messages":[{"content":"hi","role":"user"}],  "model":"m"}`
	a, _ := rp.Find("anthropic", "POST", "/v1/messages", same)
	b, _ := rp.Find("anthropic", "POST", "/v1/messages", same)
	if a == nil || b == nil || a.Body != "first" || b.Body != "second" {
		t.Fatalf("identical requests must replay in recorded order: %+v %+v", a, b)
	}
	miss, closest := rp.Find("anthropic", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"bye"}]}`)
	if miss != nil || !strings.Contains(closest, "closest recording: POST /v1/messages") {
		t.Fatalf("got %+v, %q", miss, closest)
	}
}

// Keys reach a recording in forms the literal match missed: an encoded
// parameter name, a short key, a key the upstream echoes JSON-escaped.
func TestRedactEveryFormOfTheKey(t *testing.T) {
	for _, tc := range []struct{ uri, key, leak string }{
		{"/v1beta/models/m:generateContent?%6Bey=SECRETSECRET", "", "SECRETSECRET"},
		{"/v1beta/models/m:generateContent?alt=sse&KEY=AIzaLEAK", "", "AIzaLEAK"},
		{"/v1beta/models/m:generateContent?api%5Fkey=leak-1234", "", "leak-1234"},
		{"/x?q=my%2Fkey%2B1", "my/key+1", "my%2Fkey%2B1"},
	} {
		if got := RedactURI(tc.uri, tc.key); strings.Contains(got, tc.leak) {
			t.Errorf("RedactURI(%q) = %q", tc.uri, got)
		}
	}
	for _, tc := range []struct{ body, key, leak string }{
		{`{"error":{"message":"Incorrect API key provided: ab1. You can find your API key"}}`, "ab1", "ab1."},
		{`{"error":"bad key k\/ey+\u00e9long"}`, "k/ey+élong", `k\/ey+\u00e9long`},
		{`{"echo":"\u0073\u006b-short"}`, "sk-short", `\u0073\u006b-short`},
		{`{"echo":"x<y&z-secret"}`, "x<y&z-secret", "x<y&z-secret"},
	} {
		if got := Redact(tc.body, tc.key); strings.Contains(got, tc.leak) || !strings.Contains(got, "REDACTED") {
			t.Errorf("Redact(%q, %q) = %q", tc.body, tc.key, got)
		}
	}
	// A short key is replaced only where it stands alone.
	if got := Redact(`{"text":"a table of ab1 values"}`, "ab1"); got != `{"text":"a table of REDACTED values"}` {
		t.Errorf("short key: %q", got)
	}
}

// Recordings are private files, and an exchange cut short (the server
// closing its connections on shutdown) is still written, marked.
func TestRecordingsArePrivateAndKeptWhenCutShort(t *testing.T) {
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"first\":true}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer upstream.Close()
	defer close(release)
	dir := filepath.Join(t.TempDir(), "rec")
	rc, err := NewRecorder(dir, Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = rc.Forward(conv.Anthropic, "sk-ant-cut-short-key", w, r, []byte(`{"stream":true}`))
	}))
	resp, err := http.Post(front.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if !strings.Contains(line, "first") {
		t.Fatalf("first event: %q", line)
	}
	front.CloseClientConnections() // what the server does when its drain time is up
	if !rc.Wait(5 * time.Second) {
		t.Fatal("the in-flight exchange did not end")
	}
	resp.Body.Close()
	front.Close()
	info, err := os.Stat(filepath.Join(dir, FileName("sk-ant-cut-short-key")+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v, want 0600", info.Mode().Perm())
	}
	if d, _ := os.Stat(dir); d.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", d.Mode().Perm())
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName("sk-ant-cut-short-key")+".yaml"))
	if !strings.Contains(string(b), "incomplete: true") || !strings.Contains(string(b), "first") {
		t.Errorf("cut-short exchange not kept:\n%s", b)
	}
}

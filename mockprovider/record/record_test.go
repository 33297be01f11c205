package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

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
		evs, gotSep := parseEvents([]byte(src))
		if gotSep != sep || len(evs) != 2 || evs[0].Event != "a" || evs[1].Data != `{"y":2}` {
			t.Fatalf("sep %q: events %+v sep %q", sep, evs, gotSep)
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
	info, err := os.Stat(filepath.Join(dir, FileName("sk-ant-cut-short-key")+RecordingExt))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v, want 0600", info.Mode().Perm())
	}
	if d, _ := os.Stat(dir); d.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", d.Mode().Perm())
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName("sk-ant-cut-short-key")+RecordingExt))
	if !strings.Contains(string(b), `"incomplete":true`) || !strings.Contains(string(b), "first") {
		t.Errorf("cut-short exchange not kept:\n%s", b)
	}
}

// forwardingFront is the mock's record path in miniature: every request
// is forwarded through rc under session key.
func forwardingFront(t *testing.T, rc *Recorder, key string) *httptest.Server {
	t.Helper()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := rc.Forward(conv.Anthropic, key, w, r, body); err != nil {
			t.Logf("forward: %v", err)
		}
	}))
	t.Cleanup(front.Close)
	return front
}

// rawClient gets the bytes exactly as sent (no transparent gunzip).
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func recordedExchanges(t *testing.T, dir string) []Exchange {
	t.Helper()
	rp, err := LoadReplayer(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rp.exchanges
}

func recordingSize(t *testing.T, dir, key string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(dir, FileName(key)+RecordingExt))
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// A stream far over the recording limit reaches the client whole, as it
// arrives, while the recording keeps at most the limit and says it was cut.
func TestLongStreamPassesWholeAndRecordingStaysBounded(t *testing.T) {
	const limit, events = 1 << 20, 8 << 10 // 8 MiB of 1 KiB events
	event := []byte("data: " + strings.Repeat("a", 1016) + "\n\n")
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range events {
			if _, err := w.Write(event); err != nil {
				return
			}
		}
	}))
	defer upstream.Close()
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	rc.MaxRecord = limit
	front := forwardingFront(t, rc, "sk-ant-long-stream")
	resp, err := rawClient.Post(front.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || got != int64(events*len(event)) {
		t.Fatalf("client got %d bytes (%v), want the whole stream, %d", got, err, events*len(event))
	}
	if size := recordingSize(t, dir, "sk-ant-long-stream"); size > limit+limit/10 {
		t.Errorf("recording is %d bytes, over the %d-byte limit (plus JSON's overhead)", size, limit)
	}
	exs := recordedExchanges(t, dir)
	if len(exs) != 1 || !exs[0].Incomplete || !strings.Contains(exs[0].IncompleteReason, "recording limit") || len(exs[0].Events) == 0 {
		t.Fatalf("want one exchange marked incomplete for the limit, with the first events: %d exchanges, %+v", len(exs), exs[0].IncompleteReason)
	}
}

// gzipMembers is n gzip members of one payload each: what one small
// member inflates to, n times over, for a few bytes a member.
func gzipMembers(t *testing.T, payload []byte, n int) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	_, _ = zw.Write(payload)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), n)
}

// A gzip bomb (an answer compressed unasked that inflates far past the
// limit) is passed to the client as sent, and inflated for the recording
// only up to the limit.
func TestGzipBombInflatesOnlyToTheLimit(t *testing.T) {
	const limit = 1 << 20
	event := "data: " + strings.Repeat("b", 1018) + "\n\n"
	bomb := gzipMembers(t, []byte(strings.Repeat(event, 256)), 1024) // 256 MiB inflated
	small := gzipMembers(t, []byte(`{"type":"message","content":[]}`), 1)
	var sawEncoding []string
	var mu sync.Mutex
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sawEncoding = append(sawEncoding, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/small" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(small)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(bomb)
	}))
	defer upstream.Close()
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	rc.MaxRecord = limit
	front := forwardingFront(t, rc, "sk-ant-gzip-bomb")
	for _, path := range []string{"/v1/messages", "/small"} {
		req, _ := http.NewRequest(http.MethodPost, front.URL+path, strings.NewReader(`{"stream":true}`))
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := bomb
		if path == "/small" {
			want = small
		}
		if err != nil || !bytes.Equal(got, want) || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: the client got %d bytes (%v, Content-Encoding %q), want the %d the upstream sent", path, len(got), err, resp.Header.Get("Content-Encoding"), len(want))
		}
	}
	if size := recordingSize(t, dir, "sk-ant-gzip-bomb"); size > limit+limit/10 {
		t.Errorf("recording is %d bytes, over the %d-byte limit (plus JSON's overhead)", size, limit)
	}
	exs := recordedExchanges(t, dir)
	if len(exs) != 2 {
		t.Fatalf("want 2 exchanges, got %d", len(exs))
	}
	if !exs[0].Incomplete || !strings.Contains(exs[0].IncompleteReason, "recording limit") || len(exs[0].Events) == 0 || !strings.HasPrefix(exs[0].Events[0].Data, "bbbb") {
		t.Errorf("the bomb's recording: want the first events inflated, marked cut at the limit; got %d events, %q", len(exs[0].Events), exs[0].IncompleteReason)
	}
	if exs[1].Incomplete || exs[1].Body != `{"type":"message","content":[]}` {
		t.Errorf("a small gzip answer is recorded inflated and whole: %+v", exs[1])
	}
	for _, enc := range sawEncoding {
		if enc != "identity" {
			t.Errorf("upstream asked for Accept-Encoding %q, want identity", enc)
		}
	}
}

// An unstreamed answer over the limit reaches the client whole (not cut
// into broken JSON), and its recording is marked cut.
func TestLargeBodyPassesWholeAndIsMarkedIncomplete(t *testing.T) {
	const limit = 1 << 20
	big := []byte(`{"text":"` + strings.Repeat("c", 3<<20) + `"}`)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(big)
	}))
	defer upstream.Close()
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	rc.MaxRecord = limit
	front := forwardingFront(t, rc, "sk-ant-large-body")
	resp, err := rawClient.Post(front.URL+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !bytes.Equal(got, big) {
		t.Fatalf("client got %d, %d bytes (%v), want 200 and the whole %d", resp.StatusCode, len(got), err, len(big))
	}
	exs := recordedExchanges(t, dir)
	if len(exs) != 1 || !exs[0].Incomplete || !strings.Contains(exs[0].IncompleteReason, "recording limit") || len(exs[0].Body) != limit {
		t.Fatalf("want the first %d bytes kept, marked cut at the limit: %d exchanges, body %d bytes, %q", limit, len(exs), len(exs[0].Body), exs[0].IncompleteReason)
	}
}

// Saving appends one line to the session's file: the file is never
// replaced, grows by exactly the new exchange, and the bytes written in
// all are the file's size (not the sum of ever-longer rewrites).
func TestSavesAppendOneLineEach(t *testing.T) {
	dir := t.TempDir()
	rc, err := NewRecorder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	const key, saves = "sk-ant-many-saves", 200
	path := filepath.Join(dir, FileName(key)+RecordingExt)
	var first os.FileInfo
	var size int64
	for i := range saves {
		ex := Exchange{Dialect: conv.Anthropic, Method: "POST", Path: "/v1/messages", Request: fmt.Sprintf(`{"n":%d}`, i), Status: 200, Body: strings.Repeat("d", 1000)}
		line, _ := json.Marshal(ex)
		if err := rc.save(key, ex); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = info
		} else if !os.SameFile(first, info) {
			t.Fatalf("save %d replaced the file instead of appending to it", i)
		}
		if grew := info.Size() - size; grew != int64(len(line))+1 {
			t.Fatalf("save %d grew the file by %d bytes, want one line of %d", i, grew, len(line)+1)
		}
		size = info.Size()
	}
	if w := rc.written.Load(); w != size {
		t.Fatalf("%d bytes written for a %d-byte file", w, size)
	}
	exs := recordedExchanges(t, dir)
	if len(exs) != saves || exs[saves-1].Request != fmt.Sprintf(`{"n":%d}`, saves-1) {
		t.Fatalf("replay read %d exchanges, want %d in order", len(exs), saves)
	}
}

// Recordings of earlier versions (one YAML file per session) still
// replay, before what record mode appended since for the same session.
func TestReplayReadsYAMLRecordingsThenJSONLines(t *testing.T) {
	dir := t.TempDir()
	old := File{Name: "rec-000000000000", Recorded: time.Unix(0, 0).UTC(), Exchanges: []Exchange{{Dialect: conv.Anthropic, Method: "POST", Path: "/v1/messages", Request: `{}`, Status: 200, Body: "older"}}}
	b, err := yaml.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rec-000000000000.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	newer, _ := json.Marshal(Exchange{Dialect: conv.Anthropic, Method: "POST", Path: "/v1/messages", Request: `{}`, Status: 200, Body: "newer"})
	if err := os.WriteFile(filepath.Join(dir, "rec-000000000000"+RecordingExt), append(newer, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	exs := recordedExchanges(t, dir)
	if len(exs) != 2 || exs[0].Body != "older" || exs[1].Body != "newer" {
		t.Fatalf("want the YAML exchange then the JSON Lines one: %+v", exs)
	}
	if err := os.WriteFile(filepath.Join(dir, "rec-000000000000"+RecordingExt), append(append(newer, '\n'), `{"dialect":`...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadReplayer(dir); err == nil || !strings.Contains(err.Error(), "exchange 2") {
		t.Fatalf("a cut last line must be a clear error naming it, got %v", err)
	}
}

// A redirect from the upstream is passed to the client, not followed:
// the caller's key never reaches the host it points to.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var elsewhereHits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhereHits.Add(1)
		for _, h := range []string{"x-api-key", "x-goog-api-key", "Authorization", "api-key"} {
			if r.Header.Get(h) != "" {
				t.Errorf("the redirect's target got %s", h)
			}
		}
	}))
	defer elsewhere.Close()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/messages", http.StatusTemporaryRedirect)
	}))
	defer upstream.Close()
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	front := forwardingFront(t, rc, "sk-ant-redirected")
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/v1/messages", strings.NewReader(`{}`))
	req.Header.Set("x-api-key", "sk-ant-redirected")
	req.Header.Set("x-goog-api-key", "sk-ant-redirected")
	req.Header.Set("Authorization", "Bearer sk-ant-redirected")
	req.Header.Set("api-key", "sk-ant-redirected")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := elsewhereHits.Load(); n != 0 {
		t.Fatalf("the redirect was followed (%d requests reached its target)", n)
	}
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != elsewhere.URL+"/v1/messages" {
		t.Fatalf("want the upstream's 307 and its Location, got %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if exs := recordedExchanges(t, dir); len(exs) != 1 || exs[0].Status != http.StatusTemporaryRedirect {
		t.Fatalf("want the redirect recorded: %+v", exs)
	}
}

// A client that goes away cancels the upstream request it started.
func TestClientLeavingCancelsTheUpstreamRequest(t *testing.T) {
	arrived, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http notices a closed connection only once the body is read
		close(arrived)
		select { // never answers on its own
		case <-r.Context().Done():
			close(cancelled)
		case <-release:
		}
	}))
	defer upstream.Close()
	defer close(release)
	rc, err := NewRecorder(t.TempDir(), Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	front := forwardingFront(t, rc, "sk-ant-client-left")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/v1/messages", strings.NewReader(`{}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the request was answered, want it cancelled")
	}
	select {
	case <-cancelled:
	case <-time.After(30 * time.Second): // a hang guard, not a timing
		t.Fatal("the upstream request was not cancelled when the client left")
	}
}

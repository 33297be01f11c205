package mockprovider_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Each test here is an attack a hostile client made on the mock (loopback
// only, a bounded number of requests, each under a short deadline).

// anthropicHeaders are a valid Anthropic request's headers for a key.
func anthropicHeaders(key string) map[string]string {
	return map[string]string{"x-api-key": key, "anthropic-version": "2023-06-01"}
}

func toolRequest(schema string, stream bool) string {
	return fmt.Sprintf(`{"model":"claude-sonnet-4-5","max_tokens":256,"stream":%t,"tools":[{"name":"big","description":"d","input_schema":%s}],"messages":[{"role":"user","content":"go"}]}`, stream, schema)
}

// postWithin posts and fails the test if the answer takes longer than d.
func postWithin(t *testing.T, d time.Duration, url string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer within %v: %v", d, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("answer not read within %v: %v", d, err)
	}
	return resp.StatusCode, string(b)
}

// A 250-byte tool schema asking for a 100,000-character string, or 20
// million items, is answered at once with the bound, and the journal says so.
func TestSchemaBoundsDoNotStallTheMock(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for i, schema := range []string{
		`{"type":"object","properties":{"p":{"type":"string","minLength":100000}},"required":["p"]}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"minItems":20000000}},"required":["a"]}`,
		`{"type":"object","minProperties":20000000}`,
	} {
		key := fmt.Sprintf("bounds-%d", i)
		code, body := postWithin(t, 5*time.Second, ts.URL+"/v1/messages", anthropicHeaders(key), toolRequest(schema, false))
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		if len(body) > 4<<20 {
			t.Errorf("answer of %d bytes", len(body))
		}
		j := ts.Journal(key)
		if len(j) != 1 || len(j[0].Notes) == 0 || !strings.Contains(j[0].Notes[0], "synthesis bound") {
			t.Errorf("journal notes: %+v", j)
		}
	}
}

// The admin API is closed to other host names (DNS rebinding), other
// origins and non-JSON writes, and never lists keys.
func TestAdminAPIIsClosed(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	const key = "sk-victim-secret-key"
	if code, body := rawPost(t, ts.URL+"/v1/messages", anthropicHeaders(key), toolRequest(`{"type":"object"}`, false)); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	adminDo := func(method, path, ctype string, hdr map[string]string, body string) (int, string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
				continue
			}
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
	// DNS rebinding: a page on attacker.example resolving to 127.0.0.1.
	if code, body := adminDo("GET", "/_toolwire/sessions", "", map[string]string{"Host": "attacker.example:8080"}, ""); code != http.StatusForbidden {
		t.Errorf("rebound Host: %d %s", code, body)
	}
	// A cross-origin simple request (text/plain) queuing a fault.
	if code, body := adminDo("POST", "/_toolwire/sessions/"+key+"/faults", "text/plain", nil, `{"fault":"server_error"}`); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain write: %d %s", code, body)
	}
	if code, body := adminDo("POST", "/_toolwire/sessions/"+key+"/faults", "application/json", map[string]string{"Origin": "https://attacker.example"}, `{"fault":"server_error"}`); code != http.StatusForbidden {
		t.Errorf("cross-origin write: %d %s", code, body)
	}
	if code, body := rawPost(t, ts.URL+"/v1/messages", anthropicHeaders(key), toolRequest(`{"type":"object"}`, false)); code != 200 {
		t.Errorf("a refused admin write still queued a fault: %d %s", code, body)
	}
	// The listing names sessions by a hash; the hash opens the journal.
	code, list := adminDo("GET", "/_toolwire/sessions", "", nil, "")
	if code != 200 || strings.Contains(list, key) || !strings.Contains(list, session.ID(key)) {
		t.Fatalf("listing: %d %s", code, list)
	}
	if code, body := adminDo("GET", "/_toolwire/sessions/"+session.ID(key)+"/journal", "", nil, ""); code != 200 || strings.Contains(body, key) {
		t.Errorf("journal by id: %d %.200s", code, body)
	}
	// The RAP admin routes are guarded too; tool callbacks are not.
	if code, _ := adminDo("POST", "/_toolwire/rap/invoke", "application/json", map[string]string{"Host": "attacker.example"}, `{}`); code != http.StatusForbidden {
		t.Errorf("rap invoke by a rebound Host: %d", code)
	}
	if code, _ := adminDo("POST", "/_toolwire/rap/cb/nope", "application/json", map[string]string{"Host": "tool.example"}, `{}`); code != http.StatusNotFound {
		t.Errorf("callback path: %d, want the runtime's 404", code)
	}
}

// With an admin token the API answers any host name, but only with the token.
func TestAdminToken(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{AdminToken: "s3cret-admin"})
	get := func(path string, hdr map[string]string) int {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Host = "mock.internal:8080"
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("/_toolwire/sessions", nil); c != http.StatusUnauthorized {
		t.Errorf("no token: %d", c)
	}
	if c := get("/_toolwire/sessions", map[string]string{mockprovider.AdminTokenHeader: "wrong"}); c != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", c)
	}
	if c := get("/_toolwire/sessions", map[string]string{mockprovider.AdminTokenHeader: "s3cret-admin"}); c != 200 {
		t.Errorf("token: %d", c)
	}
	if c := get("/_toolwire/health", nil); c != 200 {
		t.Errorf("health (liveness probes) without a token: %d", c)
	}
}

// A key of 900 KB gets the provider's invalid-key answer and no session.
func TestOversizedKeyIsRefused(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	big := "sk-" + strings.Repeat("k", 900<<10)
	code, body := rawPost(t, ts.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer " + big}, `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`)
	if code != 401 || !strings.Contains(body, `"invalid_api_key"`) || len(body) > 1024 {
		t.Errorf("OpenAI: %d %.300s", code, body)
	}
	code, body = rawPost(t, ts.URL+"/v1/messages", anthropicHeaders(big), toolRequest(`{"type":"object"}`, false))
	if code != 401 || !strings.Contains(body, "invalid x-api-key") {
		t.Errorf("Anthropic: %d %.300s", code, body)
	}
	code, body = rawPost(t, ts.URL+"/v1beta/models/gemini-2.5-flash:generateContent", map[string]string{"x-goog-api-key": big}, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	if code != 400 || !strings.Contains(body, "API_KEY_INVALID") {
		t.Errorf("Gemini: %d %.300s", code, body)
	}
	if n := ts.Mock.Sessions().Len(); n != 0 {
		t.Errorf("%d sessions kept for refused keys", n)
	}
}

// 300 distinct fault headers on one session, and 100 queued faults, keep
// a bounded amount of state.
func TestPerSessionStateIsCapped(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	const key = "counters"
	for i := range 300 {
		hdr := anthropicHeaders(key)
		hdr[mockprovider.FaultHeader] = fmt.Sprintf("latency;ms=0;count=%d", 1000+i)
		if code, body := rawPost(t, ts.URL+"/v1/messages", hdr, toolRequest(`{"type":"object"}`, false)); code != 200 {
			t.Fatalf("%d %s", code, body)
		}
	}
	if st := ts.Mock.Sessions().StateBytes(); st > 64<<10 {
		t.Errorf("one session keeps %d bytes of counters", st)
	}
	hdr := anthropicHeaders(key)
	hdr[mockprovider.FaultHeader] = "latency;ms=0;count=1;" + strings.Repeat("after=0;", 4096)
	if code, _ := rawPost(t, ts.URL+"/v1/messages", hdr, toolRequest(`{"type":"object"}`, false)); code != 400 {
		t.Errorf("a 32 KB fault spec: %d", code)
	}
	queued := 0
	for range 100 {
		code, _ := send(t, http.MethodPost, ts.URL+"/_toolwire/sessions/"+key+"/faults", `{"fault":"latency;ms=0;count=1"}`)
		if code == 200 {
			queued++
		}
	}
	if queued != session.MaxQueuedFaults {
		t.Errorf("%d faults queued, cap %d", queued, session.MaxQueuedFaults)
	}
}

// A body sent a byte at a time is cut off at the body-read deadline.
func TestSlowBodyIsCutOff(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{BodyReadTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: slow\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\":")
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	start := time.Now()
	_, err = bufio.NewReader(conn).ReadString('\n') // an answer, or the connection closed
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server still holds a stalled body after %v", time.Since(start))
	}
}

// A client that stops reading a stream does not hold it: the write
// deadline ends the request, and the session settles.
func TestStalledStreamReaderIsDropped(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{StreamWriteTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	// About 60,000 one-byte argument fragments: megabytes of events.
	body := toolRequest(`{"type":"object","properties":{"p":{"type":"string","minLength":60000}},"required":["p"]}`, true)
	fmt.Fprintf(conn, "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: stalled\r\nanthropic-version: 2023-06-01\r\nX-Toolwire-Stream: fragment_size=1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	var sess *session.Session
	for deadline := time.Now().Add(3 * time.Second); sess == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		sess, _ = ts.Mock.Sessions().Lookup("stalled")
	}
	if sess == nil {
		t.Fatal("request never arrived")
	}
	if !sess.Settle(5 * time.Second) {
		t.Fatal("a stream to a reader that stopped is still held after 5s")
	}
}

// Invalid UTF-8 never reaches the journal API's answer.
func TestJournalStaysValidUTF8(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	bad := "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9 \xff\"}]}"
	rawPost(t, ts.URL+"/v1/messages", anthropicHeaders("utf8"), bad)
	resp, err := http.Get(ts.URL + "/_toolwire/sessions/utf8/journal")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !utf8.Valid(b) || !json.Valid(b) {
		t.Fatalf("journal API answered invalid UTF-8 or JSON: %q", b)
	}
}

// deadlineCounter is a ResponseWriter that counts the write deadlines set
// on it (http.ResponseController finds SetWriteDeadline by method).
type deadlineCounter struct {
	*httptest.ResponseRecorder
	set int
}

func (d *deadlineCounter) SetWriteDeadline(time.Time) error { d.set++; return nil }

// Each event of a stream pushes the write deadline out once: the Flush
// right after an event's Write takes the deadline that Write set.
func TestStreamSetsOneWriteDeadlinePerEvent(t *testing.T) {
	srv := mockprovider.New(mockprovider.Options{})
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(toolRequest(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, true)))
	for k, v := range anthropicHeaders("deadlines") {
		r.Header.Set(k, v)
	}
	r.Header.Set("Content-Type", "application/json")
	w := &deadlineCounter{ResponseRecorder: httptest.NewRecorder()}
	srv.ServeHTTP(w, r)
	events := strings.Count(w.Body.String(), "\nevent: ") + 1
	if w.Code != http.StatusOK || events < 5 {
		t.Fatalf("status %d, %d events: %s", w.Code, events, w.Body)
	}
	// Besides one per event: the deadline the server clears when a request
	// starts, and at most one more.
	if w.set > events+2 {
		t.Errorf("%d write deadlines set for %d events, want at most %d", w.set, events, events+2)
	}
}

package openairesp_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// How WebSocket mode ends sockets: at a shutdown, idle, at the API's
// connection limit, beyond the socket cap, and over frames RFC 6455 says
// to fail the connection for. Timeouts here are hang guards only.

const wsHello = `{"type":"response.create","model":"gpt-4.1","input":"Say hello."}`

func wsURL(base string) string { return "ws" + strings.TrimPrefix(base, "http") + "/v1/responses" }

func wsDial(t *testing.T, base, key string, h http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Authorization", "Bearer "+key)
	conn, _, err := websocket.Dial(ctx, wsURL(base), &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.CloseNow() })
	return conn
}

// wsEvent is what the tests read of a socket message.
type wsEvent struct {
	Type     string `json:"type"`
	StreamID string `json:"stream_id"`
	Status   int    `json:"status"`
	Error    struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// readUntilClosed reads events until the socket closes and returns them
// with the read's error (the close, if one came).
func readUntilClosed(t *testing.T, conn *websocket.Conn) ([]wsEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []wsEvent
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatalf("socket still open after %d events", len(evs))
			}
			return evs, err
		}
		var ev wsEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("event %q: %v", b, err)
		}
		evs = append(evs, ev)
	}
}

func types(evs []wsEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// slowStream paces every event of a socket's answers.
func slowStream(delayMS string) http.Header {
	return http.Header{mockprovider.StreamHeader: {"fragment_size=1;chunk_delay_ms=" + delayMS}}
}

// startSlowResponse sends a response.create on a paced socket and waits for
// its first event, so the response is in flight.
func startSlowResponse(t *testing.T, conn *websocket.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, []byte(wsHello)); err != nil {
		t.Fatal(err)
	}
	_, b, err := conn.Read(ctx)
	if err != nil || !strings.Contains(string(b), `"response.created"`) {
		t.Fatalf("first event %s, %v", b, err)
	}
}

// shutdownWithin runs the server's Shutdown with a grace period while the
// test reads its socket (the close handshake needs the client's reply).
func shutdownWithin(ts *mockprovider.TestServer, grace time.Duration) <-chan error {
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		shut <- ts.Mock.Shutdown(ctx)
	}()
	return shut
}

// A shutdown with time to spare lets the response in flight finish, then
// closes the socket with 1001; the exchange is journaled whole.
func TestResponsesSocketShutdownFinishesThenGoesAway(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	conn := wsDial(t, ts.URL, "sk-ws-drain", slowStream("5"))
	startSlowResponse(t, conn)
	shut := shutdownWithin(ts, time.Minute)
	evs, err := readUntilClosed(t, conn)
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("socket ended with %v, want a 1001 close", err)
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != "response.completed" {
		t.Errorf("events after the first: %v, want the rest of the response", types(evs))
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	j := ts.Journal("sk-ws-drain")
	if len(j) != 1 || j[0].Status != 200 || len(j[0].Events) != len(evs)+1 {
		t.Errorf("journal %+v, want the one response with its %d events", j, len(evs)+1)
	}
	// No socket is taken once the shutdown began.
	if status, b := refusedUpgrade(t, ts.URL, "sk-ws-drain"); status != 503 || !strings.Contains(string(b), "toolwire: the server is shutting down") {
		t.Errorf("upgrade after shutdown: %d %s", status, b)
	}
}

// A shutdown whose grace period ends first stops the response where it is:
// the client gets a 1001 close, the journal the events that were sent.
func TestResponsesSocketShutdownCutsAfterGrace(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	conn := wsDial(t, ts.URL, "sk-ws-cut", slowStream("200"))
	startSlowResponse(t, conn)
	shut := shutdownWithin(ts, 50*time.Millisecond)
	evs, err := readUntilClosed(t, conn)
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("socket ended with %v, want a 1001 close", err)
	}
	for _, e := range evs {
		if e.Type == "response.completed" {
			t.Fatalf("the response was not cut: %v", types(evs))
		}
	}
	if err := <-shut; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want the grace period's end", err)
	}
	// Shutdown returned once the handler had: the entry is there now.
	j := ts.Journal("sk-ws-cut")
	if len(j) != 1 || j[0].Status != 200 || len(j[0].Events) != len(evs)+1 {
		t.Fatalf("journal %+v, want the cut response with its %d events", j, len(evs)+1)
	}
	if last := j[0].Events[len(j[0].Events)-1]; strings.Contains(last.Event, "completed") {
		t.Errorf("journal's last event %+v", last)
	}
}

// In record mode the cut exchange is written, marked incomplete, before
// Shutdown returns — what the README promises of a drain cut short.
func TestResponsesSocketShutdownRecordsIncomplete(t *testing.T) {
	release := make(chan struct{}) // should the mock never let go
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: response.created\ndata: {\"type\":\"response.created\"}\n\n")
		w.(http.Flusher).Flush()
		select { // the rest never comes
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(upstream.Close)
	t.Cleanup(func() { close(release) })
	dir := t.TempDir()
	rec, err := record.NewRecorder(dir, record.Upstreams{"openai": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Recorder: rec})
	conn := wsDial(t, ts.URL, "sk-ws-rec", nil)
	startSlowResponse(t, conn)
	shut := shutdownWithin(ts, 50*time.Millisecond)
	if _, err := readUntilClosed(t, conn); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("socket ended with %v, want a 1001 close", err)
	}
	<-shut
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("recordings: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"incomplete":true`) || !strings.Contains(string(b), "response.created") {
		t.Errorf("recording:\n%s", b)
	}
	if j := ts.Journal("sk-ws-rec"); len(j) != 1 {
		t.Errorf("journal %+v", j)
	}
}

// A socket no message comes on is closed (1000) after the idle timeout;
// a response that runs longer than it is not cut, and the timeout counts
// from its end.
func TestResponsesSocketIdleTimeout(t *testing.T) {
	// The message must arrive within the timeout: a second leaves room
	// for a loaded machine.
	ts := mockprovider.NewTestServer(t, mockprovider.Options{WebSocket: mockprovider.WebSocketOptions{IdleTimeout: time.Second}})
	conn := wsDial(t, ts.URL, "sk-ws-idle", slowStream("30"))
	startSlowResponse(t, conn) // some 50 events 30 ms apart: longer than the timeout
	evs, err := readUntilClosed(t, conn)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("socket ended with %v, want a 1000 close", err)
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != "response.completed" {
		t.Errorf("events %v, want the whole response before the close", types(evs))
	}
}

// At its lifetime a socket gets the API's connection-limit error event,
// then a close.
func TestResponsesSocketLifetime(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{WebSocket: mockprovider.WebSocketOptions{MaxLifetime: 50 * time.Millisecond}})
	conn := wsDial(t, ts.URL, "sk-ws-life", nil)
	evs, err := readUntilClosed(t, conn)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("socket ended with %v, want a 1000 close", err)
	}
	if len(evs) != 1 || evs[0].Type != "error" || evs[0].Status != 400 || evs[0].Error.Code != "websocket_connection_limit_reached" ||
		evs[0].Error.Type != "invalid_request_error" || !strings.HasPrefix(evs[0].Error.Message, "Responses websocket connection limit reached (") {
		t.Errorf("events %+v", evs)
	}
}

// refusedUpgrade sends an upgrade by hand and returns the refusal's status
// and body; an upgrade that is taken fails the test (its body would be the
// socket, never ending).
func refusedUpgrade(t *testing.T, base, key string) (int, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(upgradeRequest(t, base, key))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode == http.StatusSwitchingProtocols {
		t.Fatal("the upgrade was taken")
	}
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func upgradeRequest(t *testing.T, base, key string) *http.Request {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/responses", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	return req
}

// Beyond the socket cap an upgrade is refused with a 503 in the API's
// envelope; a socket that closes frees its place.
func TestResponsesSocketCap(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{WebSocket: mockprovider.WebSocketOptions{MaxSockets: 2}})
	first := wsDial(t, ts.URL, "sk-ws-cap", nil)
	wsDial(t, ts.URL, "sk-ws-cap", nil)
	status, b := refusedUpgrade(t, ts.URL, "sk-ws-cap")
	var env struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); status != 503 || err != nil || env.Error.Type != "server_error" || !strings.Contains(env.Error.Message, "--ws-max-sockets") {
		t.Fatalf("third upgrade: %d %s", status, b)
	}
	_ = first.Close(websocket.StatusNormalClosure, "")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		res, err := http.DefaultClient.Do(upgradeRequest(t, ts.URL, "sk-ws-cap"))
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no place after a socket closed: %d", res.StatusCode)
		}
	}
}

// Events reach the client as valid UTF-8 text with stream_id added as a
// member of whatever object they are — {} included — even when the
// upstream (record mode) sends bytes that are not UTF-8.
func TestResponsesSocketEventsAreValidJSONText(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {}\n\n"+
			"data: { }\n\n"+
			"data: {\"type\":\"x\",\"text\":\"a\xffb\"}\n\n"+
			"data: {\"type\":\"response.completed\",\"stream_id\":\"theirs\"}\n\n")
	}))
	t.Cleanup(upstream.Close)
	rec, err := record.NewRecorder(t.TempDir(), record.Upstreams{"openai": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Recorder: rec})
	conn := wsDial(t, ts.URL, "sk-ws-text", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-4.1","input":"Hi","stream_id":"sid1"}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"stream_id":"sid1"}`,
		`{"stream_id":"sid1"}`,
		`{"type":"x","text":"a` + "\uFFFD" + `b","stream_id":"sid1"}`,
		`{"type":"response.completed","stream_id":"sid1"}`,
	}
	for _, w := range want {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if typ != websocket.MessageText || !utf8.Valid(b) || string(b) != w {
			t.Errorf("message %q, want %q", b, w)
		}
	}
}

// A text message that is not UTF-8 fails the connection with 1007 (RFC
// 6455 §8.1), not an error event.
func TestResponsesSocketInvalidUTF8Closes1007(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	conn := wsDial(t, ts.URL, "sk-ws-utf8", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, []byte("{\"type\":\"response.create\",\"input\":\"\xff\"}")); err != nil {
		t.Fatal(err)
	}
	evs, err := readUntilClosed(t, conn)
	if websocket.CloseStatus(err) != websocket.StatusInvalidFramePayloadData || len(evs) != 0 {
		t.Errorf("after invalid UTF-8: events %v, then %v; want a 1007 close", types(evs), err)
	}
}

// rawSocket does the opening handshake by hand, so the test can send what
// no WebSocket client library will: an unmasked frame.
func rawSocket(t *testing.T, base, key string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
	_, err = io.WriteString(c, "GET /v1/responses HTTP/1.1\r\nHost: "+strings.TrimPrefix(base, "http://")+"\r\n"+
		"Authorization: Bearer "+key+"\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", res, err)
	}
	return c, br
}

// An unmasked frame from a client makes the server close with 1002 (RFC
// 6455 §5.1: "a server MUST close the connection upon receiving a frame
// that is not masked", with 1002 per §7.4.1).
func TestResponsesSocketUnmaskedFrameCloses1002(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c, br := rawSocket(t, ts.URL, "sk-ws-mask")
	payload := []byte(wsHello)
	frame := append([]byte{0x81, byte(len(payload))}, payload...) // FIN, text, no mask bit
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		t.Fatalf("no frame from the server: %v", err)
	}
	if head[0] != 0x88 || head[1] < 2 || head[1]&0x80 != 0 {
		t.Fatalf("server sent frame %x, want an unmasked close", head)
	}
	body := make([]byte, head[1])
	if _, err := io.ReadFull(br, body); err != nil {
		t.Fatal(err)
	}
	if code := binary.BigEndian.Uint16(body); code != 1002 {
		t.Errorf("close code %d (%q), want 1002", code, body[2:])
	}
}

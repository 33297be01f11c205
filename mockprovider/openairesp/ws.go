package openairesp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The Responses API's WebSocket mode
// (https://developers.openai.com/api/docs/guides/websocket-mode, events at
// https://developers.openai.com/api/reference/resources/responses/websocket-events):
// GET /v1/responses upgrades, the client sends response.create messages
// (the POST body plus "type"; stream is implied) and each is answered with
// the events the SSE stream carries, one JSON text message per event, on a
// socket that stays open for the next. Every message runs through the
// POST /v1/responses pipeline as a streamed request, so decoding, rules,
// scenarios, faults and the journal are the same; only store:false
// responses live on the socket (SocketCache) instead of the
// session.

// socketRoute serves GET /v1/responses: a WebSocket upgrade, or what a
// plain GET was before (no such route).
func (d *Dialect) socketRoute(h dialect.SocketHost) http.HandlerFunc {
	create := h.Pipeline(d)
	return func(w http.ResponseWriter, r *http.Request) {
		serveSocket(h, w, r, d, create)
	}
}

func serveSocket(h dialect.SocketHost, w http.ResponseWriter, r *http.Request, d dialect.Dialect, create http.HandlerFunc) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		h.NotFound(w, r) // a plain GET is what it was before: no such route
		return
	}
	// The key is checked before upgrading, with the answer POST gives.
	key, ok := h.SessionKey(d, w, r)
	if !ok {
		return
	}
	limits := h.SocketLimits()
	place, aerr := h.AdmitSocket()
	if aerr != nil {
		h.WriteErrorFor(d.Name(), w, aerr)
		return
	}
	defer place.Leave()
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return // Accept answered the handshake's error
	}
	defer func() { _ = conn.CloseNow() }()
	conn.SetReadLimit(limits.ReadLimit) // a larger message closes the socket (1009)
	// The responses of this socket end when the shutdown's grace period
	// does: the pipeline's request context is this one.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(place.Cut, cancel)()
	sock := &responsesSocket{sessions: h.Sessions(), limits: limits, conn: conn, upgrade: r, key: key, create: create, cache: NewSocketCache()}
	sock.run(WithSocketCache(ctx, sock.cache), place.Drain)
}

// socketRead is one Read of the socket.
type socketRead struct {
	typ websocket.MessageType
	msg []byte
	err error
}

// run answers the socket's messages until it closes, the client's way or
// the server's: idle too long, open too long, shutting down, or a frame
// RFC 6455 says to fail the connection over.
func (sock *responsesSocket) run(ctx context.Context, drain <-chan struct{}) {
	limits := sock.limits
	// Reading has its own goroutine so that the timers and a shutdown
	// are heard while the client is silent; a Read whose context ends
	// drops the connection without a close frame, so the reads' context
	// never ends and the socket is closed to stop them.
	reads := make(chan socketRead)
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		readCtx := context.WithoutCancel(ctx)
		for {
			typ, msg, err := sock.conn.Read(readCtx)
			select {
			case reads <- socketRead{typ, msg, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		_ = sock.conn.CloseNow()
		<-readerDone
	}()
	idle := time.NewTimer(limits.IdleTimeout)
	defer idle.Stop()
	lifetime := time.NewTimer(limits.MaxLifetime)
	defer lifetime.Stop()
	for {
		select {
		case <-drain:
			sock.close(websocket.StatusGoingAway, "server shutting down")
			return
		default:
		}
		select {
		case <-drain:
			sock.close(websocket.StatusGoingAway, "server shutting down")
			return
		case <-idle.C:
			sock.close(websocket.StatusNormalClosure, fmt.Sprintf("no message for %s", limits.IdleTimeout))
			return
		case <-lifetime.C:
			sock.lifetimeReached(ctx, limits.MaxLifetime)
			return
		case rd := <-reads:
			switch {
			case rd.err != nil:
				sock.readFailed(rd.err)
				return
			case rd.typ == websocket.MessageText && !utf8.Valid(rd.msg):
				// RFC 6455 §8.1: text that is not UTF-8 fails the
				// connection, with 1007 (§7.4.1).
				sock.close(websocket.StatusInvalidFramePayloadData, "text message is not valid UTF-8")
				return
			}
			select {
			case <-drain: // arrived as the shutdown began: not answered
				sock.close(websocket.StatusGoingAway, "server shutting down")
				return
			default:
			}
			if !sock.answer(ctx, rd.msg) {
				return
			}
			idle.Reset(limits.IdleTimeout)
		}
	}
}

// close sends a close frame and waits (briefly: the library bounds it)
// for the client's.
func (sock *responsesSocket) close(code websocket.StatusCode, reason string) {
	_ = sock.conn.Close(code, reason)
}

// readFailed ends a socket whose Read failed. The library has already
// answered most protocol errors with a 1002 close (reserved bits, unknown
// opcodes) and oversized messages with 1009, and a client's close needs no
// answer; an unmasked client frame it only reports, though RFC 6455 §5.1
// says the server MUST close the connection over it. The library exposes
// no sentinel for that error, so its text is matched (a test holds it).
func (sock *responsesSocket) readFailed(err error) {
	if strings.Contains(err.Error(), "received unmasked frame from client") {
		sock.close(websocket.StatusProtocolError, "unmasked frame from a client")
	}
}

// lifetimeReached ends a socket at the API's connection limit with the
// error event the guide shows
// (https://developers.openai.com/api/docs/guides/websocket-mode, "Errors
// to handle": websocket_connection_limit_reached, status 400). The close
// code that follows is not documented; 1000 says the socket did nothing
// wrong.
func (sock *responsesSocket) lifetimeReached(ctx context.Context, lifetime time.Duration) {
	span := lifetime.String()
	if lifetime%time.Minute == 0 {
		span = fmt.Sprintf("%d minutes", lifetime/time.Minute)
	}
	e := &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Code: "websocket_connection_limit_reached",
		Message: fmt.Sprintf("Responses websocket connection limit reached (%s). Create a new websocket connection to continue.", span)}
	out := socketWriter{ctx: ctx, conn: sock.conn, timeout: sock.limits.WriteTimeout}
	out.send(errorEvent(e.Status, apiErrorObject(e), ""))
	sock.close(websocket.StatusNormalClosure, "connection limit reached")
}

type responsesSocket struct {
	sessions *session.Store
	limits   dialect.SocketLimits
	conn     *websocket.Conn
	upgrade  *http.Request
	key      string
	create   http.HandlerFunc
	cache    *SocketCache
}

// answer handles one client message; false means the socket is gone.
func (sock *responsesSocket) answer(ctx context.Context, msg []byte) bool {
	ev, aerr := readClientEvent(msg)
	if aerr != nil {
		sock.journalRefusal(msg, aerr)
		out := socketWriter{ctx: ctx, conn: sock.conn, timeout: sock.limits.WriteTimeout, streamID: ev.streamID}
		out.send(errorEvent(aerr.Status, apiErrorObject(aerr), ev.streamID))
		return out.err == nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, Path, bytes.NewReader(ev.body))
	if err != nil {
		return false
	}
	req.Header = sock.upgrade.Header.Clone()
	for _, h := range []string{"Upgrade", "Connection", "Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions", "Sec-Websocket-Protocol"} {
		req.Header.Del(h)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Host, req.RemoteAddr, req.RequestURI = sock.upgrade.Host, sock.upgrade.RemoteAddr, Path
	out := &socketWriter{ctx: ctx, conn: sock.conn, timeout: sock.limits.WriteTimeout, streamID: ev.streamID, header: http.Header{}}
	sock.create(out, req)
	out.finish()
	if out.failed && ev.previous != "" {
		sock.cache.Evict(ev.previous)
	}
	return out.err == nil
}

// errCut is what the pipeline's writes get once the shutdown's grace
// period is over: the stream stops there and its journal entry (and
// recording, marked incomplete) keeps what was sent.
var errCut = errors.New("toolwire: server shut down before the response finished")

// journalRefusal records a message refused before the pipeline (not a
// response.create, or a field only WebSocket mode has, wrong).
func (sock *responsesSocket) journalRefusal(msg []byte, e *wire.APIError) {
	entry := session.Entry{Dialect: conv.OpenAIResponses, Method: http.MethodGet, Path: Path, Status: e.Status, Answered: e.RuleID}
	if jsontext.Value(msg).IsValid() {
		entry.Request = append(json.RawMessage(nil), msg...)
	}
	entry.Response, _ = json.Marshal(map[string]json.RawMessage{"error": apiErrorObject(e)})
	sock.sessions.Get(sock.key).Record(entry)
}

// clientEvent is a response.create message turned into a POST body.
type clientEvent struct {
	body     []byte
	streamID string
	previous string
}

// readClientEvent checks what WebSocket mode adds to the create body and
// returns the body POST /v1/responses would get: without type, stream_id
// and generate, with "stream":true. A message that is not a JSON object
// goes to the pipeline as it is, to get the answer POST gives such a body;
// one that does not parse gets POST's parse error.
// The texts of the refusals here are inferred, in the API's words for the
// same faults in a POST body.
func readClientEvent(msg []byte) (clientEvent, *wire.APIError) {
	var ev clientEvent
	if !jsontext.Value(msg).IsValid(jsontext.AllowDuplicateNames(true)) {
		// POST's answer to a body that does not parse, whatever member
		// came before the fault.
		e := openaiwire.InvalidJSON()
		e.RuleID = RuleValidJSON
		return ev, e
	}
	dec := jsontext.NewDecoder(bytes.NewReader(msg), jsontext.AllowDuplicateNames(true))
	if tok, _ := dec.ReadToken(); tok.Kind() != '{' {
		ev.body = msg
		return ev, nil
	}
	body := []byte{'{'}
	var typ jsontext.Value
	for dec.PeekKind() != '}' {
		tok, _ := dec.ReadToken()
		name := tok.String() // before the next read voids the token
		val, _ := dec.ReadValue()
		switch name {
		case "type":
			typ = bytes.Clone(val)
			continue
		case "stream":
			continue // implied: every answer on the socket is streamed
		case "stream_id":
			var id string
			if val.Kind() != '"' || json.Unmarshal(val, &id) != nil || !validStreamID(id) {
				return ev, socketRefusal("stream_id", "invalid_value", "Invalid 'stream_id': string does not match pattern. Expected a string that matches the pattern '^[A-Za-z0-9_.-]{1,256}$'.")
			}
			ev.streamID = id
			continue
		case "generate":
			switch val.Kind() {
			case 't':
				continue // the default
			case 'f':
				return ev, socketRefusal("generate", nil, "toolwire: generate: false (a warmup without output) is not implemented by the mock")
			}
			return ev, socketRefusal("generate", "invalid_type", fmt.Sprintf("Invalid type for 'generate': expected a boolean, but got %s instead.", GotOf(byte(val.Kind()), string(val))))
		case "background":
			if val.Kind() == 't' {
				return ev, socketRefusal("background", "unsupported_parameter", "Unsupported parameter: 'background' is not supported in WebSocket mode.")
			}
		case "previous_response_id":
			_ = json.Unmarshal(val, &ev.previous)
		}
		if len(body) > 1 {
			body = append(body, ',')
		}
		body, _ = jsontext.AppendQuote(body, name)
		body = append(body, ':')
		body = append(body, val...)
	}
	var kind string
	if typ.Kind() == '"' {
		_ = json.Unmarshal(typ, &kind)
	}
	switch {
	case typ == nil:
		return ev, socketRefusal("type", "missing_required_parameter", "Missing required parameter: 'type'.")
	case kind == "response.steer":
		return ev, socketRefusal("type", nil, "toolwire: response.steer is not implemented by the mock")
	case kind != "response.create":
		return ev, socketRefusal("type", "invalid_value", fmt.Sprintf("Invalid value: %s. Supported values are: 'response.create' and 'response.steer'.", quoteSingle(typ)))
	}
	if len(body) > 1 {
		body = append(body, ',')
	}
	ev.body = append(body, `"stream":true}`...)
	return ev, nil
}

func socketRefusal(param string, code any, msg string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: param, Code: code, Message: msg}
}

// validStreamID is the SDK's check
// (https://github.com/openai/openai-go/blob/v3.96.0/responses/responses_websocket.go).
func validStreamID(id string) bool {
	if len(id) == 0 || len(id) > 256 {
		return false
	}
	for i := range len(id) {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// quoteSingle shows a value as the API's messages do: a string in single
// quotes, anything else as sent.
func quoteSingle(v jsontext.Value) string {
	var s string
	if v.Kind() == '"' && json.Unmarshal(v, &s) == nil {
		return "'" + s + "'"
	}
	return string(v)
}

// apiErrorObject is the error member of the API's envelope.
func apiErrorObject(e *wire.APIError) json.RawMessage {
	b, _ := json.Marshal(openaiwire.NewErrorObject(e))
	return b
}

// errorEvent is the API's error event on a socket: the HTTP status beside
// the error object the HTTP answer would carry (the SDK's
// ResponsesServerEventResponseWsError,
// https://github.com/openai/openai-go/blob/v3.96.0/responses/response.go).
func errorEvent(status int, errObj json.RawMessage, streamID string) []byte {
	b := []byte(`{"type":"error","status":`)
	b = fmt.Appendf(b, "%d", status)
	b = append(b, `,"error":`...)
	if len(errObj) == 0 || !jsontext.Value(errObj).IsValid() {
		errObj, _ = json.Marshal(map[string]any{"message": http.StatusText(status), "type": "server_error", "param": nil, "code": nil})
	}
	b = append(b, errObj...)
	if streamID != "" {
		b = append(b, `,"stream_id":`...)
		b, _ = jsontext.AppendQuote(b, streamID)
	}
	return append(b, '}')
}

// socketWriter is the ResponseWriter the pipeline answers a socket message
// through: each SSE event's data becomes one text message (with the
// message's stream_id, when it had one), and an HTTP error answer becomes an
// error event.
type socketWriter struct {
	ctx      context.Context
	conn     *websocket.Conn
	timeout  time.Duration
	streamID string
	header   http.Header
	status   int
	sse      bool
	pending  []byte
	// failed is set when the answer was an error, before or during the
	// stream; err when the socket could not be written; cut when the
	// answer was stopped by a shutdown (the socket is still open, to be
	// closed with 1001).
	failed bool
	err    error
	cut    bool
}

func (w *socketWriter) Header() http.Header { return w.header }

func (w *socketWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.sse = code == http.StatusOK && strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream")
	w.failed = code >= 400
}

func (w *socketWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.ctx.Err() != nil {
		w.cut = true
		return 0, errCut
	}
	w.pending = append(w.pending, b...)
	if w.sse {
		for {
			i := bytes.Index(w.pending, []byte("\n\n"))
			if i < 0 {
				break
			}
			w.sendSSE(w.pending[:i])
			w.pending = append(w.pending[:0], w.pending[i+2:]...)
		}
	}
	return len(b), w.err
}

// Flush: every whole event is sent as it is written.
func (w *socketWriter) Flush() {}

// Hijack serves a disconnect fault: closing what it returns drops the
// socket without a closing handshake, as the fault drops a TCP connection.
func (w *socketWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.err = net.ErrClosed
	return droppedSocket{Conn: websocket.NetConn(w.ctx, w.conn, websocket.MessageText), ws: w.conn}, nil, nil
}

type droppedSocket struct {
	net.Conn
	ws *websocket.Conn
}

func (d droppedSocket) Close() error { return d.ws.CloseNow() }

// finish sends what is left once the pipeline returns.
func (w *socketWriter) finish() {
	switch {
	case w.cut: // the rest of the answer was never written
	case w.sse:
		if len(bytes.TrimSpace(w.pending)) > 0 {
			w.sendSSE(w.pending)
		}
	case w.status >= 400:
		var env struct {
			Error json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(w.pending, &env)
		w.send(errorEvent(w.status, env.Error, w.streamID))
	case len(w.pending) > 0: // a JSON answer (a recording, a fault)
		w.send(w.pending)
	}
	w.pending = nil
}

// sendSSE sends the data of one SSE event.
func (w *socketWriter) sendSSE(block []byte) {
	var data []byte
	for line := range bytes.SplitSeq(block, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		} else if bytes.Equal(line, []byte("event: error")) {
			w.failed = true
		}
	}
	if len(data) == 0 {
		return
	}
	data = validUTF8(data)
	if w.streamID != "" {
		data = withStreamID(data, w.streamID)
	}
	w.send(data)
}

// validUTF8 replaces the bytes of b that are not UTF-8 with U+FFFD,
// copying b only then.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// withStreamID adds "stream_id" to an event that is a JSON object (any
// member of that name replaced); anything else is returned as it is.
func withStreamID(event []byte, id string) []byte {
	if jsontext.Value(event).Kind() != '{' || !jsontext.Value(event).IsValid(jsontext.AllowDuplicateNames(true)) {
		return event
	}
	dec := jsontext.NewDecoder(bytes.NewReader(event), jsontext.AllowDuplicateNames(true))
	_, _ = dec.ReadToken() // {
	out := make([]byte, 0, len(event)+len(id)+16)
	out = append(out, '{')
	for dec.PeekKind() != '}' {
		name, _ := dec.ReadToken()
		key := name.String() // before the next read voids the token
		val, _ := dec.ReadValue()
		if key == "stream_id" {
			continue
		}
		out, _ = jsontext.AppendQuote(out, key)
		out = append(out, ':')
		out = append(out, val...)
		out = append(out, ',')
	}
	out = append(out, `"stream_id":`...)
	out, _ = jsontext.AppendQuote(out, id)
	return append(out, '}')
}

// send writes one text message: valid UTF-8 always (RFC 6455 §5.6), since
// a recorded or upstream event may not be; invalid bytes become U+FFFD.
// The write's deadline is its own: a shutdown that cuts the response
// must not drop the socket mid-write, before its 1001 close.
func (w *socketWriter) send(b []byte) {
	if w.err != nil {
		return
	}
	b = validUTF8(b)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), w.timeout)
	defer cancel()
	w.err = w.conn.Write(ctx, websocket.MessageText, b)
}

package anthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// stream writes the event sequence of the streaming page: message_start,
// per block content_block_start / deltas / content_block_stop (a ping after
// the first start), message_delta with the stop reason and cumulative
// usage, message_stop.
//
// message_start carries the input and cache figures with one output token;
// message_delta repeats them with the final output count.
func (d *Dialect) stream(x *dialect.Exchange, req *Request, msgID string, blocks []block, stop stopDelta, total usage) {
	x.W = &namedEvents{ResponseWriter: x.W}
	s := x.SSE("")
	size := x.Stream.FragmentSize
	start := total
	start.OutputTokens = 1
	// One buffer for every event's data: the stream copies what it sends.
	pooled := contentBuffers.Get().(*[]byte)
	defer releaseContent(pooled)
	buf := (*pooled)[:0]
	send := func(name string, data []byte) bool {
		buf, *pooled = data, data
		return s.EventBytes(name, data) == nil
	}
	if !send("message_start", appendMessageStart(buf[:0], &messageBody{
		ID: msgID, Type: "message", Role: "assistant", Model: req.Model, Content: emptyContent, Usage: start,
	})) {
		return
	}
	delta := func(i int, typ, field, value string) bool {
		return send("content_block_delta", appendDelta(buf[:0], i, typ, field, value))
	}
	// fragments streams text in pieces of the configured size.
	fragments := func(i int, typ, field, text string) bool {
		for rest := text; len(rest) > 0; {
			var f string
			f, rest = wire.NextFragment(rest, size)
			if !delta(i, typ, field, f) {
				return false
			}
		}
		return true
	}
	for i := range blocks {
		b := &blocks[i]
		if !send("content_block_start", appendBlockStart(buf[:0], i, b)) {
			return
		}
		if i == 0 && s.EventBytes("ping", pingData) != nil {
			return
		}
		switch b.kind {
		case "thinking":
			if !fragments(i, "thinking_delta", "thinking", b.text) || !delta(i, "signature_delta", "signature", b.sig) {
				return
			}
		case "text":
			if !fragments(i, "text_delta", "text", b.text) {
				return
			}
		case "tool_use":
			// The API's first input delta is an empty string.
			if !delta(i, "input_json_delta", "partial_json", "") || !fragments(i, "input_json_delta", "partial_json", b.streamedArgs()) {
				return
			}
		}
		if !send("content_block_stop", appendBlockStop(buf[:0], i)) {
			return
		}
	}
	if !send("message_delta", appendMessageDelta(buf[:0], &messageDelta{Type: "message_delta", Delta: stop, Usage: deltaUsage{InputTokens: total.InputTokens,
		CacheCreationInputTokens: total.CacheCreationInputTokens, CacheReadInputTokens: total.CacheReadInputTokens, OutputTokens: total.OutputTokens}})) {
		return
	}
	_ = s.EventBytes("message_stop", messageStopData)
}

// The events without content, written as they are (send would reuse
// them as its buffer: they go to EventBytes directly).
var (
	emptyContent    = json.RawMessage(`[]`)
	pingData        = []byte(`{"type":"ping"}`)
	messageStopData = []byte(`{"type":"message_stop"}`)
)

// namedEvents gives a name to data-only events written into the stream.
// The Anthropic stream never has one, and the SDKs skip unnamed events
// silently; a corrupted chunk injected by a fault is data-only, so naming
// it makes it reach the client's parser, as a corrupted event from the
// real API would.
type namedEvents struct {
	http.ResponseWriter
}

func (w *namedEvents) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, []byte("data:")) {
		n, err := w.ResponseWriter.Write(append([]byte("event: content_block_delta\n"), b...))
		return min(n, len(b)), err
	}
	return w.ResponseWriter.Write(b)
}

func (w *namedEvents) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack lets a disconnect fault drop the connection.
func (w *namedEvents) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *namedEvents) Unwrap() http.ResponseWriter { return w.ResponseWriter }

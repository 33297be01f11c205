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
	send := func(name string, data any) bool { return s.Event(name, data) == nil }
	if !send("message_start", messageStart{Type: "message_start", Message: messageBody{
		ID: msgID, Type: "message", Role: "assistant", Model: req.Model, Content: json.RawMessage(`[]`), Usage: start,
	}}) {
		return
	}
	delta := func(i int, d any) bool {
		return send("content_block_delta", blockDelta{Type: "content_block_delta", Index: i, Delta: d})
	}
	// fragments streams text in pieces of the configured size.
	fragments := func(i int, text string, piece func(string) any) bool {
		for rest := text; len(rest) > 0; {
			var f string
			f, rest = wire.NextFragment(rest, size)
			if !delta(i, piece(f)) {
				return false
			}
		}
		return true
	}
	thinkingPiece := func(f string) any { return thinkingDelta{Type: "thinking_delta", Thinking: f} }
	textPiece := func(f string) any { return textDelta{Type: "text_delta", Text: f} }
	inputPiece := func(f string) any { return jsonDelta{Type: "input_json_delta", PartialJSON: f} }
	for i := range blocks {
		b := &blocks[i]
		if !send("content_block_start", blockStart{Type: "content_block_start", Index: i, ContentBlock: b.opening()}) {
			return
		}
		if i == 0 && !send("ping", typed{Type: "ping"}) {
			return
		}
		switch b.kind {
		case "thinking":
			if !fragments(i, b.text, thinkingPiece) || !delta(i, signatureDelta{Type: "signature_delta", Signature: b.sig}) {
				return
			}
		case "text":
			if !fragments(i, b.text, textPiece) {
				return
			}
		case "tool_use":
			// The API's first input delta is an empty string.
			if !delta(i, inputPiece("")) || !fragments(i, b.streamedArgs(), inputPiece) {
				return
			}
		}
		if !send("content_block_stop", blockStop{Type: "content_block_stop", Index: i}) {
			return
		}
	}
	if !send("message_delta", messageDelta{Type: "message_delta", Delta: stop, Usage: deltaUsage{InputTokens: total.InputTokens,
		CacheCreationInputTokens: total.CacheCreationInputTokens, CacheReadInputTokens: total.CacheReadInputTokens, OutputTokens: total.OutputTokens}}) {
		return
	}
	send("message_stop", typed{Type: "message_stop"})
}

// opening is the block as content_block_start opens it: empty text,
// thinking and input; redacted data whole.
func (b *block) opening() any {
	switch b.kind {
	case "thinking":
		return thinkingBlock{Type: "thinking"}
	case "redacted_thinking":
		return b.body
	case "text":
		return textBlock{Type: "text"}
	case "tool_use":
		return toolUseBlock{Type: "tool_use", ID: b.id, Name: b.name, Input: json.RawMessage(`{}`), Caller: caller{Type: "direct"}}
	}
	return nil
}

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

package bedrock

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// eventStreamType is the content type of /converse-stream's answer.
const eventStreamType = "application/vnd.amazon.eventstream"

// eventStreamWriter gives the stream its content type: the shared stream
// writer sets text/event-stream, which the SDK's reader does not mind but
// a client checking the header would.
type eventStreamWriter struct{ http.ResponseWriter }

func (w eventStreamWriter) WriteHeader(code int) {
	w.Header().Set("Content-Type", eventStreamType)
	w.Header().Del("Cache-Control")
	w.Header().Del("Connection")
	w.ResponseWriter.WriteHeader(code)
}

func (w eventStreamWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w eventStreamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// streamEvent is one message of the stream: its :event-type and payload.
type streamEvent struct {
	name    string
	payload any
}

// stream sends the answer as AWS event-stream messages: messageStart, per
// block contentBlockStart (toolUse only), contentBlockDelta fragments and
// contentBlockStop, then messageStop and metadata
// (API_runtime_ConverseStream.html#API_runtime_ConverseStream_ResponseSyntax).
func (d *Dialect) stream(x *dialect.Exchange, blocks []OutBlock, stop string, usage Usage) {
	x.W = eventStreamWriter{x.W}
	s := x.SSE("")
	size := s.Config().FragmentSize
	events := []streamEvent{{"messageStart", map[string]any{"role": roleAssistant}}}
	for i, b := range blocks {
		delta := func(v map[string]any) {
			events = append(events, streamEvent{"contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": v}})
		}
		switch {
		case b.ToolUse != nil:
			events = append(events, streamEvent{"contentBlockStart", map[string]any{"contentBlockIndex": i,
				"start": map[string]any{"toolUse": map[string]any{"toolUseId": b.ToolUse.ToolUseID, "name": b.ToolUse.Name}}}})
			in, _ := json.Marshal(b.ToolUse.Input)
			for _, f := range wire.Fragments(string(in), size) {
				delta(map[string]any{"toolUse": map[string]any{"input": f}})
			}
		case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText == nil:
			delta(map[string]any{"reasoningContent": map[string]any{"redactedContent": b.ReasoningContent.RedactedContent}})
		case b.ReasoningContent != nil:
			for _, f := range wire.Fragments(b.ReasoningContent.ReasoningText.Text, size) {
				delta(map[string]any{"reasoningContent": map[string]any{"text": f}})
			}
			delta(map[string]any{"reasoningContent": map[string]any{"signature": b.ReasoningContent.ReasoningText.Signature}})
		case b.Text != nil:
			for _, f := range wire.Fragments(*b.Text, size) {
				delta(map[string]any{"text": f})
			}
		}
		events = append(events, streamEvent{"contentBlockStop", map[string]any{"contentBlockIndex": i}})
	}
	events = append(events,
		streamEvent{"messageStop", map[string]any{"stopReason": stop}},
		streamEvent{"metadata", map[string]any{"usage": usage, "metrics": Metrics{LatencyMs: 100}}})
	cfg := s.Config()
	for i, ev := range events {
		if s.Hook != nil {
			if s.Hook(i) != nil {
				return
			}
		}
		if i == 0 && cfg.FirstTokenDelay > 0 {
			time.Sleep(cfg.FirstTokenDelay)
		} else if i > 0 && cfg.ChunkDelay > 0 {
			time.Sleep(cfg.ChunkDelay)
		}
		payload, err := json.Marshal(ev.payload)
		if err != nil {
			return
		}
		msg := eventstream.Message{Payload: payload}
		msg.Headers.Set(":event-type", eventstream.StringValue(ev.name))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		if writeFrame(s, ev.name, msg) != nil {
			return
		}
	}
}

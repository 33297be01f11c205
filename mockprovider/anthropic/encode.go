package anthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Wire shapes of a Message (response body, message_start) in the field
// order of the API's recordings (provider-rules.md §3.4).
type messageBody struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      json.RawMessage `json:"content"` // the blocks, encoded once
	StopReason   *string         `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	StopDetails  any             `json:"stop_details"`
	Usage        usage           `json:"usage"`
}

type usage struct {
	InputTokens              int            `json:"input_tokens"`
	CacheCreationInputTokens int            `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int            `json:"cache_read_input_tokens"`
	CacheCreation            *cacheCreation `json:"cache_creation,omitempty"`
	OutputTokens             int            `json:"output_tokens"`
	ServiceTier              string         `json:"service_tier,omitempty"`
	InferenceGeo             string         `json:"inference_geo,omitempty"`
}

// countTokensBody is the answer of POST /v1/messages/count_tokens.
type countTokensBody struct {
	InputTokens int `json:"input_tokens"`
}

type cacheCreation struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type toolUseBlock struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Caller caller          `json:"caller"`
}

type caller struct {
	Type string `json:"type"`
}

// Stream event payloads, "type" first as the API writes them.
type messageStart struct {
	Type    string      `json:"type"`
	Message messageBody `json:"message"`
}

type blockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type blockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type blockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string     `json:"type"`
	Delta stopDelta  `json:"delta"`
	Usage deltaUsage `json:"usage"`
}

type stopDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	StopDetails  any     `json:"stop_details"`
}

// deltaUsage is message_delta's cumulative usage.
type deltaUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type typed struct {
	Type string `json:"type"`
}

type textDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type jsonDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

type thinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type signatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

// block is one reply block with what streaming needs to replay it.
type block struct {
	kind string // "thinking", "text", "tool_use"
	body any    // the complete block
	text string // text or thinking to stream
	sig  string // thinking signature
	args string // tool_use input JSON to stream
	id   string
	name string
}

// reply turns the neutral reply into Anthropic blocks and a stop reason.
func reply(x *dialect.Exchange, req *Request, r *model.Reply) ([]block, string) {
	var out []block
	stop := "end_turn"
	for _, p := range r.Turn.Parts {
		switch p.Kind {
		case conv.KindReasoning:
			// Thinking blocks exist only when the request enabled thinking.
			if !req.Thinking || p.Reasoning == nil {
				continue
			}
			out = append(out, thinking(p.Reasoning.Summary))
		case conv.KindText:
			out = append(out, block{kind: "text", text: p.Text, body: textBlock{Type: "text", Text: p.Text}})
		case conv.KindCall:
			id := p.Call.ID
			if id == "" {
				id = x.IDs().Next("toolu_01", 22)
			}
			args, err := json.Marshal(p.Call.Arguments)
			if err != nil || p.Call.Arguments == nil {
				args = []byte("{}")
			}
			out = append(out, block{kind: "tool_use", id: id, name: p.Call.Name, args: string(args),
				body: toolUseBlock{Type: "tool_use", ID: id, Name: p.Call.Name, Input: args, Caller: caller{Type: "direct"}}})
			stop = "tool_use"
		case conv.KindRefusal:
			out = append(out, block{kind: "text", text: p.Text, body: textBlock{Type: "text", Text: p.Text}})
			stop = "refusal"
		}
	}
	if len(out) == 0 {
		out = append(out, block{kind: "text", body: textBlock{Type: "text", Text: ""}})
	}
	if req.thinksNow() && out[0].kind != "thinking" {
		out = append([]block{thinking(defaultThinking)}, out...)
	}
	return out, stop
}

// thinking is a signed thinking block.
func thinking(text string) block {
	sig := sign(text)
	return block{kind: "thinking", text: text, sig: sig, body: thinkingBlock{Type: "thinking", Thinking: text, Signature: sig}}
}

// thinksNow reports whether the model opens this answer with thinking:
// with thinking on, at the start of a turn, and after tool results only
// under the interleaved-thinking beta (without it the model thinks once
// per assistant turn, before its first tool call).
func (r *Request) thinksNow() bool {
	if !r.Thinking {
		return false
	}
	if n := len(r.Groups); n > 0 && r.Groups[n-1].Role == "user" && hasType(r.Groups[n-1].Blocks, "tool_result") {
		return r.Interleaved
	}
	return true
}

// tokens is a deterministic size-based estimate (about four bytes a
// token), so usage is plausible and stable between runs.
func tokens(n int) int { return max(1, n/4) }

// Encode answers with a Message body, or with the event stream when the
// request set stream:true.
func (d *Dialect) Encode(x *dialect.Exchange, reqAny any, c *conv.Conversation, r *model.Reply) {
	req, _ := reqAny.(*Request)
	if req == nil {
		req = &Request{Model: c.Model}
	}
	setRateLimits(x.W.Header(), time.Now(), requestLimit-1)
	if req.CountTokens {
		x.W.Header().Set("Request-Id", x.IDs().Next("req_011C", 20))
		x.JSON(http.StatusOK, countTokensBody{InputTokens: tokens(req.promptSize())})
		return
	}
	blocks, stop := reply(x, req, r)
	content := make([]any, len(blocks))
	for i, b := range blocks {
		content[i] = b.body
	}
	raw, _ := json.Marshal(content)
	in, out := tokens(req.promptSize()), tokens(len(raw))
	msgID := x.IDs().Next("msg_01", 22)
	x.W.Header().Set("Request-Id", x.IDs().Next("req_011C", 20))
	if !c.Stream {
		x.JSON(http.StatusOK, messageBody{
			ID: msgID, Type: "message", Role: "assistant", Model: req.Model, Content: raw,
			StopReason: &stop, Usage: fullUsage(in, out),
		})
		return
	}
	d.stream(x, req, msgID, blocks, stop, in, out)
}

func fullUsage(in, out int) usage {
	return usage{InputTokens: in, CacheCreation: &cacheCreation{}, OutputTokens: out, ServiceTier: "standard", InferenceGeo: "not_available"}
}

// stream writes the event sequence of the streaming page: message_start,
// per block content_block_start / deltas / content_block_stop (a ping after
// the first start), message_delta with the stop reason and cumulative
// usage, message_stop.
func (d *Dialect) stream(x *dialect.Exchange, req *Request, msgID string, blocks []block, stop string, in, out int) {
	x.W = &namedEvents{ResponseWriter: x.W}
	s := x.SSE("")
	size := x.Stream.FragmentSize
	start := usage{InputTokens: in, CacheCreation: &cacheCreation{}, OutputTokens: 1, ServiceTier: "standard", InferenceGeo: "not_available"}
	send := func(name string, v any) bool { return s.Event(name, v) == nil }
	if !send("message_start", messageStart{Type: "message_start", Message: messageBody{
		ID: msgID, Type: "message", Role: "assistant", Model: req.Model, Content: json.RawMessage(`[]`), Usage: start,
	}}) {
		return
	}
	delta := func(i int, d any) bool {
		return send("content_block_delta", blockDelta{Type: "content_block_delta", Index: i, Delta: d})
	}
	for i, b := range blocks {
		var first any
		switch b.kind {
		case "thinking":
			first = thinkingBlock{Type: "thinking"}
		case "text":
			first = textBlock{Type: "text"}
		case "tool_use":
			first = toolUseBlock{Type: "tool_use", ID: b.id, Name: b.name, Input: json.RawMessage("{}"), Caller: caller{Type: "direct"}}
		}
		if !send("content_block_start", blockStart{Type: "content_block_start", Index: i, ContentBlock: first}) {
			return
		}
		if i == 0 && !send("ping", typed{Type: "ping"}) {
			return
		}
		switch b.kind {
		case "thinking":
			for _, f := range wire.Fragments(b.text, size) {
				if !delta(i, thinkingDelta{Type: "thinking_delta", Thinking: f}) {
					return
				}
			}
			if !delta(i, signatureDelta{Type: "signature_delta", Signature: b.sig}) {
				return
			}
		case "text":
			for _, f := range wire.Fragments(b.text, size) {
				if !delta(i, textDelta{Type: "text_delta", Text: f}) {
					return
				}
			}
		case "tool_use":
			// The API's first input delta is an empty string.
			for _, f := range append([]string{""}, wire.Fragments(b.args, size)...) {
				if !delta(i, jsonDelta{Type: "input_json_delta", PartialJSON: f}) {
					return
				}
			}
		}
		if !send("content_block_stop", blockStop{Type: "content_block_stop", Index: i}) {
			return
		}
	}
	if !send("message_delta", messageDelta{Type: "message_delta", Delta: stopDelta{StopReason: stop}, Usage: deltaUsage{InputTokens: in, OutputTokens: out}}) {
		return
	}
	send("message_stop", typed{Type: "message_stop"})
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

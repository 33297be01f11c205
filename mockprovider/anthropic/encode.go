package anthropic

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
)

// Wire shapes of a Message (response body, message_start) in the field
// order of the API's recordings (https://docs.claude.com/en/docs/build-with-claude/streaming).
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
	InputTokens              int           `json:"input_tokens"`
	CacheCreationInputTokens int           `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int           `json:"cache_read_input_tokens"`
	CacheCreation            cacheCreation `json:"cache_creation,omitzero"`
	OutputTokens             int           `json:"output_tokens"`
	ServiceTier              string        `json:"service_tier,omitempty"`
	InferenceGeo             string        `json:"inference_geo,omitempty"`
}

// countTokensBody is the answer of POST /v1/messages/count_tokens.
type countTokensBody struct {
	InputTokens int `json:"input_tokens"`
}

// cacheCreation is usage.cache_creation, sent when set (a value, not a
// pointer: usage is built for every answer).
type cacheCreation struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	set         bool
}

func (c cacheCreation) IsZero() bool { return !c.set }

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
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
	kind string // "thinking", "redacted_thinking", "text", "tool_use"
	body any    // the complete block
	text string // text or thinking to stream
	sig  string // thinking signature
	args string // tool_use input JSON to stream when the token limit cut it
	cut  bool   // (else the stream sends the input of body)
	id   string
	name string
}

// reply turns the neutral reply into Anthropic blocks and a stop reason.
// A tool_use the token limit cut is still sent, as the API sends one when
// max_tokens runs out inside it: its input is what parsed of the
// generated prefix ({} for a cut object), and only a stream carries the
// prefix itself, in its input_json_delta events.
func reply(x *dialect.Exchange, req *Request, r *model.Reply) ([]block, string) {
	var out []block
	stop := "end_turn"
	callIndex := 0
	for _, p := range r.Turn.Parts {
		switch p.Kind {
		case conv.KindReasoning:
			// Thinking blocks exist only when the request enabled thinking.
			if !req.Thinking || p.Reasoning == nil {
				continue
			}
			if p.Reasoning.Redacted {
				data := redactedData(x.IDs().Next("", redactedNonceSize))
				out = append(out, block{kind: "redacted_thinking", body: redactedThinkingBlock{Type: "redacted_thinking", Data: data}})
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
			blk := block{kind: "tool_use", id: id, name: p.Call.Name}
			input := callInput(p.Call.Arguments)
			if callIndex == r.CutCall && r.Stop == model.StopTokens {
				blk.args, blk.cut, input = r.ArgumentsJSON(callIndex), true, json.RawMessage(`{}`)
			}
			callIndex++
			blk.body = toolUseBlock{Type: "tool_use", ID: id, Name: p.Call.Name, Input: input, Caller: caller{Type: "direct"}}
			out = append(out, blk)
			stop = "tool_use"
		case conv.KindRefusal:
			out = append(out, block{kind: "text", text: p.Text, body: textBlock{Type: "text", Text: p.Text}})
			stop = "refusal"
		}
	}
	switch r.Stop {
	case model.StopTokens:
		stop = "max_tokens"
	case model.StopSequence:
		stop = "stop_sequence"
	}
	if len(out) == 0 {
		out = append(out, block{kind: "text", body: textBlock{Type: "text", Text: ""}})
	}
	if req.thinksNow() && out[0].kind != "thinking" {
		out = append([]block{thinking(defaultThinking)}, out...)
	}
	return out, stop
}

// callInput is a call's input as encoding/json writes its arguments ({}
// for none, or for arguments the library cannot write).
func callInput(args map[string]any) json.RawMessage {
	if args == nil {
		return json.RawMessage(`{}`)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// streamedArgs is the input JSON a tool_use block streams.
func (b *block) streamedArgs() string {
	if b.cut {
		return b.args
	}
	if body, ok := b.body.(toolUseBlock); ok {
		return string(body.Input)
	}
	return ""
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
	// The content's encoded length is the usage estimate.
	bodies := make([]any, len(blocks))
	for i := range blocks {
		bodies[i] = blocks[i].body
	}
	raw, err := json.Marshal(bodies)
	if err != nil {
		x.JSON(http.StatusInternalServerError, json.RawMessage(`{"error":"toolwire: encoding failed"}`))
		return
	}
	in, out := tokens(req.promptSize()), tokens(len(raw))
	cached := req.useCache(x.Session)
	msgID := x.IDs().Next("msg_01", 22)
	x.W.Header().Set("Request-Id", x.IDs().Next("req_011C", 20))
	if !c.Stream {
		m := messageBody{
			ID: msgID, Type: "message", Role: "assistant", Model: req.Model, Content: raw,
			StopReason: &stop, StopSequence: stopSequence(r), Usage: fullUsage(in, out, cached),
		}
		x.JSON(http.StatusOK, m)
		return
	}
	d.stream(x, req, msgID, blocks, stopDelta{StopReason: stop, StopSequence: stopSequence(r)}, fullUsage(in, out, cached))
}

// fullUsage is a Message's usage: in is the whole prompt; the parts read
// from and written to the cache are reported apart and input_tokens is the
// rest, as the API counts it (input + cache creation + cache read = the
// prompt).
func fullUsage(in, out int, cached cacheUse) usage {
	return usage{
		InputTokens: in - cached.read - cached.created(), CacheCreationInputTokens: cached.created(), CacheReadInputTokens: cached.read,
		CacheCreation: cacheCreation{Ephemeral5m: cached.created5m, Ephemeral1h: cached.created1h, set: true},
		OutputTokens:  out, ServiceTier: "standard", InferenceGeo: "not_available",
	}
}

// stopSequence is the stop sequence that ended the reply, nil (null) when
// none did.
func stopSequence(r *model.Reply) *string {
	if r.Stop != model.StopSequence {
		return nil
	}
	return &r.StopText
}

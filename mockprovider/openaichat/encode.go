package openaichat

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// output is one assistant answer, ready for either wire form.
type output struct {
	ID          string
	Created     int64
	Model       string
	Fingerprint string
	Text        string
	HasText     bool
	Refusal     string
	HasRefusal  bool
	Calls       []outCall
	Finish      string
	Usage       usage
}

type outCall struct {
	ID, Name, Arguments string
}

type usage struct {
	PromptTokens            int                     `json:"prompt_tokens"`
	CompletionTokens        int                     `json:"completion_tokens"`
	TotalTokens             int                     `json:"total_tokens"`
	PromptTokensDetails     promptTokensDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails completionTokensDetails `json:"completion_tokens_details"`
}

type promptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
	AudioTokens  int `json:"audio_tokens"`
}

type completionTokensDetails struct {
	ReasoningTokens          int `json:"reasoning_tokens"`
	AudioTokens              int `json:"audio_tokens"`
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
}

// buildOutput mints ids and decides the finish reason. Reasoning parts are
// dropped: Chat Completions carries no reasoning items.
func buildOutput(x *dialect.Exchange, r *Request, c *conv.Conversation, reply *model.Reply) *output {
	ids := x.IDs()
	out := &output{
		ID:          ids.Next("chatcmpl-", 29),
		Created:     time.Now().Unix(),
		Model:       c.Model,
		Fingerprint: fingerprint(c.Model),
		Finish:      "stop",
	}
	completionChars := 0
	for _, p := range reply.Turn.Parts {
		switch p.Kind {
		case conv.KindText:
			if out.HasText {
				out.Text += "\n"
			}
			out.Text += p.Text
			out.HasText = true
			completionChars += len(p.Text)
		case conv.KindRefusal:
			out.Refusal += p.Text
			out.HasRefusal = true
			completionChars += len(p.Text)
		case conv.KindCall:
			id := p.Call.ID
			if id == "" {
				id = ids.Next("call_", 24)
			}
			// ArgumentsJSON keeps scripted malformed arguments as written.
			b := argumentsJSON(reply, len(out.Calls), p.Call)
			out.Calls = append(out.Calls, outCall{ID: id, Name: p.Call.Name, Arguments: b})
			completionChars += len(b) + len(p.Call.Name)
		}
	}
	// A call forced by name ends with "stop", not "tool_calls": a quirk of
	// the real API (provider-rules.md §1.4, streams-tool-call recording).
	if len(out.Calls) > 0 && !c.ToolChoice.Forced() {
		out.Finish = "tool_calls"
	}
	prompt := max(1, encodedLen(c)/4)
	completion := max(1, completionChars/4)
	out.Usage = usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return out
}

// argumentsJSON is reply.ArgumentsJSON(i) for call, the reply's i-th
// call: scripted raw text and argument-less calls are left to it, and the
// arguments of the others are encoded here without json.Marshal (the
// same bytes), falling back to it for a value the encoder does not know.
func argumentsJSON(reply *model.Reply, i int, call *conv.Call) string {
	if _, scripted := reply.RawArguments[i]; scripted || call.Arguments == nil {
		return reply.ArgumentsJSON(i)
	}
	if s, ok := marshalArguments(call.Arguments); ok {
		return s
	}
	return reply.ArgumentsJSON(i)
}

// fingerprint is stable per model, as the real system_fingerprint is per
// backend configuration. It is cached by model name: a session talks to
// one or two models, and the hash was a visible cost of every answer.
func fingerprint(modelName string) string {
	fingerprints.mu.Lock()
	fp, ok := fingerprints.m[modelName]
	fingerprints.mu.Unlock()
	if ok {
		return fp
	}
	sum := sha256.Sum256([]byte("toolwire:" + modelName))
	fp = "fp_" + hex.EncodeToString(sum[:5])
	if len(modelName) <= maxFingerprintModel {
		fingerprints.mu.Lock()
		if fingerprints.m == nil || len(fingerprints.m) >= maxFingerprints {
			fingerprints.m = map[string]string{} // bounded: cleared when full
		}
		fingerprints.m[modelName] = fp
		fingerprints.mu.Unlock()
	}
	return fp
}

// fingerprints is shared by all requests; the mutex guards it.
var fingerprints struct {
	mu sync.Mutex
	m  map[string]string
}

const (
	maxFingerprints     = 1024
	maxFingerprintModel = 256
)

// appendCompletion is json.Marshal(completionBody(o)), written directly
// (FuzzCompletionMatchesMarshal): the reflection-driven encoding was a
// large share of every non-streamed answer.
func appendCompletion(dst []byte, o *output) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonscan.AppendString(dst, o.ID)
	dst = append(dst, `,"object":"chat.completion","created":`...)
	dst = strconv.AppendInt(dst, o.Created, 10)
	dst = append(dst, `,"model":`...)
	dst = jsonscan.AppendString(dst, o.Model)
	dst = append(dst, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	dst = appendOptString(dst, o.Text, o.HasText)
	dst = append(dst, `,"refusal":`...)
	dst = appendOptString(dst, o.Refusal, o.HasRefusal)
	if len(o.Calls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i, c := range o.Calls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '{')
			if c.ID != "" {
				dst = append(dst, `"id":`...)
				dst = jsonscan.AppendString(dst, c.ID)
				dst = append(dst, ',')
			}
			dst = append(dst, `"type":"function","function":{`...)
			if c.Name != "" {
				dst = append(dst, `"name":`...)
				dst = jsonscan.AppendString(dst, c.Name)
				dst = append(dst, ',')
			}
			dst = append(dst, `"arguments":`...)
			dst = jsonscan.AppendString(dst, c.Arguments)
			dst = append(dst, "}}"...)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"annotations":[]},"logprobs":null,"finish_reason":`...)
	dst = jsonscan.AppendString(dst, o.Finish)
	dst = append(dst, `}],"usage":`...)
	dst = appendUsage(dst, &o.Usage)
	dst = append(dst, `,"service_tier":"default","system_fingerprint":`...)
	dst = jsonscan.AppendString(dst, o.Fingerprint)
	return append(dst, '}')
}

// appendOptString writes s, or null when it is not set.
func appendOptString(dst []byte, s string, set bool) []byte {
	if !set {
		return append(dst, "null"...)
	}
	return jsonscan.AppendString(dst, s)
}

// appendUsage is json.Marshal of a usage.
func appendUsage(dst []byte, u *usage) []byte {
	for _, f := range [...]struct {
		name string
		n    int
	}{
		{`{"prompt_tokens":`, u.PromptTokens}, {`,"completion_tokens":`, u.CompletionTokens}, {`,"total_tokens":`, u.TotalTokens},
		{`,"prompt_tokens_details":{"cached_tokens":`, u.PromptTokensDetails.CachedTokens},
		{`,"audio_tokens":`, u.PromptTokensDetails.AudioTokens},
		{`},"completion_tokens_details":{"reasoning_tokens":`, u.CompletionTokensDetails.ReasoningTokens},
		{`,"audio_tokens":`, u.CompletionTokensDetails.AudioTokens},
		{`,"accepted_prediction_tokens":`, u.CompletionTokensDetails.AcceptedPredictionTokens},
		{`,"rejected_prediction_tokens":`, u.CompletionTokensDetails.RejectedPredictionTokens},
	} {
		dst = append(dst, f.name...)
		dst = strconv.AppendInt(dst, int64(f.n), 10)
	}
	return append(dst, "}}"...)
}

// completionSize estimates the encoded size of a completion, so its
// buffer is allocated once.
func completionSize(o *output) int {
	n := 700 + len(o.ID) + len(o.Model) + len(o.Text) + len(o.Refusal) + len(o.Fingerprint)
	for _, c := range o.Calls {
		n += 64 + len(c.ID) + len(c.Name) + len(c.Arguments)*2
	}
	return n
}

// streamDelta is one chunk's delta: the role on the first chunk, text or
// refusal fragments, or one call's opening or argument fragment.
type streamDelta struct {
	role             string
	content, refusal deltaText
	call             *streamCall
}

// deltaText is a delta's content or refusal member: omitted, null (the
// opening chunk of an answer without text), or a string.
type deltaText struct {
	state textState
	text  string
}

type textState int8

const (
	textOmitted textState = iota
	textNull
	textSet
)

func setText(s string) deltaText { return deltaText{state: textSet, text: s} }

// streamCall is a delta's tool_calls entry; id, type and name are written
// only when set (the opening chunk of a call), as omitempty did.
type streamCall struct {
	index               int
	id, typ, name, args string
}

// appendChunk writes one chat.completion.chunk (the bytes json.Marshal
// gave for the chunk types it replaced; FuzzStreamMatchesReference).
// With include_usage every chunk carries "usage": null until the last one,
// which has no choices and the usage (d nil).
func appendChunk(dst []byte, o *output, includeUsage bool, d *streamDelta, finish *string) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonscan.AppendString(dst, o.ID)
	dst = append(dst, `,"object":"chat.completion.chunk","created":`...)
	dst = strconv.AppendInt(dst, o.Created, 10)
	dst = append(dst, `,"model":`...)
	dst = jsonscan.AppendString(dst, o.Model)
	dst = append(dst, `,"service_tier":"default","system_fingerprint":`...)
	dst = jsonscan.AppendString(dst, o.Fingerprint)
	if d == nil {
		dst = append(dst, `,"choices":[],"usage":`...)
		dst = appendUsage(dst, &o.Usage)
		return append(dst, '}')
	}
	dst = append(dst, `,"choices":[{"index":0,"delta":{`...)
	if d.role != "" {
		dst = append(dst, `"role":`...)
		dst = jsonscan.AppendString(dst, d.role)
	}
	dst = appendDeltaText(dst, `"content":`, d.content)
	if c := d.call; c != nil {
		dst = comma(dst)
		dst = append(dst, `"tool_calls":[{"index":`...)
		dst = strconv.AppendInt(dst, int64(c.index), 10)
		for _, f := range [...]struct{ name, value string }{{`,"id":`, c.id}, {`,"type":`, c.typ}} {
			if f.value != "" {
				dst = append(dst, f.name...)
				dst = jsonscan.AppendString(dst, f.value)
			}
		}
		dst = append(dst, `,"function":{`...)
		if c.name != "" {
			dst = append(dst, `"name":`...)
			dst = jsonscan.AppendString(dst, c.name)
			dst = append(dst, ',')
		}
		dst = append(dst, `"arguments":`...)
		dst = jsonscan.AppendString(dst, c.args)
		dst = append(dst, "}}]"...)
	}
	dst = appendDeltaText(dst, `"refusal":`, d.refusal)
	dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	if finish == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsonscan.AppendString(dst, *finish)
	}
	dst = append(dst, "}]"...)
	if includeUsage {
		dst = append(dst, `,"usage":null`...)
	}
	return append(dst, '}')
}

func appendDeltaText(dst []byte, name string, t deltaText) []byte {
	switch t.state {
	case textNull:
		dst = append(comma(dst), name...)
		return append(dst, "null"...)
	case textSet:
		dst = append(comma(dst), name...)
		return jsonscan.AppendString(dst, t.text)
	}
	return dst
}

// streamOutput writes the answer as chunks (provider-rules.md §1.4): the
// first chunk carries the role; text and refusal arrive in fragments; each
// call opens with index, id, type, name and empty arguments, then only
// argument fragments follow; a final empty delta carries finish_reason;
// with include_usage one more chunk has no choices and the usage; then
// [DONE]. A write error (client gone, injected fault) ends the stream.
//
// Each chunk is written by appendChunk into a buffer of its own (the SSE
// writer and the journal may keep it), instead of through json.Marshal
// and a MarshalJSON method, which encoded every chunk twice.
func streamOutput(x *dialect.Exchange, r *Request, o *output) {
	s := x.SSE("")
	size := s.Config().FragmentSize
	chunkSize := 256 + len(o.ID) + len(o.Model) + len(o.Fingerprint)
	send := func(d *streamDelta, finish *string) error {
		n := chunkSize + len(d.content.text) + len(d.refusal.text)
		if d.call != nil {
			n += len(d.call.id) + len(d.call.name) + 2*len(d.call.args)
		}
		return s.Event("", appendChunk(make([]byte, 0, n), o, r.IncludeUsage, d, finish))
	}
	roleSent := false
	opening := func(d *streamDelta) *streamDelta {
		if !roleSent {
			d.role = "assistant"
			if d.content.state == textOmitted {
				d.content.state = textNull
			}
			if d.refusal.state == textOmitted {
				d.refusal.state = textNull
			}
			roleSent = true
		}
		return d
	}
	if o.HasText {
		if err := send(opening(&streamDelta{content: setText("")}), nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(o.Text, size) {
			if err := send(&streamDelta{content: setText(frag)}, nil); err != nil {
				return
			}
		}
	}
	for i, c := range o.Calls {
		first := opening(&streamDelta{call: &streamCall{index: i, id: c.ID, typ: "function", name: c.Name}})
		if err := send(first, nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(c.Arguments, size) {
			if err := send(&streamDelta{call: &streamCall{index: i, args: frag}}, nil); err != nil {
				return
			}
		}
	}
	if o.HasRefusal {
		if err := send(opening(&streamDelta{refusal: setText("")}), nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(o.Refusal, size) {
			if err := send(&streamDelta{refusal: setText(frag)}, nil); err != nil {
				return
			}
		}
	}
	if !roleSent {
		if err := send(opening(&streamDelta{content: setText("")}), nil); err != nil {
			return
		}
	}
	if err := send(&streamDelta{}, &o.Finish); err != nil {
		return
	}
	if r.IncludeUsage {
		if err := s.Event("", appendChunk(make([]byte, 0, chunkSize+512), o, true, nil, nil)); err != nil {
			return
		}
	}
	_ = s.Event("", []byte("[DONE]"))
}

// StreamError writes the error as a data event whose payload has an
// "error" member: openai-go's ssestream (and the Python and Node SDKs)
// turn exactly that into a stream error.
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	_ = s.Event("", map[string]any{"error": map[string]any{
		"message": e.Message, "type": e.Type, "param": e.Param, "code": e.Code,
	}})
}

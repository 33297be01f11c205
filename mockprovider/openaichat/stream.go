package openaichat

import (
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// streamDelta is one chunk's delta: the role on the first chunk, text or
// refusal fragments, or one call's opening or argument fragment.
type streamDelta struct {
	Role      string       `json:"role,omitempty"`
	Content   deltaText    `json:"content,omitzero"`
	ToolCalls []streamCall `json:"tool_calls,omitempty"`
	Refusal   deltaText    `json:"refusal,omitzero"`
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

func (t deltaText) IsZero() bool { return t.state == textOmitted }

func (t deltaText) MarshalJSONTo(enc *jsontext.Encoder) error {
	if t.state == textNull {
		return enc.WriteToken(jsontext.Null)
	}
	return enc.WriteToken(jsontext.String(t.text))
}

// streamCall is a delta's tool_calls entry; id, type and name are written
// only on the opening chunk of a call.
type streamCall struct {
	Index    int            `json:"index"`
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function answerFunction `json:"function"`
}

// appendChunk writes one chat.completion.chunk, members in the API's
// order; d nil is the final usage chunk (no choices, the usage). With
// include_usage every other chunk carries "usage": null. It is written by
// hand, as encodeCompletion is: a stream is a dozen chunks, and the
// library's reflection over chunk structs was most of the stream's cost
// (stream_render_test.go holds both encodings to the same bytes). A
// string that is not valid UTF-8 (a scripted one) goes through the
// library, which refuses it, so such a chunk stays what it always was.
func appendChunk(b []byte, o *output, includeUsage bool, d *streamDelta, finish *string) []byte {
	if !chunkIsUTF8(o, d, finish) {
		return append(b, encodeChunkViaLibrary(o, includeUsage, d, finish)...)
	}
	b = append(b, `{"id":`...)
	b = wirejson.AppendString(b, o.ID)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, o.Created, 10)
	b = append(b, `,"model":`...)
	b = wirejson.AppendString(b, o.Model)
	b = append(b, `,"service_tier":"default","system_fingerprint":`...)
	b = wirejson.AppendString(b, o.Fingerprint)
	if d == nil {
		b = append(b, `,"choices":[]`...)
	} else {
		b = append(b, `,"choices":[{"index":0,"delta":{`...)
		b = appendDelta(b, d)
		b = append(b, `},"logprobs":null,"finish_reason":`...)
		if finish == nil {
			b = append(b, "null"...)
		} else {
			b = wirejson.AppendString(b, *finish)
		}
		b = append(b, `}]`...)
	}
	if includeUsage {
		b = append(b, `,"usage":`...)
		if d == nil {
			b = appendUsage(b, &o.Usage)
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}

// appendDelta writes a delta's members (without braces): role, content,
// tool_calls, refusal, each only when set.
func appendDelta(b []byte, d *streamDelta) []byte {
	comma := false
	member := func(name string) {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(append(append(b, '"'), name...), `":`...)
	}
	if d.Role != "" {
		member("role")
		b = wirejson.AppendString(b, d.Role)
	}
	if d.Content.state != textOmitted {
		member("content")
		b = appendDeltaText(b, d.Content)
	}
	if len(d.ToolCalls) > 0 {
		member("tool_calls")
		b = append(b, '[')
		for i, c := range d.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = strconv.AppendInt(b, int64(c.Index), 10)
			if c.ID != "" {
				b = append(b, `,"id":`...)
				b = wirejson.AppendString(b, c.ID)
			}
			if c.Type != "" {
				b = append(b, `,"type":`...)
				b = wirejson.AppendString(b, c.Type)
			}
			b = append(b, `,"function":{`...)
			if c.Function.Name != "" {
				b = append(b, `"name":`...)
				b = wirejson.AppendString(b, c.Function.Name)
				b = append(b, ',')
			}
			b = append(b, `"arguments":`...)
			b = wirejson.AppendString(b, c.Function.Arguments)
			b = append(b, `}}`...)
		}
		b = append(b, ']')
	}
	if d.Refusal.state != textOmitted {
		member("refusal")
		b = appendDeltaText(b, d.Refusal)
	}
	return b
}

func appendDeltaText(b []byte, t deltaText) []byte {
	if t.state == textNull {
		return append(b, "null"...)
	}
	return wirejson.AppendString(b, t.text)
}

// chunkIsUTF8 reports whether every string a chunk writes is valid UTF-8.
func chunkIsUTF8(o *output, d *streamDelta, finish *string) bool {
	if !utf8.ValidString(o.ID) || !utf8.ValidString(o.Model) || !utf8.ValidString(o.Fingerprint) {
		return false
	}
	if finish != nil && !utf8.ValidString(*finish) {
		return false
	}
	if d == nil {
		return true
	}
	if !utf8.ValidString(d.Role) || !utf8.ValidString(d.Content.text) || !utf8.ValidString(d.Refusal.text) {
		return false
	}
	for _, c := range d.ToolCalls {
		if !utf8.ValidString(c.ID) || !utf8.ValidString(c.Type) || !utf8.ValidString(c.Function.Name) || !utf8.ValidString(c.Function.Arguments) {
			return false
		}
	}
	return true
}

// streamOutput writes the answer as chunks: the first chunk carries the
// role; text and refusal arrive in fragments; each call opens with index,
// id, type, name and empty arguments, then only argument fragments follow;
// a final empty delta carries finish_reason; with include_usage one more
// chunk has no choices and the usage; then [DONE]. A write error (client
// gone, injected fault) ends the stream.
func streamOutput(x *dialect.Exchange, r *Request, o *output) {
	s := x.SSE("")
	size := s.Config().FragmentSize
	buf := make([]byte, 0, 512) // for every chunk: EventBytes copies it
	send := func(d *streamDelta, finish *string) error {
		buf = appendChunk(buf[:0], o, r.IncludeUsage, d, finish)
		return s.EventBytes("", buf)
	}
	roleSent := false
	opening := func(d *streamDelta) *streamDelta {
		if !roleSent {
			d.Role = "assistant"
			if d.Content.state == textOmitted {
				d.Content.state = textNull
			}
			if d.Refusal.state == textOmitted {
				d.Refusal.state = textNull
			}
			roleSent = true
		}
		return d
	}
	if o.HasText {
		if err := send(opening(&streamDelta{Content: setText("")}), nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(o.Text, size) {
			if err := send(&streamDelta{Content: setText(frag)}, nil); err != nil {
				return
			}
		}
	}
	for i, c := range o.Calls {
		first := opening(&streamDelta{ToolCalls: []streamCall{{Index: i, ID: c.ID, Type: "function", Function: answerFunction{Name: c.Name}}}})
		if err := send(first, nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(c.Arguments, size) {
			if err := send(&streamDelta{ToolCalls: []streamCall{{Index: i, Function: answerFunction{Arguments: frag}}}}, nil); err != nil {
				return
			}
		}
	}
	if o.HasRefusal {
		if err := send(opening(&streamDelta{Refusal: setText("")}), nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(o.Refusal, size) {
			if err := send(&streamDelta{Refusal: setText(frag)}, nil); err != nil {
				return
			}
		}
	}
	if !roleSent {
		if err := send(opening(&streamDelta{Content: setText("")}), nil); err != nil {
			return
		}
	}
	if err := send(&streamDelta{}, &o.Finish); err != nil {
		return
	}
	if r.IncludeUsage {
		if err := send(nil, nil); err != nil {
			return
		}
	}
	_ = s.EventBytes("", []byte("[DONE]"))
}

// StreamError writes the error as a data event whose payload has an
// "error" member: openai-go's ssestream (and the Python and Node SDKs)
// turn exactly that into a stream error.
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	_ = s.Event("", map[string]any{"error": map[string]any{
		"message": e.Message, "type": e.Type, "param": e.Param, "code": e.Code,
	}})
}

// chunk is one chat.completion.chunk as the library writes it: the
// reference appendChunk is held to, and its encoding of a chunk with a
// string that is not valid UTF-8.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	ServiceTier       string        `json:"service_tier"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             chunkUsage    `json:"usage,omitzero"`
}

type chunkChoice struct {
	Index        int         `json:"index"`
	Delta        streamDelta `json:"delta"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason *string     `json:"finish_reason"`
}

// chunkUsage is omitted without include_usage, null on the chunks before
// the last, and the usage on the last.
type chunkUsage struct {
	include bool
	usage   *usage
}

func (u chunkUsage) IsZero() bool { return !u.include }

func (u chunkUsage) MarshalJSONTo(enc *jsontext.Encoder) error {
	if u.usage == nil {
		return enc.WriteToken(jsontext.Null)
	}
	return json.MarshalEncode(enc, u.usage)
}

func encodeChunkViaLibrary(o *output, includeUsage bool, d *streamDelta, finish *string) []byte {
	c := chunk{ID: o.ID, Object: "chat.completion.chunk", Created: o.Created, Model: o.Model,
		ServiceTier: "default", SystemFingerprint: o.Fingerprint, Usage: chunkUsage{include: includeUsage}}
	if d == nil {
		c.Choices = []chunkChoice{}
		c.Usage.usage = &o.Usage
	} else {
		c.Choices = []chunkChoice{{Delta: *d, FinishReason: finish}}
	}
	b, _ := json.Marshal(c)
	return b
}

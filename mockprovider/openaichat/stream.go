package openaichat

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
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

// streamOutput writes the answer as chunks: the first chunk carries the
// role; text and refusal arrive in fragments; each call opens with index,
// id, type, name and empty arguments, then only argument fragments follow;
// a final empty delta carries finish_reason; with include_usage one more
// chunk has no choices and the usage; then [DONE]. With n above 1 each
// choice is written so in turn, every chunk naming its choice's index. A
// write error (client gone, injected fault) ends the stream.
func streamOutput(x *dialect.Exchange, r *Request, o *output) {
	s := x.SSE("")
	for i := range o.choices() {
		if streamChoice(s, r, o, i) != nil {
			return
		}
	}
	if r.IncludeUsage {
		if err := s.EventBytes("", encodeChunk(o, r.IncludeUsage, -1, nil, nil)); err != nil {
			return
		}
	}
	_ = s.EventBytes("", []byte("[DONE]"))
}

// streamChoice writes choice i's chunks, up to its finish_reason.
func streamChoice(s *wire.SSE, r *Request, o *output, i int) error {
	size := s.Config().FragmentSize
	send := func(d *streamDelta, finish *string) error {
		return s.EventBytes("", encodeChunk(o, r.IncludeUsage, i, d, finish))
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
			return err
		}
		for _, frag := range wire.Fragments(o.Text, size) {
			if err := send(&streamDelta{Content: setText(frag)}, nil); err != nil {
				return err
			}
		}
	}
	for k, c := range o.callsOf(i) {
		first := opening(&streamDelta{ToolCalls: []streamCall{{Index: k, ID: c.ID, Type: "function", Function: answerFunction{Name: c.Name}}}})
		if err := send(first, nil); err != nil {
			return err
		}
		for _, frag := range wire.Fragments(c.Arguments, size) {
			if err := send(&streamDelta{ToolCalls: []streamCall{{Index: k, Function: answerFunction{Arguments: frag}}}}, nil); err != nil {
				return err
			}
		}
	}
	if o.HasRefusal {
		if err := send(opening(&streamDelta{Refusal: setText("")}), nil); err != nil {
			return err
		}
		for _, frag := range wire.Fragments(o.Refusal, size) {
			if err := send(&streamDelta{Refusal: setText(frag)}, nil); err != nil {
				return err
			}
		}
	}
	if !roleSent {
		if err := send(opening(&streamDelta{Content: setText("")}), nil); err != nil {
			return err
		}
	}
	return send(&streamDelta{}, &o.Finish)
}

// StreamError writes the error as a data event whose payload has an
// "error" member: openai-go's ssestream (and the Python and Node SDKs)
// turn exactly that into a stream error.
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	_ = s.Event("", map[string]any{"error": map[string]any{
		"message": e.Message, "type": e.Type, "param": e.Param, "code": e.Code,
	}})
}

// chunk is one chat.completion.chunk, members in the API's order.
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

// encodeChunk is one chunk of choice index; d nil is the final usage
// chunk (no choices, the usage). With include_usage every other chunk
// carries "usage": null. A chunk with a scripted string that is not valid
// UTF-8 is refused by the library and sent empty.
func encodeChunk(o *output, includeUsage bool, index int, d *streamDelta, finish *string) []byte {
	c := chunk{ID: o.ID, Object: "chat.completion.chunk", Created: o.Created, Model: o.Model,
		ServiceTier: "default", SystemFingerprint: o.Fingerprint, Usage: chunkUsage{include: includeUsage}}
	if d == nil {
		c.Choices = []chunkChoice{}
		c.Usage.usage = &o.Usage
	} else {
		c.Choices = []chunkChoice{{Index: index, Delta: *d, FinishReason: finish}}
	}
	b, _ := json.Marshal(c)
	return b
}

package openaichat

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The chunk stream as it was written through json.Marshal of these types:
// the reference streamOutput is held to.

// The wire types below follow the field order of the real API's JSON.

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"` // streamed deltas only
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// chunk is one chat.completion.chunk. Usage is present (null until the
// last chunk) only when stream_options.include_usage asked for it.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	ServiceTier       string        `json:"service_tier"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *usage        `json:"usage,omitempty"`
	withUsage         bool
}

func (c chunk) MarshalJSON() ([]byte, error) {
	type plain chunk
	if !c.withUsage {
		return json.Marshal(plain(c))
	}
	// "usage": null must appear on every chunk before the usage chunk.
	type withNull struct {
		plain
		Usage *usage `json:"usage"`
	}
	return json.Marshal(withNull{plain: plain(c), Usage: c.Usage})
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

// delta fields use RawMessage so "content": null (role chunk of a call)
// and an absent content (argument chunks) can both be written.
type delta struct {
	Role      string          `json:"role,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	ToolCalls []wireToolCall  `json:"tool_calls,omitempty"`
	Refusal   json.RawMessage `json:"refusal,omitempty"`
}

var jsonNull = json.RawMessage("null")

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// refStreamOutput writes the answer as chunks (provider-rules.md §1.4): the
// first chunk carries the role; text and refusal arrive in fragments; each
// call opens with index, id, type, name and empty arguments, then only
// argument fragments follow; a final empty delta carries finish_reason;
// with include_usage one more chunk has no choices and the usage; then
// [DONE]. A write error (client gone, injected fault) ends the stream.
func refStreamOutput(x *dialect.Exchange, r *Request, o *output) {
	s := x.SSE("")
	size := s.Config().FragmentSize
	base := chunk{ID: o.ID, Object: "chat.completion.chunk", Created: o.Created, Model: o.Model,
		ServiceTier: "default", SystemFingerprint: o.Fingerprint, withUsage: r.IncludeUsage}
	send := func(d delta, finish *string) error {
		ch := base
		ch.Choices = []chunkChoice{{Index: 0, Delta: d, FinishReason: finish}}
		return s.Event("", ch)
	}
	roleSent := false
	opening := func(d delta) delta {
		if !roleSent {
			d.Role = "assistant"
			if d.Content == nil {
				d.Content = jsonNull
			}
			if d.Refusal == nil {
				d.Refusal = jsonNull
			}
			roleSent = true
		}
		return d
	}
	if o.HasText {
		if err := send(opening(delta{Content: jsonString("")}), nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(o.Text, size) {
			if err := send(delta{Content: jsonString(frag)}, nil); err != nil {
				return
			}
		}
	}
	for i, c := range o.Calls {
		idx := i
		first := opening(delta{ToolCalls: []wireToolCall{{Index: &idx, ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: ""}}}})
		if err := send(first, nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(c.Arguments, size) {
			if err := send(delta{ToolCalls: []wireToolCall{{Index: &idx, Function: wireFunction{Arguments: frag}}}}, nil); err != nil {
				return
			}
		}
	}
	if o.HasRefusal {
		if err := send(opening(delta{Refusal: jsonString("")}), nil); err != nil {
			return
		}
		for _, frag := range wire.Fragments(o.Refusal, size) {
			if err := send(delta{Refusal: jsonString(frag)}, nil); err != nil {
				return
			}
		}
	}
	if !roleSent {
		if err := send(opening(delta{Content: jsonString("")}), nil); err != nil {
			return
		}
	}
	finish := o.Finish
	if err := send(delta{}, &finish); err != nil {
		return
	}
	if r.IncludeUsage {
		ch := base
		ch.Choices = []chunkChoice{}
		u := o.Usage
		ch.Usage = &u
		if err := s.Event("", ch); err != nil {
			return
		}
	}
	_ = s.Event("", []byte("[DONE]"))
}

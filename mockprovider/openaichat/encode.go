package openaichat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
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
			b := reply.ArgumentsJSON(len(out.Calls))
			out.Calls = append(out.Calls, outCall{ID: id, Name: p.Call.Name, Arguments: b})
			completionChars += len(b) + len(p.Call.Name)
		}
	}
	// A call forced by name ends with "stop", not "tool_calls": a quirk of
	// the real API (provider-rules.md §1.4, streams-tool-call recording).
	if len(out.Calls) > 0 && !c.ToolChoice.Forced() {
		out.Finish = "tool_calls"
	}
	promptBytes, _ := json.Marshal(c)
	prompt := max(1, len(promptBytes)/4)
	completion := max(1, completionChars/4)
	out.Usage = usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return out
}

// fingerprint is stable per model, as the real system_fingerprint is per
// backend configuration.
func fingerprint(modelName string) string {
	sum := sha256.Sum256([]byte("toolwire:" + modelName))
	return "fp_" + hex.EncodeToString(sum[:5])
}

// The wire types below follow the field order of the real API's JSON.

type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	Choices           []choice `json:"choices"`
	Usage             usage    `json:"usage"`
	ServiceTier       string   `json:"service_tier"`
	SystemFingerprint string   `json:"system_fingerprint"`
}

type choice struct {
	Index        int     `json:"index"`
	Message      message `json:"message"`
	Logprobs     any     `json:"logprobs"`
	FinishReason string  `json:"finish_reason"`
}

type message struct {
	Role        string         `json:"role"`
	Content     *string        `json:"content"`
	Refusal     *string        `json:"refusal"`
	ToolCalls   []wireToolCall `json:"tool_calls,omitempty"`
	Annotations []any          `json:"annotations"`
}

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

func completionBody(o *output) completion {
	msg := message{Role: "assistant", Annotations: []any{}}
	if o.HasText {
		msg.Content = &o.Text
	}
	if o.HasRefusal {
		msg.Refusal = &o.Refusal
	}
	for _, c := range o.Calls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: c.Arguments}})
	}
	return completion{
		ID: o.ID, Object: "chat.completion", Created: o.Created, Model: o.Model,
		Choices:     []choice{{Index: 0, Message: msg, FinishReason: o.Finish}},
		Usage:       o.Usage,
		ServiceTier: "default", SystemFingerprint: o.Fingerprint,
	}
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

// streamOutput writes the answer as chunks (provider-rules.md §1.4): the
// first chunk carries the role; text and refusal arrive in fragments; each
// call opens with index, id, type, name and empty arguments, then only
// argument fragments follow; a final empty delta carries finish_reason;
// with include_usage one more chunk has no choices and the usage; then
// [DONE]. A write error (client gone, injected fault) ends the stream.
func streamOutput(x *dialect.Exchange, r *Request, o *output) {
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

// StreamError writes the error as a data event whose payload has an
// "error" member: openai-go's ssestream (and the Python and Node SDKs)
// turn exactly that into a stream error.
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	_ = s.Event("", map[string]any{"error": map[string]any{
		"message": e.Message, "type": e.Type, "param": e.Param, "code": e.Code,
	}})
}

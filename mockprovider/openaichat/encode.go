package openaichat

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
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
	// Alternates are the calls of choices 1 to n-1 when n asks for more
	// than one: the same reply, each call with an id of its own, so a
	// client that answers any one choice sends ids the mock issued once.
	Alternates [][]outCall
	Finish     string
	Usage      usage
}

// choices is how many choices the answer holds.
func (o *output) choices() int { return 1 + len(o.Alternates) }

// callsOf are the calls of choice i.
func (o *output) callsOf(i int) []outCall {
	if i == 0 {
		return o.Calls
	}
	return o.Alternates[i-1]
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
	// the real API (https://platform.openai.com/docs/api-reference/chat-streaming, streams-tool-call recording).
	if len(out.Calls) > 0 && !c.ToolChoice.Forced() {
		out.Finish = "tool_calls"
	}
	// The token limit ends the turn with "length", a call cut inside its
	// arguments included; a stop sequence ends it with "stop".
	switch reply.Stop {
	case model.StopTokens:
		out.Finish = "length"
	case model.StopSequence:
		out.Finish = "stop"
	}
	if n := c.Controls.Candidates; n > 1 {
		out.Alternates = make([][]outCall, n-1)
		for i := range out.Alternates {
			out.Alternates[i] = reissued(out.Calls, ids)
		}
	}
	pieces, size := requestPrompt(r, c)
	prompt := max(1, size/openaiwire.CharsPerToken)
	// Every choice is generated, so every choice's tokens are billed
	// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-n:
	// "charged based on the number of generated tokens across all of the
	// choices"); the prompt is read once.
	completion := max(1, completionChars/4) * out.choices()
	out.Usage = usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	out.Usage.PromptTokensDetails.CachedTokens = openaiwire.CachedTokens(x.Session, "openai-chat", c.Model, pieces)
	return out
}

// reissued is calls with fresh ids, for another choice.
func reissued(calls []outCall, ids *wire.IDs) []outCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]outCall, len(calls))
	for i, c := range calls {
		c.ID = ids.Next("call_", 24)
		out[i] = c
	}
	return out
}

// argumentsJSON is reply.ArgumentsJSON(i) for call, the reply's i-th
// call: scripted raw text and argument-less calls are left to it; the
// others are encoded with sorted keys, as the real API's are stable.
func argumentsJSON(reply *model.Reply, i int, call *conv.Call) string {
	if _, scripted := reply.RawArguments[i]; scripted || call.Arguments == nil {
		return reply.ArgumentsJSON(i)
	}
	b, err := marshalArguments(call.Arguments)
	if err != nil {
		return reply.ArgumentsJSON(i)
	}
	return string(b)
}

// fingerprint is stable per model, as the real system_fingerprint is per
// backend configuration.
func fingerprint(modelName string) string {
	sum := sha256.Sum256([]byte("toolwire:" + modelName))
	return "fp_" + hex.EncodeToString(sum[:5])
}

type answerFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// completion is the chat.completion object, members in the API's order.
type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	Choices           []choice `json:"choices"`
	Usage             *usage   `json:"usage"`
	ServiceTier       string   `json:"service_tier"`
	SystemFingerprint string   `json:"system_fingerprint"`
}

type choice struct {
	Index        int           `json:"index"`
	Message      answerMessage `json:"message"`
	Logprobs     *struct{}     `json:"logprobs"`
	FinishReason string        `json:"finish_reason"`
}

type answerMessage struct {
	Role        string       `json:"role"`
	Content     *string      `json:"content"`
	Refusal     *string      `json:"refusal"`
	ToolCalls   []answerCall `json:"tool_calls,omitempty"`
	Annotations []struct{}   `json:"annotations"`
}

type answerCall struct {
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type"`
	Function answerFunction `json:"function"`
}

// encodeCompletion is the non-streamed answer. A scripted string that is
// not valid UTF-8 is written with replacement characters.
func encodeCompletion(o *output) []byte {
	choices := make([]choice, o.choices())
	for i := range choices {
		m := answerMessage{Role: "assistant", Annotations: []struct{}{}}
		if o.HasText {
			m.Content = &o.Text
		}
		if o.HasRefusal {
			m.Refusal = &o.Refusal
		}
		for _, c := range o.callsOf(i) {
			m.ToolCalls = append(m.ToolCalls, answerCall{ID: c.ID, Type: "function", Function: answerFunction{Name: c.Name, Arguments: c.Arguments}})
		}
		choices[i] = choice{Index: i, Message: m, FinishReason: o.Finish}
	}
	// Names are not checked for duplicates: the structs' are distinct.
	b, _ := json.Marshal(completion{
		ID: o.ID, Object: "chat.completion", Created: o.Created, Model: o.Model,
		Choices: choices,
		Usage:   &o.Usage, ServiceTier: "default", SystemFingerprint: o.Fingerprint,
	}, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	return b
}

package openaichat

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
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
	text := promptText(nil, c)
	prompt := max(1, len(text)/openaiwire.CharsPerToken)
	completion := max(1, completionChars/4)
	out.Usage = usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	out.Usage.PromptTokensDetails.CachedTokens = openaiwire.CachedTokens(x.Session, "openai-chat", c.Model, text)
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

// encodeCompletion writes the non-streamed answer by hand: it is every
// non-streamed Chat answer, and BenchmarkCompletion shows the library's
// reflection over the structs above several times slower (render_test.go
// holds both encodings to the same bytes). Members in the API's order.
func encodeCompletion(o *output) []byte {
	b := make([]byte, 0, 1024+len(o.Text)+len(o.Refusal)+64*len(o.Calls))
	b = append(b, `{"id":`...)
	b = wirejson.AppendString(b, o.ID)
	b = append(b, `,"object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, o.Created, 10)
	b = append(b, `,"model":`...)
	b = wirejson.AppendString(b, o.Model)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = appendOptional(b, o.Text, o.HasText)
	b = append(b, `,"refusal":`...)
	b = appendOptional(b, o.Refusal, o.HasRefusal)
	if len(o.Calls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, c := range o.Calls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if c.ID != "" {
				b = append(b, `"id":`...)
				b = wirejson.AppendString(b, c.ID)
				b = append(b, ',')
			}
			b = append(b, `"type":"function","function":{`...)
			if c.Name != "" {
				b = append(b, `"name":`...)
				b = wirejson.AppendString(b, c.Name)
				b = append(b, ',')
			}
			b = append(b, `"arguments":`...)
			b = wirejson.AppendString(b, c.Arguments)
			b = append(b, `}}`...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"annotations":[]},"logprobs":null,"finish_reason":`...)
	b = wirejson.AppendString(b, o.Finish)
	b = append(b, `}],"usage":`...)
	b = appendUsage(b, &o.Usage)
	b = append(b, `,"service_tier":"default","system_fingerprint":`...)
	b = wirejson.AppendString(b, o.Fingerprint)
	return append(b, '}')
}

// appendOptional is s quoted, or null when it is absent.
func appendOptional(b []byte, s string, present bool) []byte {
	if !present {
		return append(b, "null"...)
	}
	return wirejson.AppendString(b, s)
}

// appendUsage writes the usage object, members in the API's order.
func appendUsage(b []byte, u *usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokensDetails.CachedTokens), 10)
	b = append(b, `,"audio_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokensDetails.AudioTokens), 10)
	b = append(b, `},"completion_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokensDetails.ReasoningTokens), 10)
	b = append(b, `,"audio_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokensDetails.AudioTokens), 10)
	b = append(b, `,"accepted_prediction_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokensDetails.AcceptedPredictionTokens), 10)
	b = append(b, `,"rejected_prediction_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokensDetails.RejectedPredictionTokens), 10)
	return append(b, `}}`...)
}

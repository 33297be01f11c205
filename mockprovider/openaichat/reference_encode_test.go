package openaichat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
)

// The chat.completion encoding as it was, through json.Marshal of these
// types: the reference appendCompletion is held to; and the answer as it
// was built, for FuzzAnswerMatchesReference.

// completion and the types below follow the field order of the real API's JSON.
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

// refBuildOutput mints ids and decides the finish reason. Reasoning parts are
// dropped: Chat Completions carries no reasoning items.
func refBuildOutput(x *dialect.Exchange, r *Request, c *conv.Conversation, reply *model.Reply) *output {
	ids := x.IDs()
	out := &output{
		ID:          ids.Next("chatcmpl-", 29),
		Created:     time.Now().Unix(),
		Model:       c.Model,
		Fingerprint: refFingerprint(c.Model),
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

// refFingerprint is stable per model, as the real system_fingerprint is per
// backend configuration.
func refFingerprint(modelName string) string {
	sum := sha256.Sum256([]byte("toolwire:" + modelName))
	return "fp_" + hex.EncodeToString(sum[:5])
}

// refEncode is Encode as it was.
func refEncode(x *dialect.Exchange, r *Request, c *conv.Conversation, reply *model.Reply) {
	out := refBuildOutput(x, r, c, reply)
	if c.Stream {
		refStreamOutput(x, r, out)
		return
	}
	x.JSON(http.StatusOK, completionBody(out))
}

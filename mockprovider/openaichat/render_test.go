package openaichat

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

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

// completionViaLibrary is what encodeCompletion writes, through the
// library: the reference the hand-written encoder is held to.
func completionViaLibrary(o *output) []byte {
	m := answerMessage{Role: "assistant", Annotations: []struct{}{}}
	if o.HasText {
		m.Content = &o.Text
	}
	if o.HasRefusal {
		m.Refusal = &o.Refusal
	}
	for _, c := range o.Calls {
		m.ToolCalls = append(m.ToolCalls, answerCall{ID: c.ID, Type: "function", Function: answerFunction{Name: c.Name, Arguments: c.Arguments}})
	}
	b, _ := json.Marshal(completion{
		ID: o.ID, Object: "chat.completion", Created: o.Created, Model: o.Model,
		Choices: []choice{{Message: m, FinishReason: o.Finish}},
		Usage:   &o.Usage, ServiceTier: "default", SystemFingerprint: o.Fingerprint,
	})
	return b
}

func renderOutputs() []*output {
	u := usage{PromptTokens: 1200, CompletionTokens: 30, TotalTokens: 1230}
	u.PromptTokensDetails.CachedTokens = 1024
	return []*output{
		{ID: "chatcmpl-1", Created: 1700000000, Model: "gpt-4.1", Fingerprint: "fp_1", Finish: "tool_calls", Usage: u,
			Calls: []outCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris <FR> & \"x\""}`}, {Name: "", Arguments: ""}}},
		{ID: "chatcmpl-2", Created: 1, Model: "m", Fingerprint: "fp_2", Finish: "stop", HasText: true,
			Text: "Tab\there \u2028 <b>bold</b> & control \x01", Usage: usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}},
		{ID: "chatcmpl-3", Model: "m", Finish: "stop", HasRefusal: true, Refusal: "I can't.", HasText: true},
	}
}

// TestCompletionAsTheLibraryWritesIt: the hand-written body is byte for
// byte the library's encoding of the chat.completion structs.
func TestCompletionAsTheLibraryWritesIt(t *testing.T) {
	for i, o := range renderOutputs() {
		want, got := completionViaLibrary(o), encodeCompletion(o)
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// Invalid UTF-8 (a scripted string) is written with replacement
	// characters; the library refuses it.
	o := &output{HasText: true, Text: "bad \xff"}
	if got := encodeCompletion(o); !jsontext.Value(got).IsValid() {
		t.Errorf("invalid UTF-8 text gave invalid JSON: %s", got)
	}
}

func BenchmarkCompletion(b *testing.B) {
	o := renderOutputs()[0]
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = encodeCompletion(o)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = completionViaLibrary(o)
		}
	})
}

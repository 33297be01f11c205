package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// bothForms sends p under the built-in scenario, whole and streamed (the
// stream accumulated by the SDK), and returns both messages and the
// journal of the session.
func bothForms(t *testing.T, scenarioName string, p sdk.MessageNewParams) (map[string]*sdk.Message, []session.Entry) {
	t.Helper()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-ant-controls", option.WithHeader(mockprovider.ScenarioHeader, scenarioName))
	out := map[string]*sdk.Message{}
	// Whole first, then streamed: the journal's second entry is the stream.
	for _, form := range []string{"whole", "streamed"} {
		send := nonStreaming(c)
		if form == "streamed" {
			send = streaming(c)
		}
		msg, err := send(p)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		out[form] = msg
	}
	assertCleanJournal(t, ts, "sk-ant-controls", 2)
	return out, ts.Journal("sk-ant-controls")
}

func toolUses(m *sdk.Message) []sdk.ContentBlockUnion {
	var out []sdk.ContentBlockUnion
	for _, b := range m.Content {
		if b.Type == "tool_use" {
			out = append(out, b)
		}
	}
	return out
}

// TestSDKMaxTokensCutsToolUse: 16 tokens (64 characters) hold the first of
// parallel-same-tool's two calls and the start of the second. stop_reason
// is max_tokens and the cut tool_use is still sent: input {} whole; the
// stream's input_json_delta events carry the generated prefix, which the
// SDK's accumulator empties to {} as well.
func TestSDKMaxTokensCutsToolUse(t *testing.T) {
	p := newParams("Compare the weather in Paris and London.")
	p.MaxTokens = 16
	messages, journal := bothForms(t, "parallel-same-tool", p)
	for form, msg := range messages {
		uses := toolUses(msg)
		if msg.StopReason != sdk.StopReasonMaxTokens || len(uses) != 2 {
			t.Fatalf("%s: stop %q, %d tool_use", form, msg.StopReason, len(uses))
		}
		if string(uses[0].Input) != `{"location":"Paris, France"}` || string(uses[1].Input) != `{}` {
			t.Errorf("%s: inputs %s and %s", form, uses[0].Input, uses[1].Input)
		}
	}
	var partial strings.Builder
	for _, ev := range journal[1].Events {
		var e struct {
			Index int `json:"index"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if json.Unmarshal(ev.Data, &e) == nil && e.Index == 1 && e.Delta.Type == "input_json_delta" {
			partial.WriteString(e.Delta.PartialJSON)
		}
	}
	if got := partial.String(); got != `{"location":"L` {
		t.Errorf("streamed prefix of the cut call %q", got)
	}
}

// TestSDKDisableParallelToolUse: disable_parallel_tool_use keeps the first
// of the scenario's two calls.
func TestSDKDisableParallelToolUse(t *testing.T) {
	p := newParams("Compare the weather in Paris and London.")
	p.ToolChoice = sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{DisableParallelToolUse: sdk.Bool(true)}}
	messages, _ := bothForms(t, "parallel-same-tool", p)
	for form, msg := range messages {
		uses := toolUses(msg)
		if msg.StopReason != sdk.StopReasonToolUse || len(uses) != 1 || string(uses[0].Input) != `{"location":"Paris, France"}` {
			t.Errorf("%s: stop %q, tool_use %v", form, msg.StopReason, uses)
		}
	}
}

// TestSDKStopSequence: a stop sequence in text-alongside-call's text ends
// the answer before it; the call after it is not sent, and stop_sequence
// names the sequence.
func TestSDKStopSequence(t *testing.T) {
	p := newParams("Conjugate 'eat' in the past simple, third person singular.")
	p.Tools = []sdk.ToolUnionParam{{OfTool: &sdk.ToolParam{Name: "conjugate", InputSchema: sdk.ToolInputSchemaParam{
		Properties: map[string]any{"verb": map[string]any{"type": "string"}, "tense": map[string]any{"type": "string"}, "person": map[string]any{"type": "string"}},
	}}}}
	p.StopSequences = []string{"###", " conjugation"}
	messages, _ := bothForms(t, "text-alongside-call", p)
	for form, msg := range messages {
		if msg.StopReason != sdk.StopReasonStopSequence || msg.StopSequence != " conjugation" || len(msg.Content) != 1 || msg.Content[0].Text != "Let me check that" {
			t.Errorf("%s: %s", form, msg.RawJSON())
		}
	}
}

package model

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// TestRedactedReasoning: a scripted redacted reasoning reaches Anthropic
// and the Responses API as a reasoning part marked redacted before the
// call; Chat and Gemini have nowhere to put it and get the call alone.
func TestRedactedReasoning(t *testing.T) {
	set, err := scenario.NewSet(&scenario.Scenario{Name: "s", Turns: []scenario.Turn{{
		Reasoning: &scenario.Reasoning{Redacted: true},
		Calls:     []scenario.Call{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Scenarios: set}
	for d, model := range map[conv.Dialect]string{conv.Anthropic: "claude-sonnet-4-5", conv.OpenAIResponses: "gpt-4.1", conv.OpenAIChat: "gpt-4.1", conv.Gemini: "gemini-2.5-flash"} {
		parts := next(t, e, conversation(d, model, userText("x")), "s").Turn.Parts
		carries := d == conv.Anthropic || d == conv.OpenAIResponses
		switch {
		case carries && (len(parts) != 2 || parts[0].Kind != conv.KindReasoning || !parts[0].Reasoning.Redacted || parts[1].Kind != conv.KindCall):
			t.Errorf("%s: parts %+v, want a redacted reasoning then the call", d, parts)
		case !carries && (len(parts) != 1 || parts[0].Kind != conv.KindCall):
			t.Errorf("%s: parts %+v, want the call alone", d, parts)
		}
	}
}

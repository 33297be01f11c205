package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

func twoCalls() *Reply {
	return &Reply{Turn: conv.Turn{Role: conv.Assistant, Parts: []conv.Part{
		{Kind: conv.KindText, Text: "Let me check both."},
		{Kind: conv.KindCall, Call: &conv.Call{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}},
		{Kind: conv.KindCall, Call: &conv.Call{Name: "get_time", Arguments: map[string]any{"zone": "Europe/Paris"}}},
	}}}
}

func TestObeyToolChoiceNone(t *testing.T) {
	c := conversation(conv.OpenAIChat, "gpt-4.1", userText("x"))
	c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceNone}
	r := obey(c, twoCalls())
	if len(r.Calls()) != 0 || r.TrimmedCalls != 2 || r.Text() != "Let me check both." {
		t.Fatalf("calls %v trimmed %d text %q", callNames(r), r.TrimmedCalls, r.Text())
	}
}

func TestObeySerialCalls(t *testing.T) {
	c := conversation(conv.Anthropic, "claude-sonnet-4-5", userText("x"))
	c.Controls.SerialCalls = true
	r := twoCalls()
	r.RawArguments = map[int]string{1: `{"zone":`}
	r = obey(c, r)
	if got := callNames(r); len(got) != 1 || got[0] != "get_weather" || r.TrimmedCalls != 1 || len(r.RawArguments) != 0 {
		t.Fatalf("calls %v trimmed %d raw %v", got, r.TrimmedCalls, r.RawArguments)
	}
	// Without the control both calls go out.
	if got := callNames(obey(conversation(conv.Anthropic, "m", userText("x")), twoCalls())); len(got) != 2 {
		t.Fatalf("uncontrolled: %v", got)
	}
}

func TestObeyStopSequence(t *testing.T) {
	c := conversation(conv.Anthropic, "m", userText("x"))
	c.Controls.StopSequences = []string{"zzz", " both"}
	r := obey(c, twoCalls())
	if r.Text() != "Let me check" || len(r.Calls()) != 0 || r.Stop != StopSequence || r.StopText != " both" {
		t.Fatalf("text %q calls %v stop %q %q", r.Text(), callNames(r), r.Stop, r.StopText)
	}
}

func TestObeyTokenLimit(t *testing.T) {
	c := conversation(conv.OpenAIChat, "m", userText("x"))
	// Text (18 chars) fits in 8 tokens (32 chars); the first call does
	// not: it is cut inside its arguments and nothing follows it.
	c.Controls.MaxOutputTokens = 8
	r := obey(c, twoCalls())
	if r.Stop != StopTokens || r.CutCall != 0 || len(r.Calls()) != 1 {
		t.Fatalf("stop %q cut %d calls %v", r.Stop, r.CutCall, callNames(r))
	}
	raw := r.ArgumentsJSON(0)
	if json.Valid([]byte(raw)) || !strings.HasPrefix(`{"city":"Paris"}`, raw) {
		t.Fatalf("cut arguments %q: want an invalid prefix of the whole", raw)
	}
	// A limit below the text cuts the text and sends no call.
	c.Controls.MaxOutputTokens = 2
	r = obey(c, twoCalls())
	if r.Text() != "Let me c" || len(r.Calls()) != 0 || r.Stop != StopTokens {
		t.Fatalf("text %q calls %v stop %q", r.Text(), callNames(r), r.Stop)
	}
	// A generous limit changes nothing.
	c.Controls.MaxOutputTokens = 1000
	if r = obey(c, twoCalls()); r.Stop != StopEnd || len(r.Calls()) != 2 || r.CutCall != -1 {
		t.Fatalf("stop %q calls %v", r.Stop, callNames(r))
	}
}

func TestScriptedTurnsObeyControls(t *testing.T) {
	sc, err := scenario.Parse("two-calls.yaml", []byte(`
name: two-calls
turns:
  - calls:
      - {name: get_weather, arguments: {city: Paris}}
      - {name: get_time, arguments: {zone: UTC}}
`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := scenario.NewSet(sc)
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Scenarios: set}
	c := conversation(conv.OpenAIChat, "gpt-4.1", userText("x"))
	if got := callNames(next(t, e, c, "two-calls")); len(got) != 2 {
		t.Fatalf("scripted calls %v", got)
	}
	c.Controls.SerialCalls = true
	r := next(t, e, c, "two-calls")
	if got := callNames(r); len(got) != 1 || r.TrimmedCalls != 1 {
		t.Fatalf("serial: calls %v trimmed %d", got, r.TrimmedCalls)
	}
}

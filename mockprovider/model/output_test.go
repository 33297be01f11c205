package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

const answerSchema = `{"type":"object","properties":{"city":{"type":"string"},"temperature_c":{"type":"number"},"tags":{"type":"array","items":{"type":"string","enum":["sunny","rainy"]}}},"required":["city","temperature_c","tags"],"additionalProperties":false}`

func withOutput(c *conv.Conversation, out *conv.Output) *conv.Conversation {
	c.Controls.Output = out
	return c
}

func schemaOutput(schema string) *conv.Output {
	return &conv.Output{Kind: conv.OutputJSONSchema, Name: "weather", Schema: json.RawMessage(schema)}
}

// engineWith is an engine holding one scenario built in code.
func engineWith(t *testing.T, sc *scenario.Scenario) *Engine {
	t.Helper()
	set, err := scenario.NewSet(sc)
	if err != nil {
		t.Fatal(err)
	}
	return &Engine{Scenarios: set}
}

func TestStructuredAnswerAfterResults(t *testing.T) {
	c := withOutput(conversation(conv.OpenAIChat, "gpt-4.1", userText("weather?"),
		conv.Turn{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{ID: "c1", Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}}},
		results(textResult("c1", "get_weather", "18C", false))), schemaOutput(answerSchema))
	r := next(t, &Engine{}, c, "")
	if problem := outputProblem(c.Controls.Output, mustJSON(t, []byte(r.Text()))); problem != "" {
		t.Fatalf("answer %s: %s", r.Text(), problem)
	}
	if len(r.Calls()) != 0 || len(r.Notes) != 0 {
		t.Fatalf("calls %v notes %v", callNames(r), r.Notes)
	}
	// Free text without the demand: the broken case the shaping fixes.
	c.Controls.Output = nil
	if r := next(t, &Engine{}, c, ""); json.Valid([]byte(r.Text())) {
		t.Fatalf("free-text answer is JSON: %s", r.Text())
	}
}

func TestStructuredAnswerIsAnyValue(t *testing.T) {
	c := withOutput(conversation(conv.Gemini, "gemini-2.5-flash", userText("list")), schemaOutput(`{"type":"array","items":{"type":"integer","minimum":3},"minItems":2}`))
	c.Tools = nil
	r := next(t, &Engine{}, c, "")
	var got []int
	if err := json.Unmarshal([]byte(r.Text()), &got); err != nil || len(got) < 2 || got[0] < 3 {
		t.Fatalf("answer %q: %v", r.Text(), err)
	}
}

func TestJSONObjectMode(t *testing.T) {
	c := conversation(conv.OpenAIChat, "gpt-4.1", userText("answer in json"))
	c.Tools = nil
	c.Controls.Output = &conv.Output{Kind: conv.OutputJSONObject}
	r := next(t, &Engine{}, c, "")
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Text()), &m); err != nil || m["answer"] != DefaultText {
		t.Fatalf("answer %q: %v", r.Text(), err)
	}
}

func TestCallsAreNotShaped(t *testing.T) {
	c := withOutput(conversation(conv.OpenAIChat, "gpt-4.1", userText("weather in Paris")), schemaOutput(answerSchema))
	r := next(t, &Engine{}, c, "")
	if len(r.Calls()) != 1 || r.Text() != "" {
		t.Fatalf("calls %v text %q", callNames(r), r.Text())
	}
	// tool_choice none turns the call into an answer, which is shaped.
	c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceNone}
	r = next(t, &Engine{}, c, "")
	if outputProblem(c.Controls.Output, mustJSON(t, []byte(r.Text()))) != "" {
		t.Fatalf("answer under tool_choice none: %s", r.Text())
	}
}

func TestScriptedOutput(t *testing.T) {
	good := map[string]any{"city": "Paris", "temperature_c": 18.5, "tags": []any{"sunny"}}
	bad := map[string]any{"city": "Paris"}
	for _, tc := range []struct {
		name  string
		turn  scenario.Turn
		want  string // the answer's text
		error bool   // a scenario error is noted
	}{
		{"matching output", scenario.Turn{Output: good}, `{"city":"Paris","tags":["sunny"],"temperature_c":18.5}`, false},
		{"output missing a property", scenario.Turn{Output: bad}, `{"city":"Paris"}`, true},
		{"JSON text", scenario.Turn{Text: `{"city":"Oslo","temperature_c":2,"tags":[]}`}, `{"city":"Oslo","tags":[],"temperature_c":2}`, false},
		{"free text", scenario.Turn{Text: "It is sunny."}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := engineWith(t, &scenario.Scenario{Name: "final", Turns: []scenario.Turn{tc.turn}})
			c := withOutput(conversation(conv.Anthropic, "claude-sonnet-4-5", userText("x")), schemaOutput(answerSchema))
			r := next(t, e, c, "final")
			if tc.want != "" && r.Text() != tc.want {
				t.Errorf("text %s, want %s", r.Text(), tc.want)
			}
			if tc.want == "" && outputProblem(c.Controls.Output, mustJSON(t, []byte(r.Text()))) != "" {
				t.Errorf("free text not replaced by a valid value: %s", r.Text())
			}
			noted := false
			for _, n := range r.Notes {
				noted = noted || strings.HasPrefix(n, "scenario error: scenario final turn 1:")
			}
			if noted != tc.error {
				t.Errorf("scenario error noted %v, want %v: %v", noted, tc.error, r.Notes)
			}
		})
	}
}

func TestAllowedToolsLimitCalls(t *testing.T) {
	c := conversation(conv.Gemini, "gemini-2.5-flash", userText("get_weather please"))
	c.Controls.AllowedTools = []string{"get_time"}
	r := next(t, &Engine{}, c, "")
	if got := callNames(r); len(got) != 1 || got[0] != "get_time" {
		t.Fatalf("default call %v", got)
	}
	e := engineWith(t, &scenario.Scenario{Name: "both", Turns: []scenario.Turn{{Calls: []scenario.Call{{Name: "get_weather"}, {Name: "get_time", RawArguments: `{"timezone":"UTC"}`}}}}})
	r = next(t, e, c, "both")
	if got := callNames(r); len(got) != 1 || got[0] != "get_time" || r.ArgumentsJSON(0) != `{"timezone":"UTC"}` || r.TrimmedCalls != 1 {
		t.Fatalf("scripted calls %v args %s trimmed %d", got, r.ArgumentsJSON(0), r.TrimmedCalls)
	}
}

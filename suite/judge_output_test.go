package suite

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite/checks"
	"github.com/toolwire/toolwire/suite/task"
)

// structuredExchange is a built journal of the structured-final-answer
// scenario on Chat: the prompt, then the result of the model's call,
// answered by the scripted final turn. demand is the output demand the
// final request carried (nil: none); finalText is what the driver
// reported.
func structuredExchange(t *testing.T, h *Harness, demand *conv.Output, finalText string) *Exchange {
	t.Helper()
	var combo *Combo
	for _, c := range h.Plan() {
		if c.Scenario.Name == "structured-final-answer" && c.Dialect == conv.OpenAIChat && !c.Stream {
			combo = &c
		}
	}
	if combo == nil {
		t.Fatal("structured-final-answer is not in the plan on openai-chat")
	}
	tk, err := task.FromScenario(combo.Scenario, conv.OpenAIChat, false, judgeOf(conv.OpenAIChat).DefaultModel)
	if err != nil {
		t.Fatal(err)
	}
	call := &conv.Call{ID: "call_1", Name: "get_weather", Arguments: map[string]any{"location": "Tokyo, Japan"}}
	prompt := conv.Turn{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindText, Text: tk.Prompt}}}
	first := &conv.Conversation{Dialect: conv.OpenAIChat, Model: tk.Model, Turns: []conv.Turn{prompt}}
	final := &conv.Conversation{Dialect: conv.OpenAIChat, Model: tk.Model, Turns: []conv.Turn{prompt,
		{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: call}}},
		{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindResult, Result: &conv.Result{CallID: "call_1",
			Content: []conv.Content{{Type: conv.ContentText, Text: tk.Tools[0].Results[0].Result.Text()}}}}}},
	}}
	for _, c := range []*conv.Conversation{first, final} {
		c.Tools = []conv.Tool{{Name: "get_weather", Parameters: mustJSON(tk.Tools[0].Parameters)}}
		c.Controls.Output = demand
	}
	entries := []session.Entry{
		{Seq: 1, Dialect: conv.OpenAIChat, Status: 200, Turn: 0, Request: json.RawMessage(`{"model":"gpt-4.1","messages":[]}`), Conversation: first},
		{Seq: 2, Dialect: conv.OpenAIChat, Status: 200, Turn: 1, Request: json.RawMessage(`{"model":"gpt-4.1","messages":[{"role":"tool"}]}`), Conversation: final},
	}
	return &Exchange{h: h, Combo: *combo, Task: tk, Outcome: Outcome{Reply: task.Reply{FinalText: finalText}}, Entries: entries}
}

// The structured-answer check, judged from built journals: it passes when
// the final request carries the task's schema and the driver reports the
// answer in it, and fails, saying why, when the demand is missing, when
// the reported text breaks the schema, and when the request carried
// another schema.
func TestStructuredAnswerCheck(t *testing.T) {
	h, err := New(Config{Dialects: []conv.Dialect{conv.OpenAIChat}, Scenarios: []string{"structured-final-answer"}, Streams: []bool{false},
		Driver: Func(func(context.Context, Invocation) (string, error) { return "", errors.New("not run") })})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var rule = ruleID(conv.OpenAIChat, checks.StructuredAnswer)
	found := false
	for _, r := range h.RulesFor(conv.OpenAIChat) {
		found = found || r.ID == rule
	}
	if !found {
		t.Fatalf("%s is not among the rules of openai-chat", rule)
	}
	sc, _ := h.mock.Scenarios().Get("structured-final-answer")
	taskSchema := mustJSON(sc.Output.Schema)
	demand := &conv.Output{Kind: conv.OutputJSONSchema, Name: "weather_report", Schema: taskSchema}
	answer := `{"city":"Tokyo","temperature_c":18,"condition":"partly cloudy"}`
	other := &conv.Output{Kind: conv.OutputJSONSchema, Name: "other", Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)}

	for _, tc := range []struct {
		name      string
		demand    *conv.Output
		finalText string
		want      reports.Outcome
		says      []string
	}{
		{"schema sent, answer valid", demand, answer, reports.Pass, nil},
		{"schema sent, answer valid with spaces around", demand, "\n" + answer + " ", reports.Pass, nil},
		{"no demand", nil, "Here is what the tools returned: …", reports.Fail, []string{`schema "weather_report"`, "carried no output schema"}},
		{"answer breaks the schema", demand, `{"city":"Tokyo","temperature_c":"18","condition":"partly cloudy"}`, reports.Fail, []string{"at /temperature_c", `schema "weather_report"`}},
		{"answer not JSON", demand, "The weather in Tokyo is partly cloudy.", reports.Fail, []string{"not JSON"}},
		{"another schema sent", other, `{"answer":"partly cloudy"}`, reports.Fail, []string{`schema "other", not the task's schema`}},
		{"JSON mode sent", &conv.Output{Kind: conv.OutputJSONObject}, `{"answer":"partly cloudy"}`, reports.Fail, []string{"JSON mode, no schema"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := structuredExchange(t, h, tc.demand, tc.finalText)
			var res *reports.Result
			for _, r := range x.Results() {
				if r.Rule == rule {
					res = &r
				}
			}
			if res == nil {
				t.Fatalf("no verdict on %s", rule)
			}
			if res.Outcome != tc.want {
				t.Fatalf("outcome %s, want %s: %s", res.Outcome, tc.want, res.Message)
			}
			for _, s := range tc.says {
				if !strings.Contains(res.Message, s) {
					t.Errorf("message %q does not say %q", res.Message, s)
				}
			}
			if tc.want == reports.Fail && (res.Expected == "" || res.Got == "" || res.Fix == "") {
				t.Errorf("failure lacks expected/got/fix: %+v", res)
			}
		})
	}
}

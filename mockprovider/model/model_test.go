package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location","unit"],"additionalProperties":false}`

func tools() []conv.Tool {
	return []conv.Tool{
		{Name: "get_weather", Parameters: json.RawMessage(weatherSchema)},
		{Name: "get_time", Parameters: json.RawMessage(`{"type":"object","properties":{"timezone":{"type":"string"}},"required":["timezone"]}`)},
	}
}

func userText(s string) conv.Turn {
	return conv.Turn{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindText, Text: s}}}
}

func results(rs ...conv.Result) conv.Turn {
	t := conv.Turn{Role: conv.User}
	for i := range rs {
		t.Parts = append(t.Parts, conv.Part{Kind: conv.KindResult, Result: &rs[i]})
	}
	return t
}

func textResult(id, name, text string, isErr bool) conv.Result {
	return conv.Result{CallID: id, Name: name, IsError: isErr, Content: []conv.Content{{Type: conv.ContentText, Text: text}}}
}

func conversation(d conv.Dialect, model string, ts ...conv.Turn) *conv.Conversation {
	return &conv.Conversation{Dialect: d, Model: model, Tools: tools(), ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto}, Turns: ts}
}

func builtinEngine(t *testing.T) *Engine {
	t.Helper()
	list, err := scenario.LoadFS(fixtures.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	set, err := scenario.NewSet(list...)
	if err != nil {
		t.Fatal(err)
	}
	return &Engine{Scenarios: set}
}

func next(t *testing.T, e *Engine, c *conv.Conversation, name string) *Reply {
	t.Helper()
	r, err := e.Next(c, name)
	if err != nil {
		t.Fatalf("Next(%q): %v", name, err)
	}
	return r
}

func callNames(r *Reply) []string {
	var out []string
	for _, c := range r.Calls() {
		out = append(out, c.Name)
	}
	return out
}

func TestDefaultPicksTool(t *testing.T) {
	e := &Engine{}
	cases := []struct {
		name   string
		choice conv.ToolChoice
		prompt string
		want   string
	}{
		{"first tool", conv.ToolChoice{Mode: conv.ToolChoiceAuto}, "hello", "get_weather"},
		{"named in prompt", conv.ToolChoice{Mode: conv.ToolChoiceAuto}, "please use GET_TIME for Tokyo", "get_time"},
		{"forced beats prompt", conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: "get_time"}, "use get_weather", "get_time"},
		{"required", conv.ToolChoice{Mode: conv.ToolChoiceRequired}, "x", "get_weather"},
		{"forced unknown falls back", conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: "nope"}, "x", "get_weather"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := conversation(conv.OpenAIChat, "gpt-4.1", userText(tc.prompt))
			c.ToolChoice = tc.choice
			r := next(t, e, c, "")
			if got := callNames(r); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("calls = %v, want [%s]", got, tc.want)
			}
			if r.Source != "default" {
				t.Errorf("Source = %q", r.Source)
			}
		})
	}
}

func TestDefaultArgumentsValidate(t *testing.T) {
	r := next(t, &Engine{}, conversation(conv.Anthropic, "claude-sonnet-4-5", userText("weather?")), "")
	s := compileFor(t, weatherSchema)
	b, _ := json.Marshal(r.Calls()[0].Arguments)
	if err := s.Validate(mustJSON(t, b)); err != nil {
		t.Errorf("default arguments %s invalid: %v", b, err)
	}
	if got := r.ArgumentsJSON(0); got != string(b) {
		t.Errorf("ArgumentsJSON(0) = %s, want %s", got, b)
	}
}

func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDefaultText(t *testing.T) {
	e := &Engine{}
	noTools := &conv.Conversation{Dialect: conv.Gemini, Model: "gemini-2.5-flash", Turns: []conv.Turn{userText("hi")}}
	if got := next(t, e, noTools, "").Text(); got != DefaultText {
		t.Errorf("no tools: %q", got)
	}
	none := conversation(conv.OpenAIChat, "gpt-4.1", userText("use get_weather"))
	none.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceNone}
	r := next(t, e, none, "")
	if len(r.Calls()) != 0 || r.Text() != DefaultText {
		t.Errorf("tool_choice none: calls %v text %q", callNames(r), r.Text())
	}
}

func TestDefaultFinalTextQuotesEveryResult(t *testing.T) {
	c := conversation(conv.OpenAIResponses, "gpt-4.1", userText("x"),
		conv.Turn{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{ID: "c1", Name: "get_weather"}}, {Kind: conv.KindCall, Call: &conv.Call{ID: "c2", Name: "get_time"}}}},
		results(
			textResult("c1", "get_weather", `{"t":18}`, false),
			textResult("c2", "", "Location not found", true),
			conv.Result{CallID: "c3", Name: "chart", Content: []conv.Content{{Type: conv.ContentImage, MIMEType: "image/png"}}},
			conv.Result{CallID: "c4", Name: "stats", Structured: map[string]any{"count": 1}},
		))
	r := next(t, &Engine{}, c, "")
	want := `Here is what the tools returned: get_weather: "{\"t\":18}"; error c2: "Location not found"; chart: " [image image/png]"; stats: "{\"count\":1}"`
	if got := r.Text(); got != want {
		t.Errorf("text\n got: %s\nwant: %s", got, want)
	}
	if len(r.Calls()) != 0 {
		t.Errorf("answered results with calls %v", callNames(r))
	}
}

// A driver that loops "call the model, run the calls, send results" stops
// under tool_choice auto, and under a forced choice once it resets the
// choice after the first call (as the providers' docs tell loops to do). A
// loop that keeps forcing keeps getting calls, as from the real models.
func TestDefaultAgentLoop(t *testing.T) {
	choices := []conv.ToolChoice{{Mode: conv.ToolChoiceAuto}, {Mode: conv.ToolChoiceRequired}, {Mode: conv.ToolChoiceFunction, Name: "get_time"}}
	for _, d := range conv.Dialects {
		for _, choice := range choices {
			for _, reset := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/reset=%v", d, choice.Mode, reset), func(t *testing.T) {
					c := conversation(d, "gpt-5", userText("go"))
					c.ToolChoice = choice
					ended := false
					for step := 1; step <= 4 && !ended; step++ {
						r := next(t, &Engine{}, c, "")
						c.Turns = append(c.Turns, r.Turn)
						if len(r.Calls()) == 0 {
							if r.Text() == "" {
								t.Fatal("final turn has no text")
							}
							ended = true
							break
						}
						if choice.Mode == conv.ToolChoiceFunction && r.Calls()[0].Name != "get_time" {
							t.Fatalf("forced get_time, called %v", callNames(r))
						}
						var rs []conv.Result
						for i, call := range r.Calls() {
							rs = append(rs, textResult(fmt.Sprintf("c%d", i), call.Name, "ok", false))
						}
						c.Turns = append(c.Turns, results(rs...))
						if reset {
							c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceAuto}
						}
					}
					forcing := choice.Mode != conv.ToolChoiceAuto && !reset
					if ended == forcing {
						t.Fatalf("loop ended = %v; a loop that keeps a forced choice must not end, any other must", ended)
					}
				})
			}
		}
	}
}

func TestReasoningItems(t *testing.T) {
	cases := []struct {
		dialect conv.Dialect
		model   string
		want    bool
	}{
		{conv.OpenAIResponses, "gpt-5", true},
		{conv.OpenAIResponses, "o4-mini", true},
		{conv.OpenAIResponses, "gpt-4.1", false},
		{conv.OpenAIChat, "gpt-5", false},
		{conv.Anthropic, "o3", false},
	}
	for _, tc := range cases {
		r := next(t, &Engine{}, conversation(tc.dialect, tc.model, userText("x")), "")
		got := len(r.Turn.Parts) > 0 && r.Turn.Parts[0].Kind == conv.KindReasoning
		if got != tc.want {
			t.Errorf("%s %s: reasoning first = %v, want %v", tc.dialect, tc.model, got, tc.want)
		}
		if got && r.Turn.Parts[1].Kind != conv.KindCall {
			t.Errorf("%s %s: reasoning not followed by the call", tc.dialect, tc.model)
		}
	}
	// Text answers carry no reasoning item: there is no call to pair it with.
	final := conversation(conv.OpenAIResponses, "gpt-5", userText("x"), results(textResult("c", "get_weather", "ok", false)))
	for _, p := range next(t, &Engine{}, final, "").Turn.Parts {
		if p.Kind == conv.KindReasoning {
			t.Error("reasoning item on a text-only answer")
		}
	}
}

func TestIsReasoningModelAndGemini3(t *testing.T) {
	for name, want := range map[string]bool{"gpt-5": true, "gpt-5-mini": true, "GPT-5.1": true, "o1": true, "o3-mini": true, "o4-mini": true, "gpt-4.1": false, "gpt-4o": false, "omni": false, "": false} {
		if got := IsReasoningModel(name); got != want {
			t.Errorf("IsReasoningModel(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{"gemini-3-flash-preview": true, "models/gemini-3-pro-preview": true, "gemini-2.5-flash": false, "gemini-30": true, "": false} {
		if got := IsGemini3(name); got != want {
			t.Errorf("IsGemini3(%q) = %v", name, got)
		}
	}
}

func TestScenarioCursorFollowsAssistantTurns(t *testing.T) {
	e := builtinEngine(t)
	c := conversation(conv.Anthropic, "claude-sonnet-4-5", userText("Find the user"))
	c.Tools = []conv.Tool{{Name: "find_user"}, {Name: "list_orders"}}

	r1 := next(t, e, c, "multi-turn-chain")
	if got := callNames(r1); len(got) != 1 || got[0] != "find_user" || r1.Source != "scenario multi-turn-chain turn 1" {
		t.Fatalf("turn 1: calls %v source %q", got, r1.Source)
	}
	// A retry of the same request lands on the same turn.
	if again := next(t, e, c, "multi-turn-chain"); again.Source != r1.Source {
		t.Errorf("retry answered %q", again.Source)
	}
	c.Turns = append(c.Turns, r1.Turn, results(textResult("c1", "find_user", `{"user_id":"u_42"}`, false)))
	r2 := next(t, e, c, "multi-turn-chain")
	if got := callNames(r2); len(got) != 1 || got[0] != "list_orders" || r2.Text() != "Found the user; now her orders." {
		t.Fatalf("turn 2: calls %v text %q", got, r2.Text())
	}
	if r2.Turn.Parts[0].Kind != conv.KindText {
		t.Errorf("text must come before the calls: %v", r2.Turn.Parts[0].Kind)
	}
	c.Turns = append(c.Turns, r2.Turn, results(textResult("c2", "list_orders", `{"orders":[]}`, false)))
	r3 := next(t, e, c, "multi-turn-chain")
	if want := `Done: list_orders: "{\"orders\":[]}"`; r3.Text() != want {
		t.Errorf("turn 3 text %q, want %q", r3.Text(), want)
	}
	// Past the script: the default model, which answers results with text.
	c.Turns = append(c.Turns, r3.Turn, userText("thanks"))
	r4 := next(t, e, c, "multi-turn-chain")
	if !strings.Contains(r4.Source, "script ended") {
		t.Errorf("after the script: source %q", r4.Source)
	}
}

func TestScenarioResultsPlaceholderQuotesErrors(t *testing.T) {
	e := builtinEngine(t)
	c := conversation(conv.Gemini, "gemini-2.5-flash", userText("Atlantis?"),
		conv.Turn{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{Name: "get_weather"}}}},
		results(textResult("", "get_weather", "Error: Location 'Atlantis' not found.", true)))
	r := next(t, e, c, "error-result")
	if want := `The tool failed: error get_weather: "Error: Location 'Atlantis' not found."`; r.Text() != want {
		t.Errorf("text %q, want %q", r.Text(), want)
	}
}

func TestUnknownScenario(t *testing.T) {
	_, err := builtinEngine(t).Next(conversation(conv.OpenAIChat, "gpt-4.1", userText("x")), "paralel-same-tool")
	var unk *ErrUnknownScenario
	if !errors.As(err, &unk) || unk.Closest != "parallel-same-tool" {
		t.Fatalf("err = %v", err)
	}
	if want := `unknown toolwire scenario "paralel-same-tool" (closest: "parallel-same-tool")`; err.Error() != want {
		t.Errorf("message %q", err.Error())
	}
	if _, err := (&Engine{}).Next(conversation(conv.OpenAIChat, "gpt-4.1"), "x"); err == nil || err.Error() != `unknown toolwire scenario "x"` {
		t.Errorf("no set: %v", err)
	}
}

func TestScriptedReasoningOnlyOnResponses(t *testing.T) {
	e := builtinEngine(t)
	r := next(t, e, conversation(conv.OpenAIResponses, "gpt-5", userText("Tokyo?")), "reasoning-pass-back")
	if r.Turn.Parts[0].Kind != conv.KindReasoning || !strings.Contains(r.Turn.Parts[0].Reasoning.Summary, "get_weather") {
		t.Fatalf("parts %+v", r.Turn.Parts)
	}
	if n := countKind(r, conv.KindReasoning); n != 1 {
		t.Errorf("%d reasoning items, want 1", n)
	}
	chat := next(t, e, conversation(conv.OpenAIChat, "gpt-5", userText("Tokyo?")), "reasoning-pass-back")
	if countKind(chat, conv.KindReasoning) != 0 {
		t.Error("scripted reasoning sent on openai-chat")
	}
}

func countKind(r *Reply, k conv.PartKind) int {
	n := 0
	for _, p := range r.Turn.Parts {
		if p.Kind == k {
			n++
		}
	}
	return n
}

func TestScriptedRawArguments(t *testing.T) {
	e := builtinEngine(t)
	r := next(t, e, conversation(conv.OpenAIChat, "gpt-4.1", userText("eat")), "malformed-arguments")
	if got := r.ArgumentsJSON(0); got != `{"verb": "eat", "tense": ` {
		t.Errorf("ArgumentsJSON(0) = %q", got)
	}
	if args := r.Calls()[0].Arguments; args["verb"] != 42 || args["tense"] != "past" {
		t.Errorf("object arguments for object dialects = %v", args)
	}
	if got := r.ArgumentsJSON(5); got != "{}" {
		t.Errorf("out of range ArgumentsJSON = %q", got)
	}
	plain := next(t, e, conversation(conv.OpenAIChat, "gpt-4.1", userText("x")), "single-call")
	if plain.RawArguments != nil || plain.ArgumentsJSON(0) != `{"location":"Tokyo, Japan"}` {
		t.Errorf("single-call raw %v json %s", plain.RawArguments, plain.ArgumentsJSON(0))
	}
}

func TestScriptedArgumentsAreCopies(t *testing.T) {
	e := builtinEngine(t)
	c := conversation(conv.OpenAIChat, "gpt-4.1", userText("x"))
	r := next(t, e, c, "strict-tools")
	r.Calls()[0].Arguments["details"].(map[string]any)["hourly"] = true
	again := next(t, e, c, "strict-tools")
	if again.Calls()[0].Arguments["details"].(map[string]any)["hourly"] != false {
		t.Error("changing a reply's arguments changed the scenario")
	}
}

func TestScriptedCallWithoutArgumentsIsSynthesized(t *testing.T) {
	set, err := scenario.NewSet(&scenario.Scenario{Name: "s", Turns: []scenario.Turn{{Calls: []scenario.Call{{Name: "get_weather", ID: "call_fixed", ThoughtSignature: "-"}, {Name: "undeclared"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := next(t, &Engine{Scenarios: set}, conversation(conv.Gemini, "gemini-3-flash-preview", userText("x")), "s")
	calls := r.Calls()
	if calls[0].Arguments["unit"] != "celsius" || calls[0].ID != "call_fixed" || calls[0].ThoughtSignature != "-" {
		t.Errorf("call 0 = %+v", calls[0])
	}
	if calls[1].Arguments == nil || len(calls[1].Arguments) != 0 {
		t.Errorf("call to an undeclared tool without arguments = %v, want {}", calls[1].Arguments)
	}
}

func TestScriptedStreamAndFault(t *testing.T) {
	set, _ := scenario.NewSet(&scenario.Scenario{Name: "s", Turns: []scenario.Turn{
		{Text: "slow", Stream: &scenario.Stream{FragmentSize: 3, ChunkDelayMS: 5, FirstTokenMS: 7}, Fault: &scenario.Fault{Kind: "rate_limit", Count: 2}},
		{},
	}})
	e := &Engine{Scenarios: set}
	r := next(t, e, conversation(conv.Anthropic, "claude-sonnet-4-5", userText("x")), "s")
	if r.Stream.FragmentSize != 3 || r.Stream.ChunkDelay.Milliseconds() != 5 || r.Stream.FirstTokenDelay.Milliseconds() != 7 {
		t.Errorf("stream %+v", r.Stream)
	}
	if r.Fault == nil || r.Fault.Kind != "rate_limit" || r.Fault.Count != 2 {
		t.Errorf("fault %+v", r.Fault)
	}
	// An empty scripted turn answers with the results quoted.
	c := conversation(conv.Anthropic, "claude-sonnet-4-5", userText("x"), conv.Turn{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindText, Text: "slow"}}},
		results(textResult("t1", "get_time", "noon", false)))
	if got := next(t, e, c, "s").Text(); got != `Here is what the tools returned: get_time: "noon"` {
		t.Errorf("empty turn text %q", got)
	}
}

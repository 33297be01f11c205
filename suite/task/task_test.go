package task

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

func TestAnswerPicksFirstMatchingResult(t *testing.T) {
	tk := &Task{Tools: []Tool{{Name: "w", Results: []Result{
		{When: map[string]any{"city": "Paris", "days": 3}, Result: CallToolResult{Content: []Content{{Type: "text", Text: "paris"}}}},
		{Result: CallToolResult{Content: []Content{{Type: "text", Text: "other"}}}},
	}}}}
	// JSON numbers (float64) match YAML ints.
	if o := tk.Answer("w", map[string]any{"city": "Paris", "days": 3.0, "x": 1}); !o.Canned || o.Result.Text() != "paris" {
		t.Errorf("got %+v", o)
	}
	if o := tk.Answer("w", map[string]any{"city": "Rome"}); !o.Canned || o.Result.Text() != "other" {
		t.Errorf("fallback: %+v", o)
	}
	if o := tk.Answer("nope", nil); o.Canned || !o.Result.IsError {
		t.Errorf("unknown tool: %+v", o)
	}
	if o, _ := tk.AnswerRaw("w", `{"city": `); o.Canned || !o.Result.IsError {
		t.Errorf("broken arguments: %+v", o)
	}
}

func TestParseResultRejectsUnknownShapes(t *testing.T) {
	if _, err := ParseResult(map[string]any{"content": []any{map[string]any{"type": "video"}}}); err == nil {
		t.Error("unknown content type accepted")
	}
	if _, err := ParseResult(map[string]any{"contents": []any{}}); err == nil {
		t.Error("unknown field accepted")
	}
	r, err := ParseResult(map[string]any{"content": []any{map[string]any{"type": "image", "data": "AA==", "mimeType": "image/png"}}, "isError": true})
	if err != nil || !r.IsError || len(r.Media()) != 1 {
		t.Errorf("got %+v, %v", r, err)
	}
}

func TestFromScenarioDefaults(t *testing.T) {
	sc := &scenario.Scenario{Name: "s", Turns: []scenario.Turn{{}, {}}, Tools: []scenario.Tool{{Name: "t"}}}
	tk, err := FromScenario(sc, conv.Gemini, true, "gemini-default")
	if err != nil {
		t.Fatal(err)
	}
	if tk.Model != "gemini-default" || !tk.Stream || tk.MaxTurns < 3 || tk.Prompt == "" || tk.Tools[0].Parameters == nil {
		t.Errorf("got %+v", tk)
	}
}

// A scenario's features set what they ask of the driver, and nothing
// else does.
func TestFromScenarioFeatureSettings(t *testing.T) {
	plain, err := FromScenario(&scenario.Scenario{Name: "s", Features: []string{"core"}}, conv.Anthropic, false, "m")
	if err != nil {
		t.Fatal(err)
	}
	if plain.Thinking != nil || plain.MaxOutputTokens != 0 || plain.ItemReferences || plain.Output != nil {
		t.Errorf("core scenario got settings: %+v", plain)
	}
	sc := &scenario.Scenario{Name: "s", Features: []string{FeatureThinking, FeatureTruncation, FeatureItemReferences}}
	tk, err := FromScenario(sc, conv.Anthropic, false, "m")
	if err != nil {
		t.Fatal(err)
	}
	if tk.Thinking == nil || tk.Thinking.BudgetTokens != ThinkingBudget || tk.MaxOutputTokens != TruncationLimit || !tk.ItemReferences {
		t.Errorf("got %+v", tk)
	}
}

// A scenario's output reaches the task as the driver's output demand.
func TestFromScenarioOutput(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	sc := &scenario.Scenario{Name: "s", Features: []string{FeatureStructuredOutput}, Output: &scenario.Output{Name: "report", Schema: schema}}
	tk, err := FromScenario(sc, conv.OpenAIChat, false, "m")
	if err != nil {
		t.Fatal(err)
	}
	if tk.Output == nil || tk.Output.Name != "report" || !JSONEqual(tk.Output.Schema, schema) {
		t.Errorf("output %+v", tk.Output)
	}
}

// Fields documents every member of the task JSON, in order, and nothing
// else: the help and the README list what a driver really gets.
func TestFieldsDocumentEveryTaskMember(t *testing.T) {
	var members []string
	typ := reflect.TypeOf(Task{})
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		members = append(members, name)
	}
	var documented []string
	for _, f := range Fields {
		if f.Doc == "" || strings.Contains(f.Doc, "\n") {
			t.Errorf("field %s: want one line of doc, got %q", f.Name, f.Doc)
		}
		documented = append(documented, f.Name)
	}
	if !slices.Equal(members, documented) {
		t.Errorf("task members %v, documented %v", members, documented)
	}
	help := FieldsHelp()
	for _, f := range Fields {
		if !strings.Contains(help, "  "+f.Name+" ") {
			t.Errorf("help lacks %s:\n%s", f.Name, help)
		}
	}
}

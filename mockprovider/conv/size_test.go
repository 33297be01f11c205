package conv

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func sample(text string) *Conversation {
	return &Conversation{Dialect: Anthropic, Model: "m", System: "sys", PreviousResponseID: "resp_1",
		Tools:    []Tool{{Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Controls: Controls{StopSequences: []string{"END"}},
		Turns: []Turn{
			{Role: User, Parts: []Part{{Kind: KindText, Text: text}, {Kind: KindMedia, Media: &Content{Type: ContentImage, URL: "https://x/y.png"}}}},
			{Role: Assistant, Parts: []Part{{Kind: KindReasoning, Reasoning: &Reasoning{ID: "rs_1", Summary: "s"}},
				{Kind: KindCall, Call: &Call{ID: "c1", Name: "f", Arguments: map[string]any{"a": []any{"x", 1.5, map[string]any{"b": nil}}}}}}},
			{Role: User, Parts: []Part{{Kind: KindResult, Result: &Result{CallID: "c1", Content: []Content{{Type: ContentText, Text: text}}, Structured: map[string]any{"ok": true}}}}},
		}}
}

// TestCloneIsDeep: a clone equals its original, and changing anything in
// it, however deep, leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	orig, want := sample("hello"), sample("hello")
	c := orig.Clone()
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone differs:\n%+v\n%+v", c, orig)
	}
	c.Model = "x"
	c.Tools[0].Parameters[2] = 'X'
	c.Controls.StopSequences[0] = "x"
	c.Turns[0].Parts[0].Text = "x"
	c.Turns[0].Parts[1].Media.URL = "x"
	c.Turns[1].Parts[0].Reasoning.Summary = "x"
	c.Turns[1].Parts[1].Call.Arguments["a"].([]any)[2].(map[string]any)["b"] = "x"
	c.Turns[2].Parts[0].Result.Content[0].Text = "x"
	c.Turns[2].Parts[0].Result.Structured["ok"] = false
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("a change to the clone reached the original:\n%+v", orig)
	}
	if (*Conversation)(nil).Clone() != nil {
		t.Fatal("nil cloned to a conversation")
	}
}

// TestSizeTracksContent: the estimate the journal budget charges grows
// with what a conversation holds and stays within a small multiple of its
// JSON size.
func TestSizeTracksContent(t *testing.T) {
	for _, n := range []int{0, 1 << 10, 1 << 20} {
		c := sample(strings.Repeat("a", n))
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if size := c.Size(); size < len(b)/2 || size > 4*len(b)+4096 {
			t.Errorf("text of %d bytes: size %d for %d bytes of JSON", n, size, len(b))
		}
	}
	if (*Conversation)(nil).Size() != 0 {
		t.Error("nil conversation has a size")
	}
}

// TestMeasureReusesSharedTurns: measuring a session's conversations one
// after the other gives what measuring each alone gives, whether the next
// one resends the same turns (shared parts), grows, changes a turn's
// parts in place of sharing them, or is shorter.
func TestMeasureReusesSharedTurns(t *testing.T) {
	first := sample("hello")
	grown := *first
	grown.Turns = append(append([]Turn{}, first.Turns...), Turn{Role: Assistant, Parts: []Part{{Kind: KindText, Text: "done"}}})
	changed := grown
	changed.Turns = append([]Turn{}, grown.Turns...)
	// Same length and kinds, other values: a turn that is not shared must
	// be measured again even though it looks alike.
	changed.Turns[1] = Turn{Role: Assistant, Parts: []Part{{Kind: KindReasoning, Reasoning: &Reasoning{ID: "rs_1"}},
		{Kind: KindCall, Call: &Call{ID: "c1", Name: "f", Arguments: map[string]any{"a": strings.Repeat("x", 5000)}}}}}
	// The same parts in a turn built afresh: reused, and still right.
	rebuilt := grown
	rebuilt.Turns = append([]Turn{}, grown.Turns...)
	rebuilt.Turns[2] = Turn{Role: User, Parts: append([]Part{}, grown.Turns[2].Parts...)}
	shorter := *first
	shorter.Turns = first.Turns[:1]
	var m Measure
	for i, c := range []*Conversation{first, first, &grown, &rebuilt, &changed, &shorter, &grown, nil, first} {
		if got, want := m.Size(c), c.Size(); got != want {
			t.Fatalf("conversation %d: measured %d after the one before, %d alone", i, got, want)
		}
	}
}

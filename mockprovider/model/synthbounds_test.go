package model

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Schemas of a few hundred bytes that once made synthesis build for
// seconds or allocate gigabytes: each must now answer quickly, within the
// bounds, with a note saying where it stopped.
func TestSynthesisIsBounded(t *testing.T) {
	cases := []struct {
		name, schema, note string
		check              func(t *testing.T, args map[string]any)
	}{
		{"minLength", `{"type":"object","properties":{"p":{"type":"string","minLength":100000}},"required":["p"]}`, "minLength 100000",
			func(t *testing.T, args map[string]any) {
				if n := utf8.RuneCountInString(args["p"].(string)); n != MaxSynthString {
					t.Errorf("string of %d characters, want the bound %d", n, MaxSynthString)
				}
			}},
		{"minLength with a pattern", `{"type":"object","properties":{"p":{"type":"string","pattern":"^(ab)+$","minLength":100000}},"required":["p"]}`, "minLength 100000",
			func(t *testing.T, args map[string]any) {
				if n := len(args["p"].(string)); n < MaxSynthString || n > MaxSynthString+2 {
					t.Errorf("pattern string of %d bytes, want about %d", n, MaxSynthString)
				}
			}},
		{"minItems", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"minItems":20000000}},"required":["a"]}`, "minItems 20000000",
			func(t *testing.T, args map[string]any) {
				if n := len(args["a"].([]any)); n != MaxSynthItems {
					t.Errorf("%d items, want the bound %d", n, MaxSynthItems)
				}
			}},
		{"minProperties", `{"type":"object","minProperties":20000000}`, "minProperties 20000000",
			func(t *testing.T, args map[string]any) {
				if len(args) != MaxSynthItems {
					t.Errorf("%d properties, want the bound %d", len(args), MaxSynthItems)
				}
			}},
		{"nested arrays", `{"type":"object","properties":{"a":{"type":"array","minItems":10000,"items":{"type":"array","minItems":10000,"items":{"type":"string","minLength":60000}}}},"required":["a"]}`, "synthesis budget",
			func(t *testing.T, args map[string]any) {
				if b, _ := json.Marshal(args); len(b) > 2*MaxSynthBytes {
					t.Errorf("arguments of %d bytes, budget %d", len(b), MaxSynthBytes)
				}
			}},
		{"unique pattern items", `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"minItems":10000,"items":{"type":"string","pattern":"^[a-z]+[0-9]*$"}}},"required":["a"]}`, "",
			func(t *testing.T, args map[string]any) {
				if n := len(args["a"].([]any)); n != 10000 {
					t.Errorf("%d items, want 10000", n)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			args, notes, err := SynthesizeContext(context.Background(), json.RawMessage(tc.schema))
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("synthesis took %v", took)
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, args)
			if tc.note != "" && !strings.Contains(strings.Join(notes, "\n"), tc.note) {
				t.Errorf("notes %q do not mention %q", notes, tc.note)
			}
		})
	}
}

// A nested pattern repetition cannot make generation run away either.
func TestPatternGenerationIsBounded(t *testing.T) {
	start := time.Now()
	v, _ := fromPattern(`^((a*)*)*b$`, 60000, -1)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v (%d bytes)", took, len(v))
	}
}

// Synthesis ends with the request: a cancelled context stops it.
func TestSynthesisStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	schema := `{"type":"object","properties":{"a":{"type":"array","minItems":10000,"items":{"type":"object","minProperties":500}}},"required":["a"]}`
	if _, _, err := SynthesizeContext(ctx, json.RawMessage(schema)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Not cached as a result: the same schema synthesizes in full later.
	args, _, err := SynthesizeContext(context.Background(), json.RawMessage(schema))
	if err != nil || len(args["a"].([]any)) == 0 {
		t.Fatalf("after a cancelled run: %v, %d items", err, len(args["a"].([]any)))
	}
}

// The engine passes the notes on with its reply (the journal keeps them).
func TestReplyCarriesSynthesisNotes(t *testing.T) {
	c := conversationWithTool(`{"type":"object","properties":{"p":{"type":"string","minLength":100000}},"required":["p"]}`)
	r, err := (&Engine{}).NextContext(context.Background(), c, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], `tool "big": minLength 100000`) {
		t.Fatalf("notes %q", r.Notes)
	}
}

func conversationWithTool(schema string) *conv.Conversation {
	return &conv.Conversation{Dialect: conv.Anthropic, Model: "m", ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto},
		Tools: []conv.Tool{{Name: "big", Parameters: json.RawMessage(schema)}},
		Turns: []conv.Turn{{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindText, Text: "go"}}}}}
}

// mapMemo is a Memo in a map, counting what it is asked.
type mapMemo struct {
	kept       map[string]Synthesized
	hits, puts int
}

func (m *mapMemo) Synthesized(schema json.RawMessage) (Synthesized, bool) {
	s, ok := m.kept[string(schema)]
	if ok {
		m.hits++
	}
	return s, ok
}

func (m *mapMemo) KeepSynthesized(schema json.RawMessage, s Synthesized) {
	m.puts++
	m.kept[string(schema)] = s
}

// A reply made from what a memo kept is the reply synthesis makes afresh,
// notes included, and editing one reply's arguments changes neither the
// memo nor the next reply.
func TestMemoizedReplyIsTheFreshReply(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["c","f"]}},"required":["city","units"]}`,
		`{"type":"object","properties":{"p":{"type":"string","minLength":100000}},"required":["p"]}`,
		`{"type":"object","properties":{"xs":{"type":"array","minItems":2,"items":{"type":"object","properties":{"n":{"type":"integer","minimum":3}},"required":["n"]}}},"required":["xs"]}`,
	}
	for _, schema := range schemas {
		memo := &mapMemo{kept: map[string]Synthesized{}}
		fresh, err := (&Engine{}).NextContext(context.Background(), conversationWithTool(schema), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			r, err := (&Engine{}).NextContext(context.Background(), conversationWithTool(schema), "", memo)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Turn.Parts, fresh.Turn.Parts) || !reflect.DeepEqual(r.Notes, fresh.Notes) {
				t.Fatalf("%s, reply %d: %+v, notes %q; fresh: %+v, notes %q", schema, i, r.Turn.Parts, r.Notes, fresh.Turn.Parts, fresh.Notes)
			}
			// A reply's arguments are its own to change.
			for _, p := range r.Turn.Parts {
				if p.Call != nil {
					p.Call.Arguments["edited"] = true
					clear(p.Call.Arguments)
				}
			}
		}
		if memo.puts != 1 || memo.hits != 2 {
			t.Fatalf("%s: kept %d times, reused %d times; want once and twice", schema, memo.puts, memo.hits)
		}
	}
}

// A cancelled synthesis is not kept.
func TestMemoKeepsNoCancelledSynthesis(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	memo := &mapMemo{kept: map[string]Synthesized{}}
	schema := `{"type":"object","properties":{"a":{"type":"array","minItems":10000,"items":{"type":"object","minProperties":500}}},"required":["a"]}`
	if _, err := (&Engine{}).NextContext(ctx, conversationWithTool(schema), "", memo); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if memo.puts != 0 {
		t.Fatalf("a cancelled synthesis was kept")
	}
}

package openairesp

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// TestTurnsShareOneItemsParts: a turn of one item holds that item's kept
// parts themselves (a resent conversation copies none of them), a turn
// of several items holds its own copy, and no turn's parts can be grown
// into another turn's or an item's: appending to every turn changes
// neither the items nor the conversation built again. Over the rule
// cases and a conversation with turns of several items, resumed in a
// session, the conversation equals the one made from scratch.
func TestTurnsShareOneItemsParts(t *testing.T) {
	several := `{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"role":"developer","content":"be brief"},{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]},
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call","call_id":"c2","name":"g","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":"1"},{"type":"function_call_output","call_id":"c2","output":"2"},{"role":"assistant","content":"done"},{"role":"user","content":[]},{"role":"assistant","content":"again"},{"role":"user","content":"last"}]}`
	bodies := []string{several, input.Body(input.Head, input.Elems(6), ``)}
	for _, c := range RuleCases() {
		for _, raw := range append([]json.RawMessage{c.Bad, c.Good}, c.Setup...) {
			bodies = append(bodies, string(raw))
		}
	}
	for _, body := range bodies {
		s := session.NewStore(session.DefaultLimits()).Get("k")
		var req *Request
		// Twice: the second request's items are the kept ones.
		for range 2 {
			r, err := decodeInSession(exchangeIn(s), resumetest.Padded([]byte(body)))
			if err != nil {
				break
			}
			req = r
		}
		if req == nil {
			continue
		}
		c := req.conversation()
		if now := saying(req, nil).conversation(); !reflect.DeepEqual(c, now) {
			t.Fatalf("%s: conversation from kept parts\n%+v\ndiffers from\n%+v", body, c, now)
		}
		saidBefore := make([][]conv.Part, len(req.Items))
		for i, it := range req.Items {
			saidBefore[i] = slices.Clone(it.said)
		}
		for i := range c.Turns {
			p := c.Turns[i].Parts
			if len(p) != cap(p) {
				t.Fatalf("%s: turn %d's parts can grow in place (len %d, cap %d)", body, i, len(p), cap(p))
			}
			c.Turns[i].Parts = append(p, conv.Part{Kind: conv.KindText, Text: "appended"})
		}
		for i, it := range req.Items {
			if !reflect.DeepEqual(it.said, saidBefore[i]) {
				t.Fatalf("%s: item %d's parts changed by an append to a turn", body, i)
			}
		}
		if again := req.conversation(); !reflect.DeepEqual(again, saying(req, nil).conversation()) {
			t.Fatalf("%s: a conversation built after appending to another differs", body)
		}
	}

	// In the conversation with turns of several items, the one-item turn
	// shares the item's parts and the others do not (a message saying
	// nothing joins no turn and parts none).
	s := session.NewStore(session.DefaultLimits()).Get("k")
	var req *Request
	for range 2 {
		r, err := decodeInSession(exchangeIn(s), resumetest.Padded([]byte(several)))
		if err != nil {
			t.Fatal(err)
		}
		req = r
	}
	c := req.conversation()
	wantTexts := [][]string{{"hi", "a", "b"}, {"", "", ""}, {"", ""}, {"done", "again"}, {"last"}}
	if len(c.Turns) != len(wantTexts) {
		t.Fatalf("%d turns, want %d: %+v", len(c.Turns), len(wantTexts), c.Turns)
	}
	for i, want := range wantTexts {
		var got []string
		for _, p := range c.Turns[i].Parts {
			got = append(got, p.Text)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("turn %d says %q, want %q", i, got, want)
		}
	}
	if c.System != "be brief" {
		t.Fatalf("system %q", c.System)
	}
	if got, want := &c.Turns[4].Parts[0], &req.Items[11].said[0]; got != want {
		t.Fatal("a one-item turn does not share the item's parts")
	}
	if got, notWant := &c.Turns[1].Parts[0], &req.Items[3].said[0]; got == notWant {
		t.Fatal("a turn of several items shares its first item's parts")
	}
}

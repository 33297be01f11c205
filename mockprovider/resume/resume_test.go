package resume

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// doc is a toy dialect: its elements are kept as their JSON text.
type doc struct {
	Model    string           `json:"model"`
	Messages []jsontext.Value `json:"messages"`
	Tail     int              `json:"tail"`
}

func decodeToy(plan Plan[string]) ([]string, []string, any, *wire.APIError) {
	var d doc
	if err := json.Unmarshal(plan.Doc, &d, json.RejectUnknownMembers(true)); err != nil {
		return nil, nil, nil, &wire.APIError{Status: 400, Message: err.Error()}
	}
	var all, fresh []string
	for _, r := range plan.Reused {
		all = append(all, *r)
	}
	fresh = []string{}
	for _, m := range d.Messages {
		fresh = append(fresh, string(m))
	}
	return append(all, fresh...), fresh, nil, nil
}

func newSession(l session.Limits) *session.Session { return session.NewStore(l).Get("k") }

// pad makes a body long enough to keep, with the same JSON.
func pad(body string) []byte { return []byte(body + strings.Repeat(" ", MinBody)) }

func TestPlanDocument(t *testing.T) {
	c := New[string]("messages")
	s := newSession(session.DefaultLimits())
	first := pad(`{"model":"a","messages":[1, {"x":2} ,"3"],"tail":1}`)
	if _, err := Decode(c, s, first, decodeToy); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, doc string }{
		{`{"model":"a","messages":[1, {"x":2} ,"3",4],"tail":1}`, `{"model":"a","messages":[4],"tail":1}`},
		{`{"model":"a","messages":[1, {"x":2} ,"3"],"tail":1}`, `{"model":"a","messages":[],"tail":1}`},
		{`{"model":"a","messages":[1, {"x":2} ,"3" , 5 ],"tail":1}`, `{"model":"a","messages":[ 5 ],"tail":1}`},
		{`{"model":"a","messages":[1, {"x":2}, 4],"tail":1}`, `{"model":"a","messages":[ 4],"tail":1}`},
		{`{"model":"a","messages":[1, {"x":2} ,"33"],"tail":1}`, `{"model":"a","messages":["33"],"tail":1}`},
		{`{"model":"a","messages":[1, {"x":3} ,"3"],"tail":1}`, `{"model":"a","messages":[ {"x":3} ,"3"],"tail":1}`},
		// 1 is reused only with the byte after it: 12 is another number.
		{`{"model":"a","messages":[12, {"x":2} ,"3"],"tail":1}`, `{"model":"a","messages":[12, {"x":2} ,"3"],"tail":1}`},
		// A trailing comma, or anything but a comma or the array's end
		// after the last reused element: the body is decoded whole.
		{`{"model":"a","messages":[1, {"x":2} ,"3",],"tail":1}`, `{"model":"a","messages":[1, {"x":2} ,"3",],"tail":1}`},
		{`{"model":"a","messages":[1, {"x":2} ,"3" 4],"tail":1}`, `{"model":"a","messages":[1, {"x":2} ,"3" 4],"tail":1}`},
		{`{"model":"b","messages":[1, {"x":2} ,"3"],"tail":1}`, `{"model":"b","messages":[1, {"x":2} ,"3"],"tail":1}`},
	} {
		if got := c.Begin(s, pad(tc.body)).Doc; string(got) != string(pad(tc.doc)) {
			t.Errorf("after %s\n%s is decoded as\n%s, want\n%s", first, tc.body, got, tc.doc)
		}
	}
}

// TestKeptBodyBounded: a body above MaxBody is not kept, and what is kept
// is charged to the store's byte budget, which may drop it.
func TestKeptBodyBounded(t *testing.T) {
	c := New[string]("messages")
	body := func(n int) []byte {
		return []byte(`{"model":"a","messages":["` + strings.Repeat("x", n) + `"]}`)
	}
	s := newSession(session.DefaultLimits())
	if _, err := Decode(c, s, body(10), decodeToy); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.kept.Get(s, keptID); ok {
		t.Fatal("a body below MinBody is kept")
	}
	if _, err := Decode(c, s, body(MinBody), decodeToy); err != nil {
		t.Fatal(err)
	}
	if len(c.Begin(s, body(MinBody)).Reused) != 1 {
		t.Fatal("a body above MinBody is not kept")
	}
	if _, err := Decode(c, s, body(MaxBody), decodeToy); err != nil {
		t.Fatal(err)
	}
	if p := c.Begin(s, body(MaxBody)); len(p.Reused) != 0 || !bytes.Equal(p.Doc, body(MaxBody)) {
		t.Fatal("a body above MaxBody is kept")
	}
	l := session.DefaultLimits()
	l.JournalBudget = 2 * MinBody
	small := newSession(l)
	if _, err := Decode(c, small, body(MinBody), decodeToy); err != nil {
		t.Fatal(err)
	}
	if len(c.Begin(small, body(MinBody)).Reused) != 0 {
		t.Fatal("a body costing more than the budget is kept")
	}
}

// TestDecodeFallsBack: an error in the document of a resumed plan is
// answered as the whole body's decoding answers it.
func TestDecodeFallsBack(t *testing.T) {
	c := New[string]("messages")
	s := newSession(session.DefaultLimits())
	if _, err := Decode(c, s, pad(`{"model":"a","messages":[{},{}]}`), decodeToy); err != nil {
		t.Fatal(err)
	}
	calls := 0
	_, err := Decode(c, s, pad(`{"model":"a","messages":[{},{},{}],"nope":1}`), func(p Plan[string]) ([]string, []string, any, *wire.APIError) {
		calls++
		if calls == 1 && len(p.Reused) != 2 {
			t.Fatalf("first attempt reuses %d elements, want 2", len(p.Reused))
		}
		if calls == 2 && (len(p.Reused) != 0 || !bytes.Equal(p.Doc, p.Body())) {
			t.Fatal("second attempt is not the whole body")
		}
		return decodeToy(p)
	})
	if calls != 2 || err == nil || !strings.Contains(err.Message, "nope") {
		t.Fatalf("calls %d, err %v", calls, err)
	}
	if len(c.Begin(s, pad(`{"model":"a","messages":[{},{}]}`)).Reused) != 0 {
		t.Fatal("a refused body leaves the earlier one kept")
	}
}

func TestSameLoosely(t *testing.T) {
	for name, want := range map[string]bool{
		"contents": true, "Contents": true, "con_tents": true, "CON-TENTS": true,
		"content": false, "contentss": false, "": false, "cöntents": false,
	} {
		if got := sameLoosely(name, "contents"); got != want {
			t.Errorf("sameLoosely(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPlanKeeps: a plan says whether what the dialect makes of its
// elements is kept, exactly when Decode then keeps it, so a dialect can
// leave out what only sharing needs.
func TestPlanKeeps(t *testing.T) {
	c := New[string]("messages")
	s := newSession(session.DefaultLimits())
	short := []byte(`{"model":"a","messages":[1,2],"tail":1}`)
	long := pad(`{"model":"a","messages":[1,2],"tail":1}`)
	longer := pad(`{"model":"a","messages":[1,2,3],"tail":1}`)
	for _, tc := range []struct {
		name string
		s    *session.Session
		body []byte
		want bool
	}{
		{"no session", nil, long, false},
		{"shorter than MinBody", s, short, false},
		{"first long body", s, long, true},
		{"next long body, elements reused", s, longer, true},
		{"above MaxBody", s, pad(`{"model":"a","messages":["` + strings.Repeat("x", MaxBody) + `"],"tail":1}`), false},
	} {
		var saw bool
		if _, err := Decode(c, tc.s, tc.body, func(p Plan[string]) ([]string, []string, any, *wire.APIError) {
			saw = p.Keeps()
			return decodeToy(p)
		}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if saw != tc.want {
			t.Errorf("%s: Keeps() = %v, want %v", tc.name, saw, tc.want)
		}
	}
}

// TestPlanWhole: a dialect that keeps what it made outside the array
// (Decode's whole) gets a Whole plan, whose Doc holds only the new elements,
// when everything after them is the same bytes as the last body; any
// other body is planned as without it.
func TestPlanWhole(t *testing.T) {
	c := New[string]("messages")
	s := newSession(session.DefaultLimits())
	decode := func(plan Plan[string]) ([]string, []string, any, *wire.APIError) {
		all, fresh, _, err := decodeToy(plan)
		return all, fresh, "outside", err
	}
	first := pad(`{"model":"a","messages":[1, {"x":2} ,"3"], "tail":1}`)
	if _, err := Decode(c, s, first, decode); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body, doc string
		whole     bool
	}{
		{`{"model":"a","messages":[1, {"x":2} ,"3",4], "tail":1}`, `[4]`, true},
		{`{"model":"a","messages":[1, {"x":2} ,"3" , 5 , [6] ], "tail":1}`, `[ 5 , [6] ]`, true},
		{`{"model":"a","messages":[1, {"x":2} ,"3"], "tail":1}`, `[]`, true},
		{`{"model":"a","messages":[1, {"x":2} ,"3",4], "tail":2}`, `{"model":"a","messages":[4], "tail":2}`, false},
		{`{"model":"a","messages":[1, {"x":2} ,"3",4],"tail":1}`, `{"model":"a","messages":[4],"tail":1}`, false},
		{`{"model":"a","messages":[1, {"x":2} ,"3",{"y":]], "tail":1}`, `{"model":"a","messages":[{"y":]], "tail":1}`, false},
	} {
		p := c.Begin(s, pad(tc.body))
		want := tc.doc
		if !tc.whole {
			want = string(pad(tc.doc))
		}
		if string(p.Doc) != want || (p.Whole != nil) != tc.whole {
			t.Errorf("%s is planned as %s (whole %v), want %s (whole %v)", tc.body, p.Doc, p.Whole != nil, want, tc.whole)
		}
	}
	// A Whole plan is kept like any other: the next request reuses its
	// elements, and is a Whole plan again.
	next := pad(`{"model":"a","messages":[1, {"x":2} ,"3" , 5 , [6] ], "tail":1}`)
	got, err := Decode(c, s, next, func(plan Plan[string]) ([]string, []string, any, *wire.APIError) {
		if plan.Whole != "outside" || string(plan.Doc) != `[ 5 , [6] ]` {
			t.Fatalf("planned %s, whole %v", plan.Doc, plan.Whole)
		}
		var fresh []string
		var elems []jsontext.Value
		if err := json.Unmarshal(plan.Doc, &elems); err != nil {
			t.Fatal(err)
		}
		for _, e := range elems {
			fresh = append(fresh, string(e))
		}
		var all []string
		for _, r := range plan.Reused {
			all = append(all, *r)
		}
		return append(all, fresh...), fresh, "outside", nil
	})
	if err != nil || strings.Join(got, "|") != `1|{"x":2}|"3"|5|[6]` {
		t.Fatalf("decoded %q, %v", got, err)
	}
	p := c.Begin(s, pad(`{"model":"a","messages":[1, {"x":2} ,"3" , 5 , [6] ,7], "tail":1}`))
	if len(p.Reused) != 5 || p.Whole == nil || string(p.Doc) != `[7]` {
		t.Fatalf("after the Whole plan: %d reused, whole %v, %s", len(p.Reused), p.Whole, p.Doc)
	}
}

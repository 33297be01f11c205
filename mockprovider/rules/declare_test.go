package rules

import (
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

func TestParseSourceReadsEachPart(t *testing.T) {
	got := ParseSource(`https://example.com/a ("Tool names must be unique.") [V]; testdata/corpus/x.jsonl (a#1: accepted); texts [I]: pydantic wording; https://example.com/b (one) and (two)`)
	want := []Ref{
		{URL: "https://example.com/a", Quote: `"Tool names must be unique."`},
		{URL: "testdata/corpus/x.jsonl", Quote: "a#1: accepted"},
		{Quote: "texts: pydantic wording", Inferred: true},
		{URL: "https://example.com/b", Quote: "(one) and (two)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func TestCatalogFillsSourceAndRefs(t *testing.T) {
	c := NewCatalog([]Rule{
		{ID: "gemini.a", Dialect: conv.Gemini, Level: MUST, Summary: "s", Refs: []Ref{{URL: "https://example.com", Quote: "q"}, {Quote: "the message", Inferred: true}}},
		{ID: "gemini.b", Dialect: conv.Gemini, Level: MUST, Summary: "s", Source: "https://example.com/b (q)"},
	})
	a, _ := c.Get("gemini.a")
	if a.Source != "https://example.com (q); the message [I]" {
		t.Errorf("source rendered as %q", a.Source)
	}
	b, _ := c.Get("gemini.b")
	if len(b.Refs) != 1 || b.Refs[0].URL != "https://example.com/b" || b.Refs[0].Quote != "q" {
		t.Errorf("refs parsed as %+v", b.Refs)
	}
}

func TestCatalogRefusesAReferenceWithoutURL(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a reference with neither URL nor inference mark was accepted")
		}
	}()
	NewCatalog([]Rule{{ID: "gemini.a", Dialect: conv.Gemini, Level: MUST, Summary: "s", Refs: []Ref{{Quote: "believed"}}}})
}

type fakeRequest struct{ N int }

func TestSetWrapsTypedChecksAndStampsCases(t *testing.T) {
	s := NewSet[fakeRequest](conv.Gemini)
	id := s.Add(Rule{ID: "gemini.n-small", Level: MUST, Summary: "s", Source: "https://example.com",
		Cases: []Case{{Name: "big"}}},
		func(r *fakeRequest, _ *Env) []Violation {
			if r.N > 1 {
				return []Violation{{Message: "too big", Order: At(PhaseShape, 0)}}
			}
			return nil
		})
	if id != "gemini.n-small" || s.Rules()[0].Dialect != conv.Gemini || s.Cases()[0].Rule != id {
		t.Fatalf("declaration not completed: %+v", s.Rules()[0])
	}
	if vs := Run(s.Rules(), &fakeRequest{N: 2}, &Env{}); len(vs) != 1 || vs[0].Rule != id {
		t.Fatalf("check not run: %+v", vs)
	}
	if vs := Run(s.Rules(), &fakeRequest{N: 1}, &Env{}); len(vs) != 0 {
		t.Fatalf("check fired on a good request: %+v", vs)
	}
}

func TestPhasesOrderBeforePositions(t *testing.T) {
	if !(At(PhaseRequest, 0) < At(PhaseShape, 0) && At(PhaseShape, 9999) < At(PhaseMeaning, 0)) {
		t.Fatal("a later phase sorts before an earlier one")
	}
}

// TestSetOrdersByPlaceOfDeclaration: Go may initialize a later
// declaration first (a variable waits for those its initializer refers
// to), so the catalog's order comes from where each Add is written.
func TestSetOrdersByPlaceOfDeclaration(t *testing.T) {
	s := NewSet[fakeRequest](conv.Gemini)
	declareFirst := func() { s.Add(Rule{ID: "gemini.first", Level: MUST, Summary: "s", Cases: []Case{{Name: "a"}}}, nil) }
	s.Add(Rule{ID: "gemini.second", Level: MUST, Summary: "s", Cases: []Case{{Name: "b"}}}, nil)
	declareFirst()
	if got := s.Rules(); got[0].ID != "gemini.first" || got[1].ID != "gemini.second" {
		t.Fatalf("order %s, %s: want the rule written first", got[0].ID, got[1].ID)
	}
	if got := s.Cases(); got[0].Rule != "gemini.first" {
		t.Fatalf("cases start with %s", got[0].Rule)
	}
}

func TestSetOrdersTopicsBeforeFileNames(t *testing.T) {
	ids := func(s *Set[fakeRequest]) []string {
		var out []string
		for _, r := range s.Rules() {
			out = append(out, r.ID)
		}
		return out
	}
	build := func(topics ...string) *Set[fakeRequest] {
		s := NewSet[fakeRequest](conv.Gemini, topics...)
		s.Add(Rule{ID: "gemini.here", Level: MUST, Summary: "s", Source: "https://example.com"}, nil)
		addInTopicFile(s, "gemini.there")
		return s
	}
	if got := ids(build()); !reflect.DeepEqual(got, []string{"gemini.here", "gemini.there"}) {
		t.Errorf("by file name: %v", got)
	}
	if got := ids(build("declare_topic_test.go")); !reflect.DeepEqual(got, []string{"gemini.there", "gemini.here"}) {
		t.Errorf("a listed topic file must come first: %v", got)
	}
}

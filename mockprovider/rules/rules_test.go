package rules

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

func TestCatalogRejectsBadEntries(t *testing.T) {
	ok := Rule{ID: "anthropic.a", Dialect: conv.Anthropic, Level: MUST, Summary: "s", Source: "src"}
	for name, sets := range map[string][][]Rule{
		"duplicate id":  {{ok}, {ok}},
		"wrong dialect": {{{ID: "gemini.a", Dialect: conv.Anthropic, Level: MUST, Summary: "s", Source: "x"}}},
		"no source":     {{{ID: "anthropic.b", Dialect: conv.Anthropic, Level: MUST, Summary: "s"}}},
		"unknown level": {{{ID: "anthropic.c", Dialect: conv.Anthropic, Level: "MAY", Summary: "s", Source: "x"}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: catalog accepted it", name)
				}
			}()
			NewCatalog(sets...)
		}()
	}
}

func TestRunOrdersByPositionAndStamps(t *testing.T) {
	late := Rule{ID: "gemini.late", Dialect: conv.Gemini, Level: SHOULD, Summary: "s", Source: "x",
		Check: func(any, *Env) []Violation { return []Violation{{Message: "late", Order: 5}} }}
	early := Rule{ID: "gemini.early", Dialect: conv.Gemini, Level: MUST, Summary: "s", Source: "x",
		Check: func(any, *Env) []Violation { return []Violation{{Message: "early", Order: 1}} }}
	none := Rule{ID: "gemini.none", Dialect: conv.Gemini, Level: MUST, Summary: "s", Source: "x"}
	vs := Run([]Rule{late, none, early}, nil, &Env{})
	if len(vs) != 2 || vs[0].Rule != "gemini.early" || vs[1].Rule != "gemini.late" {
		t.Fatalf("got %+v", vs)
	}
	if vs[0].Level != MUST || vs[1].Level != SHOULD {
		t.Fatalf("levels not stamped: %+v", vs)
	}
	if f := FirstMust(vs); f == nil || f.Rule != "gemini.early" {
		t.Fatalf("FirstMust = %+v", f)
	}
	if FirstMust(vs[1:]) != nil {
		t.Fatal("a SHOULD is not a MUST")
	}
}

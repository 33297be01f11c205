package mockprovider_test

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
)

var allCases = map[conv.Dialect][]dialect.RuleCase{
	conv.OpenAIChat:      openaichat.RuleCases(),
	conv.OpenAIResponses: openairesp.RuleCases(),
	conv.Anthropic:       anthropic.RuleCases(),
	conv.Gemini:          gemini.RuleCases(),
}

// TestEveryCheckedRuleHasABreakingCase: a rule nobody can fail is a defect.
// Each dialect's own tests run its cases against a live server; this test
// holds the whole catalog to having them.
func TestEveryCheckedRuleHasABreakingCase(t *testing.T) {
	cat := mockprovider.New(mockprovider.Options{}).Catalog()
	for _, r := range cat.All() {
		if r.Check == nil && r.Dialect == conv.RAP {
			continue
		}
		// A dialect rule without a check is enforced while decoding
		// (valid JSON, member types): its case proves it all the same.
		found := false
		for _, c := range allCases[r.Dialect] {
			if c.Rule == r.ID && len(c.Bad) > 0 && len(c.Good) > 0 {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s has no RuleCase with a bad and a good request", r.ID)
		}
	}
	for d, cases := range allCases {
		for _, c := range cases {
			if r, ok := cat.Get(c.Rule); !ok || r.Dialect != d {
				t.Errorf("%s case %q names %q, not a %s rule in the catalog", d, c.Name, c.Rule, d)
			}
		}
	}
}

func TestCatalogSpansEveryDialect(t *testing.T) {
	cat := mockprovider.New(mockprovider.Options{}).Catalog()
	for _, d := range append(append([]conv.Dialect(nil), conv.Dialects...), conv.RAP) {
		n := len(cat.ForDialect(d))
		if n == 0 {
			t.Errorf("no rules for %s", d)
		}
	}
}

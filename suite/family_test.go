package suite

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Every provider-dialect rule belongs to a rule family, so its specs sit
// in that family's Describe.
func TestEveryRuleHasAFamily(t *testing.T) {
	m := mockprovider.New(mockprovider.Options{})
	defer m.Close()
	all := append(append(m.Catalog().All(), Rules()...), FormatRules()...)
	for _, r := range all {
		if r.Dialect == conv.RAP {
			continue
		}
		if familyOf(r) == "other" {
			t.Errorf("%s belongs to no rule family (add it to a spec_<family>.go)", r.ID)
		}
	}
}

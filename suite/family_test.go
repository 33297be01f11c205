package suite

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

// The spec files' rule lists only name the families of rules whose
// declarations do not: where a declaration names its family, no list may
// claim the same rule name for another one (a sibling dialect's rule of
// that name would land elsewhere than the declared one). The catalog test
// (cmd/toolwire) holds every rule to having a family.
func TestFamilyListsAgreeWithDeclarations(t *testing.T) {
	m := mockprovider.New(mockprovider.Options{})
	defer m.Close()
	for _, r := range append(m.Catalog().All(), Rules()...) {
		if r.Family == "" {
			continue
		}
		_, name, _ := strings.Cut(r.ID, ".")
		for _, f := range families {
			if slices.Contains(f.Rules, name) && f.Name != r.Family {
				t.Errorf("%s declares family %q, but spec_%s.go lists %q", r.ID, r.Family, f.Name, name)
			}
		}
	}
}

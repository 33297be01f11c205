package suite

import (
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// A family groups rules that protect one part of the protocol; each
// family is declared in its own spec_<family>.go file, and its specs are
// labelled "family:<name>". A rule names its family in its declaration
// (rules.Rule.Family).
type family struct {
	Name  string // label value, e.g. "pairing"
	Title string // the Describe text
}

var families []family

func registerFamily(f family) bool {
	families = append(families, f)
	return true
}

// FamilyOf names the family of a rule: the one its declaration names, else
// its scenario check's ("other" when neither does; the catalog test keeps
// that set empty).
func FamilyOf(r rules.Rule) string { return familyOf(r) }

func familyOf(r rules.Rule) string {
	if r.Family != "" {
		return r.Family
	}
	_, name, _ := strings.Cut(r.ID, ".")
	if f, ok := checks.Family[name]; ok {
		return f
	}
	return "other"
}

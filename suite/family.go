package suite

import (
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// A family groups rules that protect one part of the protocol; each
// family is declared in its own spec_<family>.go file, and its specs are
// labelled "family:<name>".
type family struct {
	Name  string // label value, e.g. "pairing"
	Title string // the Describe text
	// Rules are the names of the mock's request rules in the family,
	// without their dialect prefix
	// ("tool-result-first" covers anthropic.tool-result-first).
	Rules []string
}

var families []family

func registerFamily(f family) bool {
	families = append(families, f)
	return true
}

// familyOf names the family of a rule ("other" when none claims it; a test
// keeps that set empty).
func familyOf(r rules.Rule) string {
	_, name, _ := strings.Cut(r.ID, ".")
	if f, ok := checks.Family[name]; ok {
		return f
	}
	for _, f := range families {
		if slices.Contains(f.Rules, name) {
			return f.Name
		}
	}
	return "other"
}

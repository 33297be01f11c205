package suite

import (
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// A family groups rules that protect one part of the protocol; each
// family is declared in its own spec_<family>.go file, and its specs run
// under one Describe, labelled "family:<name>".
type family struct {
	Name  string // label value, e.g. "pairing"
	Title string // the Describe text
	// Rules are rule names without their dialect prefix
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
	for _, f := range families {
		if slices.Contains(f.Rules, name) {
			return f.Name
		}
	}
	return "other"
}

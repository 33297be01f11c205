package suite

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// A misspelt name would otherwise select nothing and pass silently
// (--features streming skipped every streamed run), so every name the
// user gives is checked against the names that exist.

// unknownNameError says which name is unknown and lists the valid ones.
func unknownNameError(kind, name string, valid []string) error {
	return fmt.Errorf("unknown %s %q (valid: %s)", kind, name, strings.Join(valid, ", "))
}

// checkNames returns an error for the first name not in valid.
func checkNames(kind string, names, valid []string) error {
	for _, n := range names {
		if !slices.Contains(valid, n) {
			return unknownNameError(kind, n, valid)
		}
	}
	return nil
}

// DialectNames are the provider dialects --dialects accepts.
func DialectNames() []string {
	out := make([]string, 0, len(conv.Dialects))
	for _, d := range conv.Dialects {
		out = append(out, string(d))
	}
	return out
}

// featureNames lists every feature a scenario or rule of m and the suite
// uses, plus "streaming" and "core".
func featureNames(m *mockprovider.Server) []string {
	set := map[string]bool{"streaming": true, "core": true}
	for _, sc := range m.Scenarios().All() {
		for _, f := range sc.Features {
			set[f] = true
		}
	}
	all := append(append(append(m.Catalog().All(), Rules()...), RAPRules()...), FormatRules()...)
	for _, d := range conv.Dialects {
		all = append(all, dialectRules(d)...)
	}
	for _, r := range all {
		if r.Feature != "" {
			set[r.Feature] = true
		}
	}
	// Markers that say how a scenario runs, not what a driver supports.
	delete(set, "no-stream")
	delete(set, "stream-only")
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// FamilyNames are the values of the family: label.
func FamilyNames() []string {
	set := map[string]bool{"other": true}
	for _, f := range families {
		set[f.Name] = true
	}
	for _, f := range checks.Family {
		set[f] = true
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// labelTerm is one key:value term of a Ginkgo label filter; values inside
// /regexp/ or {set} syntax are not matched here.
var labelTerm = regexp.MustCompile(`\b(family|dialect|level|feature|stream):\s*([A-Za-z0-9_.-]+)`)

// checkLabelFilter rejects a filter naming a family, dialect, level,
// feature or stream mode that no spec carries.
func checkLabelFilter(filter string, features []string) error {
	valid := map[string][]string{
		"family":  FamilyNames(),
		"dialect": DialectNames(),
		"level":   {string(rules.MUST), string(rules.SHOULD)},
		"feature": features,
		"stream":  {"stream", "nonstream"},
	}
	for _, m := range labelTerm.FindAllStringSubmatch(filter, -1) {
		if !slices.Contains(valid[m[1]], m[2]) {
			return fmt.Errorf("label filter: %w", unknownNameError(m[1], m[2], valid[m[1]]))
		}
	}
	return nil
}

// checkConformNames checks the dialects, features and label filter of o
// against what exists (scenarios from o.ScenarioDirs included).
func checkConformNames(o ConformOptions) error {
	if err := checkNames("dialect", o.Dialects, DialectNames()); err != nil {
		return err
	}
	var opts mockprovider.Options
	if len(o.ScenarioDirs) > 0 {
		set, err := mockprovider.LoadScenarios(o.ScenarioDirs...)
		if err != nil {
			return err
		}
		opts.Scenarios = set
	}
	m := mockprovider.New(opts)
	defer m.Close()
	features := featureNames(m)
	if err := checkNames("feature", o.Features, features); err != nil {
		return err
	}
	return checkLabelFilter(o.LabelFilter, features)
}

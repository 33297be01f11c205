package agree

import (
	"fmt"
	"os"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Listed is a disagreement written down: known and to be fixed, or excused
// because the mock cannot model what the real API did.
type Listed struct {
	ID   string `yaml:"id"`
	Kind Kind   `yaml:"kind"`
	// Mock is what the mock answered when the entry was written.
	Mock string `yaml:"mock"`
	// Category is "false refusal — to fix", "missed refusal — to fix",
	// "wrong error — to fix", "state toolwire cannot model: <reason>" or
	// "not evidence: <reason>".
	Category string `yaml:"category"`
}

// Excused reports whether the entry is a disagreement the mock cannot
// remove (state it never issued, such as a stored response id) or one the
// recording does not prove (an edited cassette).
func (l Listed) Excused() bool {
	return strings.HasPrefix(l.Category, CannotModel) || strings.HasPrefix(l.Category, NotEvidence)
}

// The categories of an excused disagreement start with one of these,
// followed by the reason.
const (
	CannotModel = "state toolwire cannot model:"
	NotEvidence = "not evidence:"
)

// LoadListed reads a list of disagreements (YAML); a missing file is an
// empty list. An ID listed twice is an error: the lists are edited by hand.
func LoadListed(path string) ([]Listed, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Listed
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&out); err != nil && err.Error() != "EOF" {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for _, l := range out {
		if l.ID == "" || l.Category == "" {
			return nil, fmt.Errorf("%s: every entry needs an id and a category (%+v)", path, l)
		}
		if seen[l.ID] {
			return nil, fmt.Errorf("%s: %s listed twice", path, l.ID)
		}
		seen[l.ID] = true
	}
	return out, nil
}

// ToFix is the category a new disagreement of kind k is listed under.
func ToFix(k Kind) string {
	return strings.ReplaceAll(string(k), "-", " ") + " — to fix"
}

// WriteListed writes a list sorted by ID under a header comment.
func WriteListed(path, header string, list []Listed) error {
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + line + "\n")
	}
	if len(list) == 0 {
		b.WriteString("[]\n")
	} else {
		out, err := yaml.Marshal(list)
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

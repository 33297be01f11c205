package scenario

import (
	"encoding/json"
	"reflect"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Tool finds a declared tool by name, or nil.
func (s *Scenario) Tool(name string) *Tool {
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i]
		}
	}
	return nil
}

// Model is the model the scenario names for a dialect, or def.
func (s *Scenario) Model(d conv.Dialect, def string) string {
	if m := s.Models[d]; m != "" {
		return m
	}
	return def
}

// ResultFor picks the canned MCP CallToolResult for a call's arguments: the
// first result whose When is a subset of args (values compared as JSON, so
// a YAML 3 matches a decoded 3.0). It returns nil when none matches; a
// driver then answers with an error result, as a tool runtime would.
func (t *Tool) ResultFor(args map[string]any) map[string]any {
	norm := normalize(args)
	for _, r := range t.Results {
		if subset(normalize(r.When), norm) {
			return r.Result
		}
	}
	return nil
}

func subset(when, args map[string]any) bool {
	for k, v := range when {
		if got, ok := args[k]; !ok || !reflect.DeepEqual(got, v) {
			return false
		}
	}
	return true
}

// normalize round-trips a map through JSON so numbers are float64 and
// nested YAML maps are map[string]any on both sides of a comparison.
func normalize(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return m
	}
	return out
}

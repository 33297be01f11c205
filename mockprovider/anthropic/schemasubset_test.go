package anthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSchemaSubset: the one description of the structured-output subset
// finds each kind of problem wherever it sits (nested properties, items,
// anyOf, $defs, a type list), and nothing in a schema inside the subset.
func TestSchemaSubset(t *testing.T) {
	closed := func(props string) string {
		return `{"type":"object","properties":{` + props + `},"additionalProperties":false}`
	}
	cases := []struct {
		name, schema, open, keyword string
		recursive                   bool
	}{
		{name: "inside the subset", schema: closed(`"a":{"type":"string","enum":["x","y"]},"b":{"type":"array","items":{"type":"integer"},"minItems":1},"c":{"anyOf":[{"type":"string"},{"type":"null"}]}`)},
		{name: "an object without additionalProperties", schema: `{"type":"object","properties":{}}`,
			open: "For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{name: "an open object in anyOf", schema: closed(`"a":{"anyOf":[{"type":"object","properties":{}},{"type":"null"}]}`),
			open: "For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{name: "an open object as a type list", schema: closed(`"a":{"type":["object","null"],"properties":{},"additionalProperties":{}}`),
			open: "For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{name: "an open object in $defs", schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"additionalProperties":false,"$defs":{"x":{"type":"object"}}}`,
			open: "For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{name: "bounds on a nested integer, sorted", schema: closed(`"a":{"type":"array","items":{"type":"integer","multipleOf":2,"exclusiveMinimum":0}}`),
			keyword: "For 'integer' type, properties exclusiveMinimum, multipleOf are not supported"},
		{name: "a string length in $defs", schema: `{"type":"object","properties":{},"additionalProperties":false,"$defs":{"s":{"type":"string","minLength":2}}}`,
			keyword: "For 'string' type, property 'minLength' is not supported"},
		{name: "minItems 2", schema: closed(`"a":{"type":"array","items":{"type":"string"},"minItems":2}`),
			keyword: "For 'array' type, 'minItems' values other than 0 or 1 are not supported"},
		{name: "a property named minimum is no keyword", schema: closed(`"minimum":{"type":"number"}`)},
		{name: "a definition reaching itself through another", recursive: true,
			schema: `{"$ref":"#/$defs/a","$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}},"additionalProperties":false},"b":{"type":"array","items":{"$ref":"#/$defs/a/properties/b"}}}}`},
		{name: "a reference to the root", recursive: true, schema: closed(`"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}`)},
	}
	for _, c := range cases {
		s := parseSchema(json.RawMessage(c.schema))
		if got := openObjectProblem(s); got != c.open {
			t.Errorf("%s: open object %q, want %q", c.name, got, c.open)
		}
		if got := keywordProblem(s); got != c.keyword {
			t.Errorf("%s: keyword %q, want %q", c.name, got, c.keyword)
		}
		if got := recursiveRef(s); got != c.recursive {
			t.Errorf("%s: recursive %v, want %v", c.name, got, c.recursive)
		}
	}
}

// TestSchemaSubsetDeepBounded: a schema nested far past the walk's depth
// is judged down to the bound only, and quickly: no stack growth or work
// beyond the schema's size.
func TestSchemaSubsetDeepBounded(t *testing.T) {
	const depth = 5000
	schema := strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string","minLength":1}` + strings.Repeat(`}`, depth)
	parsed := parseSchema(json.RawMessage(schema))
	if parsed == nil {
		t.Fatal("the schema did not decode")
	}
	if got := keywordProblem(parsed); got != "" {
		t.Fatalf("the string below the depth bound was judged: %q", got)
	}
	if recursiveRef(parsed) {
		t.Fatal("no reference, yet recursive")
	}
	o, u := paramCounts(parsed)
	if o != 0 || u != 0 {
		t.Fatalf("counts %d %d", o, u)
	}
}

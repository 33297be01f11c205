package openaiwire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// strictObject is a strict object schema of props.
func strictObject(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSubsetProblem: a keyword strict mode does not permit is found where
// a schema stands (properties, items, anyOf, $defs) with the API's
// context; the same word as a property or definition name, or a keyword
// the subset supports, is no problem.
func TestSubsetProblem(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		// default is taken: real exchanges (testdata/corpus) declare
		// strict functions with defaults and were answered.
		{`{"type":"object","properties":{"city":{"type":"string","default":"Paris"}}}`, ""},
		{`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`, "In context=('properties', 'tags'), 'uniqueItems' is not permitted."},
		{`{"type":"object","allOf":[{"type":"object"}]}`, "In context=(), 'allOf' is not permitted."},
		{`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","not":{}}]}}}`, "In context=('properties', 'v', 'anyOf', '1'), 'not' is not permitted."},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"if":{}}}}}`, "In context=('properties', 'l', 'items'), 'if' is not permitted."},
		{`{"type":"object","$defs":{"d":{"type":"object","dependentRequired":{}}}}`, "In context=('$defs', 'd'), 'dependentRequired' is not permitted."},
		// Names, not keywords.
		{`{"type":"object","properties":{"default":{"type":"string"},"not":{"type":"string"}},"$defs":{"allOf":{"type":"string"}}}`, ""},
		// The subset's own keywords.
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9,"multipleOf":1},"s":{"type":"string","pattern":"^a","format":"email"},"l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}}}`, ""},
		{`[1]`, ""},
		{`not json`, ""},
	} {
		if got := SubsetProblem(json.RawMessage(c.schema)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.schema, got, c.want)
		}
	}
}

// nestedObject is an object schema levels objects deep.
func nestedObject(levels int) map[string]any {
	s := strictObject(map[string]any{"v": map[string]any{"type": "string"}})
	for range levels - 1 {
		s = strictObject(map[string]any{"in": s})
	}
	return s
}

// TestSubsetLimit: each of the guide's limits is flagged just past it and
// not at it.
func TestSubsetLimit(t *testing.T) {
	props := func(n int) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("p%d", i)] = map[string]any{"type": "string"}
		}
		return strictObject(m)
	}
	enum := func(n, size int) map[string]any {
		values := make([]string, n)
		for i := range values {
			values[i] = fmt.Sprintf("%0*d", size, i)
		}
		return strictObject(map[string]any{"e": map[string]any{"type": "string", "enum": values}})
	}
	longNames := func(total int) map[string]any {
		m := map[string]any{}
		for i := 0; total > 0; i++ {
			n := min(total, 1000)
			m[fmt.Sprintf("%0*d", n, i)] = map[string]any{"type": "string"}
			total -= n
		}
		return strictObject(m)
	}
	for _, c := range []struct {
		name      string
		ok, wrong map[string]any
		want      string
	}{
		{"nesting", nestedObject(10), nestedObject(11), "11 levels of nesting exceeds limit of 10."},
		{"properties", props(5000), props(5001), "Expected at most 5000 properties in total"},
		{"enum values", enum(1000, 1), enum(1001, 1), "Expected at most 1000 enum values in total within a single schema when using structured outputs, but received 1001."},
		{"large enum", enum(251, 59), enum(251, 60), "Expected at most 15000 characters in total across the values of an enum with more than 250 values"},
		{"string length", longNames(120_000), longNames(120_001), "Expected the total string length of property names"},
	} {
		if got := SubsetLimit(mustJSON(t, c.ok)); got != "" {
			t.Errorf("%s: at the limit: %q", c.name, got)
		}
		if got := SubsetLimit(mustJSON(t, c.wrong)); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: past the limit: %q, want %q…", c.name, got, c.want)
		}
	}
}

// TestMentionsJSON: the word in any case, anywhere.
func TestMentionsJSON(t *testing.T) {
	for s, want := range map[string]bool{"Answer as JSON.": true, "a json object": true, "JsOn": true, "jso n": false, "": false, "Describe Paris.": false} {
		if MentionsJSON(s) != want {
			t.Errorf("MentionsJSON(%q) = %v", s, !want)
		}
	}
}

// BenchmarkSubset: the subset checks of one schema, as every request
// with a strict tool pays them.
func BenchmarkSubset(b *testing.B) {
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string","description":"City name"},"units":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","units"],"additionalProperties":false}`)
	b.ReportAllocs()
	for b.Loop() {
		SubsetProblem(schema)
		SubsetLimit(schema)
	}
}

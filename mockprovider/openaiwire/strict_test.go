package openaiwire

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
)

// TestStrictVerdictMatchesGenericDecode holds the strict-mode check, which
// reads only the members it needs, to what it answered when it decoded the
// whole schema into maps: same message (or none) for every schema here,
// including the odd ones (members of the wrong type, names differing in
// case only, escaped strings, items hiding $defs).
func TestStrictVerdictMatchesGenericDecode(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"city":{"type":"string","description":"City name"},"units":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","units"],"additionalProperties":false}`,
		`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		`{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"b":{},"a":{}},"required":["b"],"additionalProperties":false}`,
		`{"type":"object","additionalProperties":null}`,
		`{"type":"object","additionalProperties":true}`,
		`{"type":"object","additionalProperties":{}}`,
		`{"type":"object","additionalProperties":0}`,
		`{"type":"\u006fbject"}`,
		`{"type":"Object"}`,
		`{"Type":"object"}`,
		`{"type":["object","null"]}`,
		`{"properties":{}}`,
		`{"properties":[]}`,
		`{"properties":null,"type":"string"}`,
		`{"type":"object","properties":{"x":true,"y":1},"required":["x"],"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"object","properties":{"z":{"type":"string"}}}},"required":["x"],"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"object","properties":{"z":{"type":"string"}},"additionalProperties":false}},"required":["x"],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{}},"required":["a",1,null,{"a":1}],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{}},"required":"a","additionalProperties":false}`,
		`{"type":"array","items":{"type":"object"}}`,
		`{"type":"array","items":{"type":"object","properties":{},"additionalProperties":false},"$defs":{"d":{"type":"object"}}}`,
		`{"type":"array","items":[{"type":"object"}],"$defs":{"d":{"type":"object"}}}`,
		`{"$defs":{"b":{"type":"object"},"a":{"properties":{"q":{}},"additionalProperties":false}}}`,
		`{"definitions":{"a":{"type":"object","additionalProperties":false,"properties":{"p":{"items":{"type":"object"}}},"required":["p"]}}}`,
		`{"$defs":{"ok":{"type":"object","additionalProperties":false}},"definitions":{"bad":{"type":"object"}}}`,
		`{"$defs":[{"type":"object"}],"definitions":"x"}`,
		`{"type":"object","additionalProperties":true,"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{},"a":{"type":"object"}},"required":["a"],"additionalProperties":false}`,
		` {"type" : "object" , "additionalProperties" : false } `,
		`{}`,
		`null`,
		`[]`,
		`"object"`,
		`12`,
		`{"type":"object","properties":{"k\"ey":{},"k\u00e9y":{}},"additionalProperties":false}`,
	}
	for _, s := range schemas {
		want := genericStrictVerdict(json.RawMessage(s))
		if got := strictVerdict([]byte(s)); got != want {
			t.Errorf("schema %s:\n got %q\nwant %q", s, got, want)
		}
	}
}

// genericStrictVerdict is the check as it was written on a generic decode.
func genericStrictVerdict(raw json.RawMessage) string {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return genericStrictProblem(s, nil)
}

func genericStrictProblem(s map[string]any, ctx []string) string {
	props, hasProps := s["properties"].(map[string]any)
	if s["type"] == "object" || hasProps {
		if ap, ok := s["additionalProperties"]; !ok || ap != false {
			return fmt.Sprintf("In context=%s, 'additionalProperties' is required to be supplied and to be false.", pyTuple(ctx))
		}
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		for _, k := range genericSortedKeys(props) {
			if !required[k] {
				return fmt.Sprintf("In context=%s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", pyTuple(ctx), k)
			}
		}
		for _, k := range genericSortedKeys(props) {
			if sub, ok := props[k].(map[string]any); ok {
				if msg := genericStrictProblem(sub, append(ctx, "properties", k)); msg != "" {
					return msg
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return genericStrictProblem(items, append(ctx, "items"))
	}
	for _, defsKey := range []string{"$defs", "definitions"} {
		if defs, ok := s[defsKey].(map[string]any); ok {
			for _, k := range genericSortedKeys(defs) {
				if sub, ok := defs[k].(map[string]any); ok {
					if msg := genericStrictProblem(sub, append(ctx, defsKey, k)); msg != "" {
						return msg
					}
				}
			}
		}
	}
	return ""
}

func genericSortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func BenchmarkStrictVerdict(b *testing.B) {
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string","description":"City name"},"units":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","units"],"additionalProperties":false}`)
	b.Run("members", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			strictVerdict(schema)
		}
	})
	b.Run("generic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			genericStrictVerdict(schema)
		}
	})
}

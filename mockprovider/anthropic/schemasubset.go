package anthropic

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// The JSON Schema subset structured outputs compile into a grammar: the
// schema of output_config.format (or output_format) and the input_schema
// of a tool sent with strict: true go through the same compiler
// ("Strict tool use compiles tool input_schema definitions into grammars
// using the same pipeline as structured outputs",
// https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use),
// so both are judged by this one description of it
// (https://platform.claude.com/docs/en/build-with-claude/structured-outputs,
// "JSON Schema limitations").

// subsetMaxDepth bounds the walk: a schema nested deeper is judged down to
// here only.
const subsetMaxDepth = 64

// unsupportedKeywords are the constraint keywords the grammar cannot
// enforce, by the node's type: the docs' "Numerical constraints",
// "String constraints" and "Array constraints beyond minItems of 0 or 1";
// the SDK keeps none of them (anthropic-sdk-go v2.15.0 schemautil.go
// supportedSchemaKeys).
var unsupportedKeywords = map[string][]string{
	"integer": {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
	"number":  {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
	"string":  {"maxLength", "minLength"},
	"array":   {"contains", "maxContains", "maxItems", "minContains", "uniqueItems"},
	"object":  {"maxProperties", "minProperties"},
}

// parseSchema decodes a schema once for the checks below (nil when it is
// not JSON the decoder takes, nested past its own depth limit, say: then
// nothing is judged).
func parseSchema(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// schemaNode is one subschema met by the walk.
type schemaNode struct {
	m map[string]any
	// types are its type keyword: one name, or the names of a list.
	types []string
}

// subschemaKeys are the members whose values are subschemas (maps of
// them, lists of them, or one).
var subschemaKeys = []string{"$defs", "additionalProperties", "allOf", "anyOf", "definitions", "items", "not", "oneOf", "prefixItems", "properties"}

// walkSchema visits every subschema, depth first, members in name order
// (so the first problem found is the same on every run), stopping when
// visit returns false.
func walkSchema(schema any, visit func(schemaNode) bool) {
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		m, ok := v.(map[string]any)
		if !ok || depth > subsetMaxDepth {
			return true
		}
		n := schemaNode{m: m}
		switch t := m["type"].(type) {
		case string:
			n.types = []string{t}
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok {
					n.types = append(n.types, s)
				}
			}
		}
		if !visit(n) {
			return false
		}
		for _, k := range subschemaKeys {
			switch child := m[k].(type) {
			case map[string]any:
				if k == "properties" || k == "$defs" || k == "definitions" {
					for _, name := range slices.Sorted(maps.Keys(child)) {
						if !walk(child[name], depth+1) {
							return false
						}
					}
				} else if !walk(child, depth+1) {
					return false
				}
			case []any:
				for _, sub := range child {
					if !walk(sub, depth+1) {
						return false
					}
				}
			}
		}
		return true
	}
	walk(schema, 0)
}

func (n schemaNode) is(typ string) bool { return slices.Contains(n.types, typ) }

// openObjectProblem is the API's text for the first object schema not
// closed with additionalProperties: false ("" when every one is).
func openObjectProblem(schema any) string {
	problem := ""
	walkSchema(schema, func(n schemaNode) bool {
		if closed, ok := n.m["additionalProperties"].(bool); n.is("object") && (!ok || closed) {
			problem = "For 'object' type, 'additionalProperties' must be explicitly set to false"
		}
		return problem == ""
	})
	return problem
}

// keywordProblem is the API's text for the first subschema carrying a
// constraint the grammar cannot enforce ("" when none does): every such
// keyword of the node, sorted, or minItems above 1.
func keywordProblem(schema any) string {
	problem := ""
	walkSchema(schema, func(n schemaNode) bool {
		for _, typ := range n.types {
			var found []string
			for _, k := range unsupportedKeywords[typ] {
				if _, ok := n.m[k]; ok {
					found = append(found, k)
				}
			}
			switch {
			case len(found) == 1:
				problem = "For '" + typ + "' type, property '" + found[0] + "' is not supported"
			case len(found) > 1:
				problem = "For '" + typ + "' type, properties " + strings.Join(found, ", ") + " are not supported"
			case typ == "array":
				if m, ok := n.m["minItems"]; ok && m != 0.0 && m != 1.0 {
					problem = "For 'array' type, 'minItems' values other than 0 or 1 are not supported"
				}
			}
			if problem != "" {
				return false
			}
		}
		return true
	})
	return problem
}

// recursiveRef reports whether the schema's local references form a cycle
// (a definition that reaches itself, or a reference to the root).
func recursiveRef(schema any) bool {
	edges := map[string][]string{} // "#" or a definition's pointer → the pointers it references
	var collect func(owner string, v any, depth int)
	collect = func(owner string, v any, depth int) {
		if depth > subsetMaxDepth {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for key, child := range v {
				switch defs, isMap := child.(map[string]any); {
				case key == "$ref":
					if ref, ok := child.(string); ok {
						if target, ok := localDefinition(ref); ok {
							edges[owner] = append(edges[owner], target)
						}
					}
				case (key == "$defs" || key == "definitions") && isMap:
					for name, def := range defs {
						collect("#/"+key+"/"+name, def, depth+1)
					}
				default:
					collect(owner, child, depth+1)
				}
			}
		case []any:
			for _, child := range v {
				collect(owner, child, depth+1)
			}
		}
	}
	collect("#", schema, 0)
	// A cycle among the pointers: depth first, with the pointers on the
	// current path marked open.
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var cyclic func(p string) bool
	cyclic = func(p string) bool {
		switch state[p] {
		case open:
			return true
		case done:
			return false
		}
		state[p] = open
		for _, q := range edges[p] {
			if cyclic(q) {
				return true
			}
		}
		state[p] = done
		return false
	}
	for p := range edges {
		if cyclic(p) {
			return true
		}
	}
	return false
}

// localDefinition is the root ("#") or the definition ("#/$defs/X") a
// local reference points into (ok=false for another document's).
func localDefinition(ref string) (string, bool) {
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		return "", false
	}
	for _, defs := range []string{"#/$defs/", "#/definitions/"} {
		if rest, found := strings.CutPrefix(ref, defs); found {
			name, _, _ := strings.Cut(rest, "/")
			return defs + name, true
		}
	}
	return "#", true
}

// The documented complexity limits of one request, across its strict
// tools and its output schema ("Schema complexity limits").
const (
	maxStrictTools    = 20
	maxOptionalParams = 24
	maxUnionParams    = 16
)

// paramCounts counts a schema's optional properties (not listed in their
// object's required) and its properties of a union type (anyOf, or a
// list of types), nested ones included.
func paramCounts(schema any) (optional, union int) {
	walkSchema(schema, func(n schemaNode) bool {
		props, ok := n.m["properties"].(map[string]any)
		if !ok {
			return true
		}
		required := map[string]bool{}
		if list, ok := n.m["required"].([]any); ok {
			for _, r := range list {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		for name, p := range props {
			if !required[name] {
				optional++
			}
			if p, ok := p.(map[string]any); ok {
				_, anyOf := p["anyOf"].([]any)
				_, typeList := p["type"].([]any)
				if anyOf || typeList {
					union++
				}
			}
		}
		return true
	})
	return optional, union
}

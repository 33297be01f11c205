package anthropic

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
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
// here only (the walk costs at most the schema's size).
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

// schemaNode is one subschema met by the walk.
type schemaNode struct {
	v gjson.Result
	// types are its type keyword: one name, or the names of a list.
	types []string
}

// walkSchema visits every subschema of schema in document order, depth
// first, stopping when visit returns false.
func walkSchema(schema json.RawMessage, visit func(schemaNode) bool) {
	var walk func(v gjson.Result, depth int) bool
	walk = func(v gjson.Result, depth int) bool {
		if !v.IsObject() || depth > subsetMaxDepth {
			return true
		}
		n := schemaNode{v: v}
		switch t := v.Get("type"); {
		case t.Type == gjson.String:
			n.types = []string{t.Str}
		case t.IsArray():
			for _, e := range t.Array() {
				n.types = append(n.types, e.String())
			}
		}
		if !visit(n) {
			return false
		}
		ok := true
		v.ForEach(func(key, child gjson.Result) bool {
			switch key.Str {
			case "properties", "$defs", "definitions":
				child.ForEach(func(_, sub gjson.Result) bool {
					ok = walk(sub, depth+1)
					return ok
				})
			case "items", "prefixItems", "anyOf", "allOf", "oneOf":
				if child.IsArray() {
					child.ForEach(func(_, sub gjson.Result) bool {
						ok = walk(sub, depth+1)
						return ok
					})
				} else {
					ok = walk(child, depth+1)
				}
			case "additionalProperties", "not":
				ok = walk(child, depth+1)
			}
			return ok
		})
		return ok
	}
	walk(gjson.ParseBytes(schema), 0)
}

func (n schemaNode) is(typ string) bool { return slices.Contains(n.types, typ) }

// openObjectProblem is the API's text for the first object schema not
// closed with additionalProperties: false ("" when every one is).
func openObjectProblem(schema json.RawMessage) string {
	problem := ""
	walkSchema(schema, func(n schemaNode) bool {
		if n.is("object") && n.v.Get("additionalProperties").Type != gjson.False {
			problem = "For 'object' type, 'additionalProperties' must be explicitly set to false"
		}
		return problem == ""
	})
	return problem
}

// keywordProblem is the API's text for the first subschema carrying a
// constraint the grammar cannot enforce ("" when none does): every such
// keyword of the node, sorted, or minItems above 1.
func keywordProblem(schema json.RawMessage) string {
	problem := ""
	walkSchema(schema, func(n schemaNode) bool {
		for _, typ := range n.types {
			var found []string
			for _, k := range unsupportedKeywords[typ] {
				if n.v.Get(gjsonKey(k)).Exists() {
					found = append(found, k)
				}
			}
			switch {
			case len(found) == 1:
				problem = "For '" + typ + "' type, property '" + found[0] + "' is not supported"
			case len(found) > 1:
				problem = "For '" + typ + "' type, properties " + strings.Join(found, ", ") + " are not supported"
			case typ == "array":
				if m := n.v.Get("minItems"); m.Exists() && m.Raw != "0" && m.Raw != "1" {
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

// gjsonKey escapes a member name for a gjson path.
func gjsonKey(k string) string { return strings.NewReplacer("$", `\$`, ".", `\.`).Replace(k) }

// recursiveRef reports whether the schema's local references form a cycle
// (a definition that reaches itself, or a reference to the root).
func recursiveRef(schema json.RawMessage) bool {
	edges := map[string][]string{} // "#" or a definition's pointer → the pointers it references
	var collect func(owner string, v gjson.Result, depth int)
	collect = func(owner string, v gjson.Result, depth int) {
		if depth > subsetMaxDepth {
			return
		}
		if v.IsObject() {
			v.ForEach(func(key, child gjson.Result) bool {
				switch {
				case key.Str == "$ref" && child.Type == gjson.String:
					if target, ok := localDefinition(child.Str); ok {
						edges[owner] = append(edges[owner], target)
					}
				case (key.Str == "$defs" || key.Str == "definitions") && child.IsObject():
					child.ForEach(func(name, def gjson.Result) bool {
						collect("#/"+key.Str+"/"+name.Str, def, depth+1)
						return true
					})
				default:
					collect(owner, child, depth+1)
				}
				return true
			})
		} else if v.IsArray() {
			v.ForEach(func(_, child gjson.Result) bool {
				collect(owner, child, depth+1)
				return true
			})
		}
	}
	collect("#", gjson.ParseBytes(schema), 0)
	// A cycle among the pointers: depth-first with colours.
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
func paramCounts(schema json.RawMessage) (optional, union int) {
	walkSchema(schema, func(n schemaNode) bool {
		props := n.v.Get("properties")
		if !props.IsObject() {
			return true
		}
		required := map[string]bool{}
		for _, r := range n.v.Get("required").Array() {
			required[r.String()] = true
		}
		props.ForEach(func(name, p gjson.Result) bool {
			if !required[name.Str] {
				optional++
			}
			if p.Get("anyOf").IsArray() || p.Get("type").IsArray() {
				union++
			}
			return true
		})
		return true
	})
	return optional, union
}

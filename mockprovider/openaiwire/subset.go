package openaiwire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The JSON Schema subset of Structured Outputs: what strict mode takes in
// a strict function's parameters and in a strict response format's schema
// alike (the guide describes one subset for both:
// https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
// The additionalProperties/required demands are strictVerdict's; here are
// the keywords strict mode does not permit and the size limits.

// SubsetURL is the guide's section on the subset.
const SubsetURL = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"

// notPermitted are the keywords strict mode refuses wherever a schema
// may stand: the composition keywords the guide lists as unsupported, and
// 'uniqueItems', which a captured 400 on gpt-5-mini names. 'default' is
// not here although an older capture names it (zenn.dev/nicopin/scraps/
// a8d8f53f5faebb): 18 recorded real exchanges in testdata/corpus declare
// strict functions with defaults and were answered 200. The keywords the
// guide lists as unsupported only for fine-tuned models are not here
// either: a base model takes them.
var notPermitted = []string{"allOf", "dependentRequired", "dependentSchemas", "else", "if", "not", "then", "uniqueItems"}

// The guide's limits on one strict schema.
const (
	MaxSchemaProperties   = 5000    // object properties in total
	MaxSchemaNesting      = 10      // levels of nested objects
	MaxSchemaStringLength = 120_000 // property and definition names, enum and const values
	MaxSchemaEnumValues   = 1000    // enum values in total
	// A string enum of more than LargeEnumValues values may total at most
	// MaxLargeEnumLength characters.
	LargeEnumValues    = 250
	MaxLargeEnumLength = 15_000
)

// LimitsSummary and LimitsRefs are the strict-schema-limits rule's, the
// same on both APIs.
var (
	LimitsSummary = fmt.Sprintf("A strict schema keeps the Structured Outputs limits: at most %d object properties, %d levels of nesting, %d enum values, %d characters of names and enum values. Journaled, not answered: how the API counts is not public.",
		MaxSchemaProperties, MaxSchemaNesting, MaxSchemaEnumValues, MaxSchemaStringLength)
	LimitsRefs = []rules.Ref{
		{URL: SubsetURL, Quote: "A schema may have up to 5000 object properties total, with up to 10 levels of nesting"},
		{URL: "https://github.com/tidyverse/ellmer/issues/671", Quote: "Invalid schema for response_format 'structured_data': 6 levels of nesting exceeds limit of 5."},
		{URL: "https://community.openai.com/t/500-enums-limitation-in-structured-output/974416", Quote: "Expected at most 500 enum values in total within a single schema when using structured outputs, but received 520."},
	}
)

// SubsetProblem is the first keyword strict mode does not permit in the
// schema raw, worded as the API does ("In context=('properties', 'x'),
// 'allOf' is not permitted."); "" when there is none or raw is no JSON
// object (the schema checks report that).
//
// Computed on every request, not remembered: a strict schema costs about
// 10 µs here, which moves no dialect's figure in `make bench` by the 0.1
// a cache must earn (schemaVerdicts, the meta-schema compile, does).
func SubsetProblem(raw json.RawMessage) string {
	root := schemaObject(raw)
	if root == nil {
		return ""
	}
	return keywordProblem(root, nil)
}

// schemaObject is raw parsed when it is a JSON object, else nil: the
// subset checks leave anything else to the schema checks.
func schemaObject(raw json.RawMessage) map[string]any {
	var root map[string]any
	if json.Unmarshal(raw, &root) != nil {
		return nil
	}
	return root
}

func keywordProblem(s map[string]any, ctx []string) string {
	for _, k := range notPermitted { // sorted: the first in that order
		if _, ok := s[k]; ok {
			return fmt.Sprintf("In context=%s, '%s' is not permitted.", pyTuple(ctx), k)
		}
	}
	var problem string
	eachSubschema(s, ctx, func(sub map[string]any, at []string) bool {
		problem = keywordProblem(sub, at)
		return problem == ""
	})
	return problem
}

// eachSubschema calls f on the schemas s holds where a schema may stand
// (properties, items, anyOf, $defs, definitions), each with its context,
// in a fixed order, until f returns false.
func eachSubschema(s map[string]any, ctx []string, f func(sub map[string]any, ctx []string) bool) bool {
	sub := func(v any, at ...string) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return true
		}
		return f(m, append(slices.Clip(ctx), at...))
	}
	for _, key := range []string{"properties", "$defs", "definitions"} {
		members, _ := s[key].(map[string]any)
		for _, name := range sortedKeys(members) {
			if !sub(members[name], key, name) {
				return false
			}
		}
	}
	if !sub(s["items"], "items") {
		return false
	}
	alternatives, _ := s["anyOf"].([]any)
	for i, alt := range alternatives {
		if !sub(alt, "anyOf", strconv.Itoa(i)) {
			return false
		}
	}
	return true
}

// SubsetLimit is the first of the guide's limits the schema raw exceeds
// ("" when it keeps them all or is no JSON object). Nesting and enum
// counts are worded as captured answers are, with the limits the guide
// gives today ("6 levels of nesting exceeds limit of 5.",
// tidyverse/ellmer#671; "Expected at most 500 enum values in total within
// a single schema when using structured outputs, but received 520. …",
// community.openai.com/t/974416); the other texts are the mock's own.
// How the API counts is not public, so the rules journal these.
func SubsetLimit(raw json.RawMessage) string {
	root := schemaObject(raw)
	if root == nil {
		return ""
	}
	var t schemaTally
	t.walk(root, 1)
	switch {
	case t.depth > MaxSchemaNesting:
		return fmt.Sprintf("%d levels of nesting exceeds limit of %d.", t.depth, MaxSchemaNesting)
	case t.properties > MaxSchemaProperties:
		return fmt.Sprintf("Expected at most %d properties in total within a single schema when using structured outputs, but received %d.", MaxSchemaProperties, t.properties)
	case t.enumValues > MaxSchemaEnumValues:
		return fmt.Sprintf("Expected at most %d enum values in total within a single schema when using structured outputs, but received %d. Consider reducing the number of enums, or use 'strict: false' to opt out of structured outputs.", MaxSchemaEnumValues, t.enumValues)
	case t.largeEnum != "":
		return t.largeEnum
	case t.stringLength > MaxSchemaStringLength:
		return fmt.Sprintf("Expected the total string length of property names, definition names, enum values and const values to be at most %d within a single schema when using structured outputs, but received %d.", MaxSchemaStringLength, t.stringLength)
	}
	return ""
}

// schemaTally counts what the limits bound, over the whole schema.
type schemaTally struct {
	depth, properties, enumValues, stringLength int
	largeEnum                                   string
}

// walk counts s, an object schema nested level deep (the root is level 1;
// each object schema inside another's properties, items or anyOf is one
// more, definitions start again at 1).
func (t *schemaTally) walk(s map[string]any, level int) {
	if isObjectSchema(s) {
		t.depth = max(t.depth, level)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		t.properties += len(props)
		for name := range props {
			t.stringLength += len(name)
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		defs, _ := s[key].(map[string]any)
		for name, d := range defs {
			t.stringLength += len(name)
			if m, ok := d.(map[string]any); ok {
				t.walk(m, 1)
			}
		}
	}
	if c, ok := s["const"].(string); ok {
		t.stringLength += len(c)
	}
	if enum, ok := s["enum"].([]any); ok {
		t.enumValues += len(enum)
		chars := 0
		for _, v := range enum {
			if str, ok := v.(string); ok {
				chars += len(str)
			}
		}
		t.stringLength += chars
		if len(enum) > LargeEnumValues && chars > MaxLargeEnumLength && t.largeEnum == "" {
			t.largeEnum = fmt.Sprintf("Expected at most %d characters in total across the values of an enum with more than %d values when using structured outputs, but received %d.", MaxLargeEnumLength, LargeEnumValues, chars)
		}
	}
	next := level
	if isObjectSchema(s) {
		next = level + 1
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if m, ok := p.(map[string]any); ok {
				t.walk(m, next)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		t.walk(items, next)
	}
	alternatives, _ := s["anyOf"].([]any)
	for _, alt := range alternatives {
		if m, ok := alt.(map[string]any); ok {
			t.walk(m, next)
		}
	}
}

func isObjectSchema(s map[string]any) bool {
	if s["type"] == "object" {
		return true
	}
	if types, ok := s["type"].([]any); ok && slices.Contains(types, any("object")) {
		return true
	}
	_, ok := s["properties"].(map[string]any)
	return ok
}

// CheckSubset: a strict function's parameters use only the keywords strict
// mode permits. Worded as CheckStrict's answers are.
func CheckSubset(decls []ToolDecl) []rules.Violation {
	return checkStrictFunctions(decls, SubsetProblem)
}

// CheckSubsetLimits: a strict function's parameters keep the guide's
// limits; what exceeds one is journaled (the rule is a SHOULD).
func CheckSubsetLimits(decls []ToolDecl) []rules.Violation {
	return checkStrictFunctions(decls, SubsetLimit)
}

// MentionsJSON reports whether s holds the word "json" in any case, as
// JSON mode (json_object) demands of the conversation on both APIs.
func MentionsJSON(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if strings.EqualFold(s[i:i+4], "json") {
			return true
		}
	}
	return false
}

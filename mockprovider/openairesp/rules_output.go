package openairesp

import (
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Structured outputs: text.format's json_schema and json_object, and the
// schema subset strict mode takes (in strict functions too). Unlike
// Chat's response_format, a json_schema format carries name, schema and
// strict itself.

// The API's schema answers point at the schema with their own code.
const (
	schemaParam = "text.format.schema"
	schemaCode  = "invalid_json_schema"
)

const structuredOutputsURL = "https://platform.openai.com/docs/guides/structured-outputs"

// schemaFormat is text.format when it is a json_schema with a schema.
func schemaFormat(r *Request) *ResponseFormatTextJSONSchemaConfigParam {
	if f := r.TextFormat(); f != nil && f.OfJSONSchema != nil && len(f.OfJSONSchema.Schema) > 0 && f.OfJSONSchema.Schema.Kind() != 'n' {
		return f.OfJSONSchema
	}
	return nil
}

func strictFormat(f *ResponseFormatTextJSONSchemaConfigParam) bool {
	return f.Strict != nil && *f.Strict
}

// schemaBreach is the API's answer to a text.format schema it refuses:
// "Invalid schema for response_format '<name>': <problem>", param
// text.format.schema, code invalid_json_schema.
func schemaBreach(f *ResponseFormatTextJSONSchemaConfigParam, problem string) rules.Violation {
	return violation(atMembers, schemaParam, schemaParam, schemaCode,
		fmt.Sprintf("Invalid schema for response_format '%s': %s", str(f.Name), problem))
}

// withFormat is a request to gpt-4.1 with a json_schema text.format.
func withFormat(schema string, strict bool) []byte {
	return js(fmt.Sprintf(`{"model":"gpt-4.1","input":"Weather in Tokyo?","text":{"format":{"type":"json_schema","name":"forecast","strict":%t,"schema":%s}}}`, strict, schema))
}

const forecastSchema = `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`

var RuleResponseFormatRequired = set.Add(rules.Rule{
	ID: "openai-responses.response-format-required", Level: rules.MUST, Family: familyShapes,
	Summary: "A json_schema text.format carries its name and schema on the format itself.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create#responses-create-text", Quote: "format json_schema: name (required), schema (required), strict, description"},
		{URL: "https://github.com/jamesrochabrun/SwiftOpenAI/issues/151", Quote: "Get 400 due to missing 'text.format.name' when using json_schema"},
		{Quote: "the message \"Missing required parameter: 'text.format.name'.\" with param text.format.name and code missing_required_parameter, and the missing schema's answer in the same form, as public recordings show them", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "json_schema without a name",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather in Tokyo?","text":{"format":{"type":"json_schema","schema":` + forecastSchema + `}}}`),
			Good:       withFormat(forecastSchema, false),
			WantStatus: 400, WantMessage: "Missing required parameter: 'text.format.name'."},
		{Name: "json_schema without a schema",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather in Tokyo?","text":{"format":{"type":"json_schema","name":"forecast"}}}`),
			Good:       withFormat(forecastSchema, false),
			WantStatus: 400, WantMessage: "Missing required parameter: 'text.format.schema'."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	f := r.TextFormat()
	switch {
	case f == nil || f.OfJSONSchema == nil:
	case f.OfJSONSchema.Name == nil:
		return []rules.Violation{missing(atMembers, "text.format.name")}
	case len(f.OfJSONSchema.Schema) == 0 || f.OfJSONSchema.Schema.Kind() == 'n':
		return []rules.Violation{missing(atMembers, "text.format.schema")}
	}
	return nil
})

var RuleResponseFormatSchema = set.Add(rules.Rule{
	ID: "openai-responses.response-format-schema", Level: rules.MUST, Family: familyShapes,
	Summary: "A json_schema text.format's schema is a valid JSON Schema of an object (the checks function parameters get).",
	Refs: []rules.Ref{
		{URL: structuredOutputsURL, Quote: "the root level object of a schema must be an object"},
		{URL: "https://community.openai.com/t/support-top-level-array-in-json-schema/896048", Quote: `Invalid schema for response_format 'PolicyStatements': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`},
		{Quote: "param text.format.schema and code invalid_json_schema, as the strict-schema answers of this API carry them", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "array at the root",
			Bad:        withFormat(`{"type":"array","items":{"type":"string"}}`, false),
			Good:       withFormat(forecastSchema, false),
			WantStatus: 400, WantMessage: `Invalid schema for response_format 'forecast': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if f := schemaFormat(r); f != nil {
		if problem := openaiwire.SchemaProblem([]byte(f.Schema)); problem != "" {
			return []rules.Violation{schemaBreach(f, problem)}
		}
	}
	return nil
})

var RuleResponseFormatStrict = set.Add(rules.Rule{
	ID: "openai-responses.response-format-strict", Level: rules.MUST, Family: familyShapes,
	Summary: "A strict json_schema text.format's object schemas set additionalProperties: false and require every property.",
	Refs: []rules.Ref{
		{URL: structuredOutputsURL + "#supported-schemas", Quote: "additionalProperties: false must always be set in objects; all fields must be required"},
		{URL: "https://github.com/neuron-core/neuron-ai/issues/311", Quote: "Invalid schema for response_format in a nested schema object, through the Responses API with strict on"},
		{URL: "https://github.com/vercel/ai/issues/6484", Quote: "Invalid schema for response_format 'response': In context=('properties', 'organizations', 'items'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'roles'."},
		{Quote: "param text.format.schema, code invalid_json_schema: public recordings of this API's 400 (e.g. \"Invalid schema for response_format 'codex_output_schema': In context=(), 'additionalProperties' is required to be supplied and to be false.\")", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "strict without additionalProperties false",
			Bad:        withFormat(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`, true),
			Good:       withFormat(forecastSchema, true),
			WantStatus: 400, WantMessage: "Invalid schema for response_format 'forecast': In context=(), 'additionalProperties' is required to be supplied and to be false."},
		{Name: "strict with a property not required",
			Bad:        withFormat(`{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string"}},"required":["location"],"additionalProperties":false}`, true),
			Good:       withFormat(`{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string"}},"required":["location","unit"],"additionalProperties":false}`, true),
			WantStatus: 400, WantMessage: "Invalid schema for response_format 'forecast': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'unit'."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if f := schemaFormat(r); f != nil && strictFormat(f) && openaiwire.SchemaProblem([]byte(f.Schema)) == "" {
		if problem := openaiwire.StrictProblem([]byte(f.Schema)); problem != "" {
			return []rules.Violation{schemaBreach(f, problem)}
		}
	}
	return nil
})

var RuleStrictSchemaSubset = set.Add(rules.Rule{
	ID: "openai-responses.strict-schema-subset", Level: rules.MUST, Family: familyShapes,
	Summary: "A strict schema (a strict function's parameters or a strict json_schema text.format) uses only the keywords Structured Outputs supports: no allOf, not, if/then/else, dependentRequired, dependentSchemas or uniqueItems (default is taken: real exchanges in testdata/corpus declare strict functions with defaults and were answered).",
	Refs: []rules.Ref{
		{URL: openaiwire.SubsetURL, Quote: "Composition: allOf, not, dependentRequired, dependentSchemas, if, then, else are not supported"},
		{Quote: "a public recording of this API's 400 on gpt-5-mini: \"Invalid schema for response_format 'professional_occupational_relation': In context=('properties', 'candidate_fact_ids'), 'uniqueItems' is not permitted.\" (param text.format.schema, code invalid_json_schema); the other keywords and strict functions are inferred from the guide's one subset", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "uniqueItems in a strict text.format",
			Bad:        withFormat(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["tags"],"additionalProperties":false}`, true),
			Good:       withFormat(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"required":["tags"],"additionalProperties":false}`, true),
			WantStatus: 400, WantMessage: "Invalid schema for response_format 'forecast': In context=('properties', 'tags'), 'uniqueItems' is not permitted."},
		{Name: "allOf in a strict function",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","strict":true,"parameters":{"type":"object","properties":{"location":{"allOf":[{"type":"string"}]}},"required":["location"],"additionalProperties":false}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=('properties', 'location'), 'allOf' is not permitted."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	out := openaiwire.CheckSubset(toolDecls(r))
	if f := schemaFormat(r); f != nil && strictFormat(f) {
		if problem := openaiwire.SubsetProblem([]byte(f.Schema)); problem != "" {
			out = append(out, schemaBreach(f, problem))
		}
	}
	return out
})

var RuleStrictSchemaLimits = set.Add(rules.Rule{
	ID: "openai-responses.strict-schema-limits", Level: rules.SHOULD, Family: familyShapes,
	Summary: openaiwire.LimitsSummary, Refs: openaiwire.LimitsRefs,
	Cases: []rules.Case{
		{Name: "eleven levels of nesting",
			Bad:         withFormat(nested(11), true),
			Good:        withFormat(nested(10), true),
			WantMessage: "Invalid schema for response_format 'forecast': 11 levels of nesting exceeds limit of 10."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	out := openaiwire.CheckSubsetLimits(toolDecls(r))
	if f := schemaFormat(r); f != nil && strictFormat(f) {
		if problem := openaiwire.SubsetLimit([]byte(f.Schema)); problem != "" {
			out = append(out, schemaBreach(f, problem))
		}
	}
	return out
})

// nested is a strict object schema levels objects deep.
func nested(levels int) string {
	s := `{"type":"object","properties":{"v":{"type":"string"}},"required":["v"],"additionalProperties":false}`
	for range levels - 1 {
		s = `{"type":"object","properties":{"in":` + s + `},"required":["in"],"additionalProperties":false}`
	}
	return s
}

// jsonObjectMessage is the API's answer to json_object without the word
// (pydantic-ai's Responses model quotes it, and that instructions do not
// count).
const jsonObjectMessage = "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'."

var RuleJSONModeNeedsJSON = set.Add(rules.Rule{
	ID: "openai-responses.json-mode-needs-json", Level: rules.MUST, Family: familyShapes,
	Summary: `A json_object text.format needs the word "json" (any case) in the input messages; instructions do not count.`,
	Refs: []rules.Ref{
		{URL: structuredOutputsURL + "#json-mode", Quote: "you must always instruct the model to produce JSON via some message in the conversation"},
		{URL: "https://github.com/pydantic/pydantic-ai/blob/main/pydantic_ai_slim/pydantic_ai/models/openai.py", Quote: "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'. Apparently they're only checking input messages for \"JSON\", not instructions."},
		{Quote: "param input, code null", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "json_object with the word only in instructions",
			Bad:        js(`{"model":"gpt-4.1","instructions":"Answer in JSON.","input":"Describe Tokyo.","text":{"format":{"type":"json_object"}}}`),
			Good:       js(`{"model":"gpt-4.1","instructions":"Answer in JSON.","input":"Describe Tokyo as JSON.","text":{"format":{"type":"json_object"}}}`),
			WantStatus: 400, WantMessage: jsonObjectMessage},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	f := r.TextFormat()
	if f == nil || f.OfJSONObject == nil {
		return nil
	}
	for _, it := range r.Effective() {
		if it.Type == "message" && openaiwire.MentionsJSON(textOf(it.Content)) {
			return nil
		}
	}
	return []rules.Violation{violation(atMembers, "input", "input", nil, jsonObjectMessage)}
})

var RuleResponseFormatMoved = set.Add(rules.Rule{
	ID: "openai-responses.response-format-moved", Level: rules.MUST, Family: familyShapes,
	Summary: "Structured outputs are asked for in text.format: Chat's response_format is refused with a pointer to it. With --lenient, journaled instead.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create#responses-create-text"},
		{URL: "https://github.com/mkht/PSOpenAI/issues/44", Quote: "Unsupported parameter: 'response_format'. In the Responses API, this parameter has moved to 'text.format'. Try again with the new parameter. See the API documentation for more information: https://platform.openai.com/docs/api-reference/responses/create."},
		{Quote: "param response_format, code unsupported_parameter, as public recordings of the 400 show them", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "Chat's response_format",
			Bad:        js(`{"model":"gpt-4.1","input":"Describe Tokyo as JSON.","response_format":{"type":"json_object"}}`),
			Good:       js(`{"model":"gpt-4.1","input":"Describe Tokyo as JSON.","text":{"format":{"type":"json_object"}}}`),
			WantStatus: 400, WantMessage: responseFormatMovedMessage},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	// In lenient mode (strict decoding answers it before the checks).
	var out []rules.Violation
	for _, p := range r.Unknown {
		if v, ok := movedMember(p); ok {
			out = append(out, v)
		}
	}
	return out
})

const responseFormatMovedMessage = "Unsupported parameter: 'response_format'. In the Responses API, this parameter has moved to 'text.format'. Try again with the new parameter. See the API documentation for more information: https://platform.openai.com/docs/api-reference/responses/create."

// movedMember is the API's answer to a member the Responses API has moved
// elsewhere (Chat's response_format), when path names one.
func movedMember(path []string) (rules.Violation, bool) {
	if len(path) != 1 || path[0] != "response_format" {
		return rules.Violation{}, false
	}
	return violation(atMembers, "response_format", "response_format", "unsupported_parameter", responseFormatMovedMessage), true
}

package openaichat

import (
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Structured outputs: response_format's json_schema and json_object, and
// the schema subset strict mode takes (in strict functions too).

// responseFormatParam is where the API's schema answers point (param
// response_format, code null: community.openai.com/t/896048).
const responseFormatParam = "response_format"

const structuredOutputsURL = "https://platform.openai.com/docs/guides/structured-outputs"

// schemaFormat is response_format when it is a json_schema with a schema.
func schemaFormat(r *Request) *ResponseFormat {
	if f := r.ResponseFormat; f != nil && f.Type == "json_schema" && len(f.Schema) > 0 {
		return f
	}
	return nil
}

// schemaBreach is the API's answer to a response-format schema it
// refuses: "Invalid schema for response_format '<name>': <problem>".
func schemaBreach(f *ResponseFormat, problem string) rules.Violation {
	return badRequest(requestLevel, responseFormatParam+".json_schema.schema", responseFormatParam, "",
		fmt.Sprintf("Invalid schema for response_format '%s': %s", f.Name, problem))
}

// formatWith is a response_format of type json_schema with schema.
func formatWith(schema obj, strict bool) obj {
	return obj{"response_format": obj{"type": "json_schema", "json_schema": obj{"name": "forecast", "strict": strict, "schema": schema}}}
}

var forecastSchema = obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}, "additionalProperties": false}

var RuleResponseFormatRequired = set.Add(rules.Rule{
	ID: "openai-chat.response-format-required", Level: rules.MUST, Family: familyShapes,
	Summary: "A response_format has a type, and one of type json_schema carries its json_schema member, with a name.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format", Quote: "json_schema (required): name (required), schema, strict, description"},
		{URL: "https://github.com/architects-toolkit/SmartHopper/issues/259", Quote: "Missing required parameter: 'response_format.json_schema'. (param response_format.json_schema, code missing_required_parameter)"},
		{URL: "https://github.com/openai/openai-dotnet/issues/205", Quote: "HTTP 400 (invalid_request_error: missing_required_parameter) Parameter: response_format.json_schema"},
		{Quote: "the answers to a missing type or name, in the same form", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "response_format without a type",
			Bad:        body(hi, obj{"response_format": obj{}}),
			Good:       body(hi, obj{"response_format": obj{"type": "text"}}),
			WantStatus: 400, WantMessage: "Missing required parameter: 'response_format.type'."},
		{Name: "json_schema type without its member",
			Bad:        body(hi, obj{"response_format": obj{"type": "json_schema"}}),
			Good:       body(hi, formatWith(forecastSchema, false)),
			WantStatus: 400, WantMessage: "Missing required parameter: 'response_format.json_schema'."},
		{Name: "json_schema without a name",
			Bad:        body(hi, obj{"response_format": obj{"type": "json_schema", "json_schema": obj{"schema": forecastSchema}}}),
			Good:       body(hi, formatWith(forecastSchema, false)),
			WantStatus: 400, WantMessage: "Missing required parameter: 'response_format.json_schema.name'."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	switch f := r.ResponseFormat; {
	case f == nil:
	case f.Type == "":
		return []rules.Violation{missing(requestLevel, "response_format.type")}
	case f.Type != "json_schema":
	case !f.HasJSONSchema:
		return []rules.Violation{missing(requestLevel, "response_format.json_schema")}
	case !f.HasName:
		return []rules.Violation{missing(requestLevel, "response_format.json_schema.name")}
	}
	return nil
})

var RuleResponseFormatSchema = set.Add(rules.Rule{
	ID: "openai-chat.response-format-schema", Level: rules.MUST, Family: familyShapes,
	Summary: "A json_schema response format's schema is a valid JSON Schema of an object (the checks function parameters get).",
	Refs: []rules.Ref{
		{URL: structuredOutputsURL, Quote: "the root level object of a schema must be an object"},
		{URL: "https://community.openai.com/t/support-top-level-array-in-json-schema/896048", Quote: `Invalid schema for response_format 'PolicyStatements': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'. (param response_format, code None)`},
	},
	Cases: []rules.Case{
		{Name: "array at the root",
			Bad:        body(hi, formatWith(obj{"type": "array", "items": obj{"type": "string"}}, false)),
			Good:       body(hi, formatWith(forecastSchema, false)),
			WantStatus: 400, WantMessage: `Invalid schema for response_format 'forecast': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if f := schemaFormat(r); f != nil {
		if problem := openaiwire.SchemaProblem(f.Schema); problem != "" {
			return []rules.Violation{schemaBreach(f, problem)}
		}
	}
	return nil
})

var RuleResponseFormatStrict = set.Add(rules.Rule{
	ID: "openai-chat.response-format-strict", Level: rules.MUST, Family: familyShapes,
	Summary: "A strict json_schema response format's object schemas set additionalProperties: false and require every property.",
	Refs: []rules.Ref{
		{URL: structuredOutputsURL + "#supported-schemas", Quote: "additionalProperties: false must always be set in objects; all fields must be required"},
		{URL: "https://github.com/moeru-ai/xsai/issues/202", Quote: "Invalid schema for response_format 'json_schema': In context=('properties', 'etymology'), 'additionalProperties' is required to be supplied and to be false. (param response_format, code null)"},
		{URL: "https://github.com/mastra-ai/mastra/issues/12284", Quote: "Invalid schema for response_format 'response': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'finalResult'."},
	},
	Cases: []rules.Case{
		{Name: "strict without additionalProperties false",
			Bad:        body(hi, formatWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}}, true)),
			Good:       body(hi, formatWith(forecastSchema, true)),
			WantStatus: 400, WantMessage: "Invalid schema for response_format 'forecast': In context=(), 'additionalProperties' is required to be supplied and to be false."},
		{Name: "strict with a property not required",
			Bad:        body(hi, formatWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}, "unit": obj{"type": "string"}}, "required": arr{"city"}, "additionalProperties": false}, true)),
			Good:       body(hi, formatWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}, "unit": obj{"type": "string"}}, "required": arr{"city", "unit"}, "additionalProperties": false}, true)),
			WantStatus: 400, WantMessage: "Invalid schema for response_format 'forecast': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'unit'."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if f := schemaFormat(r); f != nil && f.Strict && openaiwire.SchemaProblem(f.Schema) == "" {
		if problem := openaiwire.StrictProblem(f.Schema); problem != "" {
			return []rules.Violation{schemaBreach(f, problem)}
		}
	}
	return nil
})

var RuleStrictSchemaSubset = set.Add(rules.Rule{
	ID: "openai-chat.strict-schema-subset", Level: rules.MUST, Family: familyShapes,
	Summary: "A strict schema (a strict function's parameters or a strict json_schema response format) uses only the keywords Structured Outputs supports: no allOf, not, if/then/else, dependentRequired, dependentSchemas or uniqueItems (default is taken: real exchanges in testdata/corpus declare strict functions with defaults and were answered).",
	Refs: []rules.Ref{
		{URL: openaiwire.SubsetURL, Quote: "Composition: allOf, not, dependentRequired, dependentSchemas, if, then, else are not supported"},
		{Quote: "that the other unsupported keywords get the same 'is not permitted' answer, and that strict functions get it too, is inferred from the guide's one subset for both", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "uniqueItems in a strict response format",
			Bad:        body(hi, formatWith(obj{"type": "object", "properties": obj{"tags": obj{"type": "array", "items": obj{"type": "string"}, "uniqueItems": true}}, "required": arr{"tags"}, "additionalProperties": false}, true)),
			Good:       body(hi, formatWith(forecastSchema, true)),
			WantStatus: 400, WantMessage: "Invalid schema for response_format 'forecast': In context=('properties', 'tags'), 'uniqueItems' is not permitted."},
		{Name: "allOf in a strict function",
			Bad:        body(hi, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"city": obj{"allOf": arr{obj{"type": "string"}}}}, "required": arr{"city"}, "additionalProperties": false}, true)}}),
			Good:       body(hi, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}, "additionalProperties": false}, true)}}),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=('properties', 'city'), 'allOf' is not permitted."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	var buf [4]openaiwire.ToolDecl
	if ds := decls(buf[:0], r, atMeaning, func(t Tool) bool { return t.Strict && len(t.Parameters) > 0 }); len(ds) > 0 {
		out = openaiwire.CheckSubset(ds)
	}
	if f := schemaFormat(r); f != nil && f.Strict {
		if problem := openaiwire.SubsetProblem(f.Schema); problem != "" {
			out = append(out, schemaBreach(f, problem))
		}
	}
	return out
})

var RuleStrictSchemaLimits = set.Add(rules.Rule{
	ID: "openai-chat.strict-schema-limits", Level: rules.SHOULD, Family: familyShapes,
	Summary: openaiwire.LimitsSummary, Refs: openaiwire.LimitsRefs,
	Cases: []rules.Case{
		{Name: "eleven levels of nesting",
			Bad:         body(hi, formatWith(nested(11), true)),
			Good:        body(hi, formatWith(nested(10), true)),
			WantMessage: "Invalid schema for response_format 'forecast': 11 levels of nesting exceeds limit of 10."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	var buf [4]openaiwire.ToolDecl
	if ds := decls(buf[:0], r, atMeaning, func(t Tool) bool { return t.Strict && len(t.Parameters) > 0 }); len(ds) > 0 {
		out = openaiwire.CheckSubsetLimits(ds)
	}
	if f := schemaFormat(r); f != nil && f.Strict {
		if problem := openaiwire.SubsetLimit(f.Schema); problem != "" {
			out = append(out, schemaBreach(f, problem))
		}
	}
	return out
})

// nested is a strict object schema levels objects deep.
func nested(levels int) obj {
	s := obj{"type": "object", "properties": obj{"v": obj{"type": "string"}}, "required": arr{"v"}, "additionalProperties": false}
	for range levels - 1 {
		s = obj{"type": "object", "properties": obj{"in": s}, "required": arr{"in"}, "additionalProperties": false}
	}
	return s
}

var RuleJSONModeNeedsJSON = set.Add(rules.Rule{
	ID: "openai-chat.json-mode-needs-json", Level: rules.MUST, Family: familyShapes,
	Summary: `A json_object response format needs the word "json" (any case) in the messages.`,
	Refs: []rules.Ref{
		{URL: structuredOutputsURL + "#json-mode", Quote: "you must always instruct the model to produce JSON via some message in the conversation"},
		{URL: "https://github.com/ultimatejimmy/xray.koplugin/issues/33", Quote: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'. (param messages, code null)"},
	},
	Cases: []rules.Case{
		{Name: "json_object without the word",
			Bad:        body(arr{userMsg("Describe Paris.")}, obj{"response_format": obj{"type": "json_object"}}),
			Good:       body(arr{userMsg("Describe Paris as JSON.")}, obj{"response_format": obj{"type": "json_object"}}),
			WantStatus: 400, WantMessage: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if f := r.ResponseFormat; f == nil || f.Type != "json_object" || !r.HasMessages {
		return nil
	}
	for _, m := range r.Messages {
		if openaiwire.MentionsJSON(m.Text) {
			return nil
		}
		for _, p := range m.Parts {
			if openaiwire.MentionsJSON(p.Text) {
				return nil
			}
		}
	}
	return []rules.Violation{badRequest(requestLevel, "messages", "messages", "",
		"'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.")}
})

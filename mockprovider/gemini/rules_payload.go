package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// What the JSON parser refuses ("Invalid JSON payload received."): a body
// that is not JSON, members the proto does not define, values of the wrong
// type, Struct fields that are not objects.

func payloadRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: ruleValidJSON, Level: rules.MUST, Family: "shapes",
		Summary: "The body is well-formed JSON in UTF-8.",
		Refs: []rules.Ref{
			{URL: "https://github.com/protocolbuffers/protobuf/blob/v21.12/src/google/protobuf/util/internal/json_stream_parser.cc", Quote: `the parser's "Unexpected token." and "Encountered non UTF-8 code points."`},
			{Quote: "caret layout", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "truncated body", Path: path25,
			Bad:        json.RawMessage(`{"contents":[{"parts":[{"text":"hi"}]}`),
			Good:       body("", userAsk),
			WantStatus: 400, WantMessage: "Invalid JSON payload received. Unexpected end of string.",
		}},
	}, decodedAlready)

	s.Add(rules.Rule{ID: ruleKnownFields, Level: rules.MUST, Family: "shapes",
		Summary: "Every member names a field of its message (camelCase or snake_case proto names); the API answers each unknown one with `Unknown name \"foo\" at 'contents[0].parts[0]': Cannot find field.` (at the top level without `at`), --lenient journals them instead.",
		Refs: []rules.Ref{
			{URL: "https://github.com/promptfoo/promptfoo/issues/1393", Quote: "nested"},
			{URL: "https://github.com/sourcegraph/cody/issues/4566", Quote: "top level, BadRequest detail without field"},
		},
		Cases: []rules.Case{
			{
				Name: "unknown top-level member (an OpenAI parameter)", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"temperature":0.2}`),
				Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"temperature":0.2}}`),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "temperature": Cannot find field.`,
			},
			{
				Name: "unknown member in a content", Path: path25,
				Bad:        compact(`{"contents":[{"role":"user","content":"hi"}]}`),
				Good:       compact(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "content" at 'contents[0]': Cannot find field.`,
			},
		},
	}, checkUnknown(false))

	s.Add(rules.Rule{ID: ruleSchemaSubset, Level: rules.MUST, Family: "shapes",
		Summary: "functionDeclarations[].parameters, response and generationConfig.responseSchema are one message, the OpenAPI-subset Schema: JSON Schema keywords (additionalProperties, $schema, const, exclusiveMinimum, propertyNames…) are unknown names there; full JSON Schema goes in parametersJsonSchema.",
		Refs: []rules.Ref{{URL: "https://github.com/openswarm-ai/openswarm/issues/24"}, {URL: "https://github.com/Laisky/one-api/issues/60"},
			{URL: "https://github.com/tensorzero/tensorzero/issues/1028", Quote: `the same Schema message as responseSchema: Unknown name "$schema" at 'generation_config.response_schema': Cannot find field.`},
			{URL: "https://github.com/QuantumNous/new-api/pull/1037", Quote: "the same, from a Zod-made schema"}},
		Cases: []rules.Case{
			{
				Name: "JSON Schema's additionalProperties under parameters", Path: path25,
				Bad:        body(strings.Replace(weatherFn, `"required":["city"]`, `"required":["city"],"additionalProperties":false`, 1), userAsk),
				Good:       body(weatherFn, userAsk),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
			},
			{
				Name: "const in a property schema", Path: path25,
				Bad:        body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":"STRING","const":"Paris"}`, 1), userAsk),
				Good:       body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":"STRING","enum":["Paris"]}`, 1), userAsk),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "const" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`,
			},
			{
				Name: "JSON Schema's $schema in responseSchema (JSON Schema goes in responseJsonSchema)", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"OBJECT","properties":{"city":{"type":"STRING"}}}}}`),
				Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"city":{"type":"string"}}}}}`),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "$schema" at 'generation_config.response_schema': Cannot find field.`,
			},
		},
	}, checkUnknown(true))

	s.Add(rules.Rule{ID: ruleFieldTypes, Level: rules.MUST, Family: "shapes",
		Summary: "Every field has its proto type: a message is an object, numbers fit their type (int32, float), enums name a value, a singular field takes no list; no member twice. A repeated field takes a list or a single value (a list of one).",
		Refs: []rules.Ref{
			{URL: "https://github.com/n8n-io/n8n/issues/15553", Quote: "list on a singular field"},
			{Quote: "a single value for a repeated field is accepted, as protobuf's JSON parsers do", Inferred: true},
			{URL: "https://github.com/vercel/ai/issues/3589", Quote: "`Invalid value at 'FIELD' (TYPE), VALUE` wording of the Struct captures"},
			{Quote: "that wording applied to scalars, enums and messages", Inferred: true},
			{Quote: "duplicate member", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name: "temperature as a string", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"temperature":"x"}}`),
				Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"temperature":0.5}}`),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Invalid value at 'generation_config.temperature' (TYPE_FLOAT), "x"`,
			},
			{
				Name: "schema type as a list (JSON Schema's nullable form)", Path: path25,
				Bad:        body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":["string","null"]}`, 1), userAsk),
				Good:       body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":"STRING","nullable":true}`, 1), userAsk),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "type" at 'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is not repeating, cannot start list.`,
			},
			{
				Name: "stopSequences holding a number (a single string is a list of one: accepted)", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"stopSequences":5}}`),
				Good:       compact(`{"contents":` + userAsk + `,"tools":` + weatherFn + `,"generationConfig":{"stopSequences":"END"}}`),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Invalid value at 'generation_config.stop_sequences[0]' (TYPE_STRING), 5`,
			},
			{
				Name: "thought signature that is not base64", Path: path25,
				Bad:        body(weatherFn, userAsk, strings.Replace(callParis, "CiQBDDnWx8Q=", "not base64!", 1), sunnyReply),
				Good:       body(weatherFn, userAsk, callParis, sunnyReply),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), "not base64!"`,
			},
		},
	}, decodedAlready)

	s.Add(rules.Rule{ID: "gemini.function-response-object", Level: rules.MUST, Family: "results",
		Summary: "functionResponse.response is a JSON object (a google.protobuf.Struct), never a string or list.",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: "FunctionResponse.Response: a map"},
			{URL: "https://github.com/vercel/ai/issues/3589", Quote: "list message"},
			{Quote: "string message (Struct wording from a Live API capture)", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name: "response sent as a JSON string", Path: path25,
				Bad:        body(weatherFn, userAsk, callParis, `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":"sunny"}}]}`),
				Good:       body(weatherFn, userAsk, callParis, sunnyReply),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), "sunny"`,
			},
			{
				Name: "response sent as a list", Path: path25,
				Bad:        body(weatherFn, userAsk, callParis, `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":["sunny"]}}]}`),
				Good:       body(weatherFn, userAsk, callParis, `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":["sunny"]}}}]}`),
				WantStatus: 400, WantMessage: `Invalid JSON payload received. Unknown name "response" at 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list.`,
			},
		},
	}, checkResponseObject)

	s.Add(rules.Rule{ID: "gemini.function-call-args-object", Level: rules.MUST, Family: "shapes",
		Summary: "functionCall.args in history is a JSON object.",
		Refs: []rules.Ref{
			{URL: "https://github.com/googleapis/googleapis/blob/master/google/ai/generativelanguage/v1beta/content.proto", Quote: "FunctionCall.args: google.protobuf.Struct, the type of FunctionResponse.response"},
			{URL: "https://github.com/vercel/ai/issues/3589", Quote: "a Struct field given a list is refused"},
			{Quote: "message (same Struct parse error as function-response-object)", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "call args replayed as a JSON string", Path: path25,
			Bad:        body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":"{\"city\":\"Paris\"}"}}]}`, sunnyReply),
			Good:       body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`, sunnyReply),
			WantStatus: 400, WantMessage: `Invalid JSON payload received. Invalid value at 'contents[1].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), "{\"city\":\"Paris\"}"`,
		}},
	}, checkArgsObject)
}

// decodedAlready is the check of the rules Decode enforces (valid JSON,
// field types): a request that reaches the checks has passed them, and a
// breach never reaches them, not even with --lenient.
func decodedAlready(*Request, *rules.Env) []rules.Violation { return nil }

// checkUnknown reports the members a lenient decode skipped: those inside
// a Schema (schema) or the others.
func checkUnknown(schema bool) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, _ *rules.Env) []rules.Violation {
		var out []rules.Violation
		for _, u := range r.Unknown {
			if u.inSchema == schema {
				out = append(out, parseBreach(u.Path(), u.message()))
			}
		}
		return out
	}
}

// isStructValue reports whether a Struct field holds what the API takes:
// nothing, null or an object. The checks ask it first so that the
// violation's paths are only formatted for a request that breaks the rule.
func isStructValue(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || t[0] == '{' || bytes.Equal(t, []byte("null"))
}

// structValueError words the parse error Google gives when a Struct field
// gets another JSON type ("" when raw is fine).
func structValueError(raw []byte, parent, field string) string {
	if isStructValue(raw) {
		return ""
	}
	t := bytes.TrimSpace(raw)
	if t[0] == '[' {
		return fmt.Sprintf("%s Unknown name %q at '%s': Proto field is not repeating, cannot start list.", invalidJSONPrefix, field, parent)
	}
	v := string(t)
	if len(v) > 200 {
		v = v[:200] + "..."
	}
	return fmt.Sprintf("%s Invalid value at '%s.%s' (type.googleapis.com/google.protobuf.Struct), %s", invalidJSONPrefix, parent, field, v)
}

func checkResponseObject(r *Request, _ *rules.Env) []rules.Violation {
	shapes := r.contentShapes()
	var out []rules.Violation
	for i, c := range r.Contents {
		if !shapes[i].notStruct {
			continue
		}
		for j, p := range c.Parts {
			if p.FunctionResponse == nil {
				continue
			}
			if !isStructValue(p.FunctionResponse.Response) {
				parent := fmt.Sprintf("contents[%d].parts[%d].function_response", i, j)
				msg := structValueError(p.FunctionResponse.Response, parent, "response")
				out = append(out, parseBreach(fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), msg))
			}
		}
	}
	return out
}

func checkArgsObject(r *Request, _ *rules.Env) []rules.Violation {
	shapes := r.contentShapes()
	var out []rules.Violation
	for i, c := range r.Contents {
		if !shapes[i].notStruct {
			continue
		}
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			if !isStructValue(p.FunctionCall.Args) {
				parent := fmt.Sprintf("contents[%d].parts[%d].function_call", i, j)
				msg := structValueError(p.FunctionCall.Args, parent, "args")
				out = append(out, parseBreach(fmt.Sprintf("contents[%d].parts[%d].functionCall.args", i, j), msg))
			}
		}
	}
	return out
}

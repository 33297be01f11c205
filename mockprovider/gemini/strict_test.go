package gemini_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// strictCase is a body the API rejects while decoding, and the same body
// corrected. Bodies are written with ◆ standing for the part that differs.
type strictCase struct {
	name      string
	template  string // the request, ◆ marks the varying piece
	bad, good string
	rule      string
	message   string // exact
	field     string // the BadRequest violation's field ("" for none)
}

const (
	weatherDecl = `{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"city":◆},"required":["city"]}}]}`
	userHi      = `{"role":"user","parts":[{"text":"hi"}]}`
)

func strictCases() []strictCase {
	inConfig := `{"contents":[` + userHi + `],"generationConfig":{◆}}`
	inCity := `{"contents":[` + userHi + `],"tools":[` + weatherDecl + `]}`
	inPart := `{"contents":[{"role":"user","parts":[{◆}]}]}`
	top := `{"contents":[` + userHi + `]◆}`
	return []strictCase{
		// Unknown members.
		{"unknown top level", top, `,"foo":1`, ``, "gemini.known-fields",
			`Invalid JSON payload received. Unknown name "foo": Cannot find field.`, ""},
		{"unknown top-level object", top, `,"extra_body":{"a":1}`, ``, "gemini.known-fields",
			`Invalid JSON payload received. Unknown name "extra_body" at 'extra_body': Cannot find field.`, "extra_body"},
		{"unknown in a part", inPart, `"text":"hi","foo":1`, `"text":"hi"`, "gemini.known-fields",
			`Invalid JSON payload received. Unknown name "foo" at 'contents[0].parts[0]': Cannot find field.`, "contents[0].parts[0]"},
		{"two unknown members", top, `,"stream":true,"top_k":3`, ``, "gemini.known-fields",
			"Invalid JSON payload received. Unknown name \"stream\": Cannot find field.\nInvalid JSON payload received. Unknown name \"top_k\": Cannot find field.", ""},
		{"snake_case parent path", `{"contents":[` + userHi + `],"tools":[{"function_declarations":[{"name":"f","parameters":{"type":"OBJECT",◆}}]}]}`,
			`"$schema":"x"`, `"description":"x"`, "gemini.parameters-schema-subset",
			`Invalid JSON payload received. Unknown name "$schema" at 'tools[0].function_declarations[0].parameters': Cannot find field.`, "tools[0].function_declarations[0].parameters"},
		{"exclusiveMinimum in a property", inCity, `{"type":"NUMBER","exclusiveMinimum":0}`, `{"type":"NUMBER","minimum":0}`, "gemini.parameters-schema-subset",
			`Invalid JSON payload received. Unknown name "exclusiveMinimum" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`, "tools[0].function_declarations[0].parameters.properties[0].value"},
		{"propertyNames in items", inCity, `{"type":"ARRAY","items":{"type":"OBJECT","propertyNames":{}}}`, `{"type":"ARRAY","items":{"type":"OBJECT"}}`, "gemini.parameters-schema-subset",
			`Invalid JSON payload received. Unknown name "propertyNames" at 'tools[0].function_declarations[0].parameters.properties[0].value.items': Cannot find field.`, "tools[0].function_declarations[0].parameters.properties[0].value.items"},
		// Wrong types, at ten and more paths.
		{"generationConfig as a string", `{"contents":[` + userHi + `],"generationConfig":◆}`, `"x"`, `{}`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'generation_config' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig), "x"`, "generation_config"},
		{"temperature as a string", inConfig, `"temperature":"x"`, `"temperature":0.5`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'generation_config.temperature' (TYPE_FLOAT), "x"`, "generation_config.temperature"},
		{"maxOutputTokens with a fraction", inConfig, `"maxOutputTokens":1.5`, `"maxOutputTokens":15`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), 1.5`, "generation_config.max_output_tokens"},
		{"temperature out of range", inConfig, `"temperature":1e999999`, `"temperature":1`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'generation_config.temperature' (TYPE_FLOAT), 1e999999`, "generation_config.temperature"},
		{"stopSequences as a string list of numbers", inConfig, `"stop_sequences":[1]`, `"stop_sequences":["1"]`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'generation_config.stop_sequences[0]' (TYPE_STRING), 1`, "generation_config.stop_sequences[0]"},
		// Proto JSON takes an enum's number as well as its name (Google's
		// generative-ai-go sends numbers): 1 is STRING, 99 no value.
		{"schema type as a number no value has", inCity, `{"type":99}`, `{"type":1}`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'tools[0].function_declarations[0].parameters.properties[0].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), 99`, "tools[0].function_declarations[0].parameters.properties[0].value.type"},
		{"schema type unknown", inCity, `{"type":"text"}`, `{"type":"string"}`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'tools[0].function_declarations[0].parameters.properties[0].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "text"`, "tools[0].function_declarations[0].parameters.properties[0].value.type"},
		{"required with a number", `{"contents":[` + userHi + `],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":[◆]}}]}]}`,
			`0`, `"a"`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'tools[0].function_declarations[0].parameters.required[0]' (TYPE_STRING), 0`, "tools[0].function_declarations[0].parameters.required[0]"},
		{"text as a number", inPart, `"text":5`, `"text":"5"`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'contents[0].parts[0].text' (TYPE_STRING), 5`, "contents[0].parts[0].text"},
		{"text as a list", inPart, `"text":["a"]`, `"text":"a"`, "gemini.field-types",
			`Invalid JSON payload received. Unknown name "text" at 'contents[0].parts[0]': Proto field is not repeating, cannot start list.`, "contents[0].parts[0].text"},
		{"thought as a string", inPart, `"text":"a","thought":"yes"`, `"text":"a","thought":true`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'contents[0].parts[0].thought' (TYPE_BOOL), "yes"`, "contents[0].parts[0].thought"},
		{"role as an object", `{"contents":[{"role":◆,"parts":[{"text":"a"}]}]}`, `{}`, `"user"`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'contents[0].role' (TYPE_STRING), Starting an object on a scalar field`, "contents[0].role"},
		// A single value of a repeated field is a list of one (TestSingleValueForRepeatedField):
		// a string there is then a string where a Content goes.
		{"contents as a string", `{"contents":◆}`, `"a"`, `[{"parts":[{"text":"a"}]}]`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'contents[0]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "a"`, "contents[0]"},
		{"function calling mode unknown", `{"contents":[` + userHi + `],"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":◆}}}`, `"ALWAYS"`, `"AUTO"`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "ALWAYS"`, "tool_config.function_calling_config.mode"},
		{"googleSearch as a boolean", `{"contents":[` + userHi + `],"tools":[{"googleSearch":◆}]}`, `true`, `{}`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'tools[0].google_search' (type.googleapis.com/google.protobuf.Struct), true`, "tools[0].google_search"},
		{"thinkingBudget as a string", inConfig, `"thinkingConfig":{"thinkingBudget":"lots"}`, `"thinkingConfig":{"thinkingBudget":1024}`, "gemini.field-types",
			`Invalid JSON payload received. Invalid value at 'generation_config.thinking_config.thinking_budget' (TYPE_INT32), "lots"`, "generation_config.thinking_config.thinking_budget"},
		{"duplicate member", inConfig, `"temperature":1,"temperature":2`, `"temperature":2`, "gemini.field-types",
			`Invalid JSON payload received. Duplicate field "temperature" at 'generation_config.temperature'.`, "generation_config.temperature"},
		// Not JSON.
		{"invalid UTF-8", inPart, "\"text\":\"caf\xe9\"", `"text":"café"`, "gemini.valid-json",
			`Invalid JSON payload received. Encountered non UTF-8 code points.`, ""},
		{"syntax error", inPart, `"text":"a",`, `"text":"a"`, "gemini.valid-json",
			"Invalid JSON payload received. Unexpected token.\nts\":[{\"role\":\"user\",\"parts\":[{\"text\":\"a\",}]}]}\n                                        ^", ""},
	}
}

// TestStrictDecoding posts each case through the server: the broken body
// gets the API's 400, exact text, BadRequest detail and rule header; the
// corrected one is answered 200.
func TestStrictDecoding(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, c := range strictCases() {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(c.template, "◆", c.bad, 1)
			resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "strict", []byte(bad), nil)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d for %s: %s", resp.StatusCode, bad, b)
			}
			ge := parseGoogleError(t, resp.StatusCode, b)
			if ge.Error.Status != "INVALID_ARGUMENT" || ge.Error.Message != c.message {
				t.Fatalf("answer %q %q\nwant %q", ge.Error.Status, ge.Error.Message, c.message)
			}
			if got := resp.Header.Get("X-Toolwire-Rule"); got != c.rule {
				t.Fatalf("rule %q, want %q", got, c.rule)
			}
			if c.rule != "gemini.valid-json" {
				fv := ge.Error.Details[0]["fieldViolations"].([]any)[0].(map[string]any)
				if ge.Error.Details[0]["@type"] != "type.googleapis.com/google.rpc.BadRequest" || fv["field"] != nil && fv["field"] != c.field || fv["field"] == nil && c.field != "" {
					t.Fatalf("details %v, want field %q", ge.Error.Details, c.field)
				}
			}
			good := strings.Replace(c.template, "◆", c.good, 1)
			if resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "strict", []byte(good), nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("corrected request: status %d for %s: %s", resp.StatusCode, good, b)
			}
		})
	}
}

// TestLenientJournalsUnknownMembers: with --lenient an unknown member is
// answered 200 and journaled under gemini.known-fields (or the schema
// rule), at its proto path.
func TestLenientJournalsUnknownMembers(t *testing.T) {
	ts := newServer(t, optionsWith(func(o *rules.Options) { o.Lenient = true }))
	body := `{"contents":[{"role":"user","parts":[{"text":"hi","foo":1}]}],"tools":[` +
		strings.Replace(weatherDecl, "◆", `{"type":"STRING","const":"Paris"}`, 1) + `]}`
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "lenient-unknown", []byte(body), nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	got := map[string]string{}
	for _, v := range ts.Violations("lenient-unknown") {
		got[v.Rule] = v.Path
	}
	if got["gemini.known-fields"] != "contents[0].parts[0].foo" ||
		got["gemini.parameters-schema-subset"] != "tools[0].function_declarations[0].parameters.properties[0].value.const" {
		t.Fatalf("journaled %v", got)
	}
}

// TestSnakeAndCamelNames: proto JSON takes both spellings of every field.
func TestSnakeAndCamelNames(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"system_instruction":{"parts":[{"text":"be brief"}]},
		"generation_config":{"max_output_tokens":64,"thinking_config":{"thinking_budget":0}},
		"tools":[{"function_declarations":[{"name":"get_weather","parameters_json_schema":{"type":"object","additionalProperties":false}}]}],
		"tool_config":{"function_calling_config":{"mode":"auto"}}}`
	if resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "snake", []byte(body), nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
}

package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The answer's form and count: structured outputs (responseMimeType and
// its schema), candidateCount, and the function-calling mode the allowed
// names go with.

// Verbatim texts of the API (each rule's references say where seen).
const (
	MsgFunctionCallingJSONMime = "Function calling with a response mime type: 'application/json' is unsupported"
	MsgMultipleCandidates      = "Multiple candidates is not enabled for this model"
)

// Texts no public source shows, worded in Google's style (their
// references mark them inferred); they are journaled, never answered.
const (
	msgSchemaWithoutMime      = "* GenerateContentRequest.generation_config.%s: response_mime_type must be application/json when a response schema is set.\n"
	msgTwoResponseSchemas     = "* GenerateContentRequest.generation_config: response_schema and response_json_schema cannot both be set.\n"
	msgCandidateCountRange    = "* GenerateContentRequest.generation_config.candidate_count: must be between 1 and %d.\n"
	msgAllowedNamesWrongModes = "Function calling config allowed_function_names is only used with mode ANY or VALIDATED, not %s."
	msgJSONSchemaKeyword      = "* GenerateContentRequest.generation_config.response_json_schema%s: keyword %q is not supported.\n"
)

// jsonSchemaKeywords are the JSON Schema keywords responseJsonSchema
// supports ("only the following properties are supported", genai
// types.go GenerationConfig.ResponseJsonSchema); other "$" keywords are
// let through, as a sub-schema with $ref may carry them.
var jsonSchemaKeywords = map[string]bool{
	"$id": true, "$defs": true, "$ref": true, "$anchor": true, "type": true, "format": true, "title": true, "description": true,
	"enum": true, "items": true, "prefixItems": true, "minItems": true, "maxItems": true, "minimum": true, "maximum": true,
	"anyOf": true, "oneOf": true, "properties": true, "additionalProperties": true, "required": true, "propertyOrdering": true,
}

// maxCandidates is the most candidates a model gives: the Gemini 2.5
// models take up to 8.
const maxCandidates = 8

// The cases' generation configs.
const (
	jsonSchemaConfig = `"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	cityResponse     = `{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}`
)

func outputRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: "gemini.function-calling-json-mime", Level: rules.MUST, Family: "shapes",
		Summary: "Before Gemini 3, a request that declares functions (mode other than NONE) cannot ask for responseMimeType application/json; Gemini 3 models combine structured outputs with function calling.",
		Refs: []rules.Ref{
			{URL: "https://github.com/symfony/ai/issues/1777", Quote: `gemini-2.5-flash: "400" - "INVALID_ARGUMENT": "Function calling with a response mime type: 'application/json' is unsupported"`},
			{URL: "https://github.com/analyticalrohit/ai-blog-generator/issues/17", Quote: "the same 400 on gemini-2.5-flash-lite"},
			{URL: "https://github.com/google/adk-python/issues/5735", Quote: "gemini-2.5-pro: 400 with mode AUTO or ANY; with mode NONE the agent runs successfully"},
			{URL: "https://ai.google.dev/gemini-api/docs/gemini-3", Quote: "Gemini 3 combines structured outputs with tools, function calling included"},
			{Quote: "Gemini 3 accepting it", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name: "JSON mode beside a function on gemini-2.5-flash (accepted on Gemini 3)", Path: path25, GoodPath: path3,
				Bad:        compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],` + jsonSchemaConfig + `}`),
				Good:       compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],` + jsonSchemaConfig + `}`),
				WantStatus: 400, WantMessage: MsgFunctionCallingJSONMime,
			},
			{
				Name: "JSON mode beside a function, mode ANY (mode NONE: accepted)", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}},"generationConfig":{"responseMimeType":"application/json"}}`),
				Good:       compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"NONE"}},"generationConfig":{"responseMimeType":"application/json"}}`),
				WantStatus: 400, WantMessage: MsgFunctionCallingJSONMime,
			},
		},
	}, checkFunctionCallingJSONMime)

	s.Add(rules.Rule{ID: "gemini.candidate-count-model", Level: rules.MUST, Family: "shapes",
		Summary: "Gemini 3 models give one candidate: candidateCount above 1 is refused (Gemini 2.5 models take several).",
		Refs: []rules.Ref{
			{URL: "https://github.com/googleapis/js-genai/issues/1609", Quote: `400 "Multiple candidates is not enabled for this model" on gemini-3-flash-preview, gemini-3.1-pro-preview and gemini-3.1-flash-lite; gemini-2.5-flash works`},
			{URL: "https://github.com/googleapis/python-genai/issues/1723", Quote: "the same 400 on gemini-3-pro-preview"},
		},
		Cases: []rules.Case{{
			Name: "candidateCount 2 on gemini-3-flash-preview (accepted on gemini-2.5-flash)", Path: path3, GoodPath: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"candidateCount":2}}`),
			Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"candidateCount":2}}`),
			WantStatus: 400, WantMessage: MsgMultipleCandidates,
		}},
	}, checkCandidatesModel)

	s.Add(rules.Rule{ID: "gemini.candidate-count-range", Level: rules.SHOULD, Family: "shapes",
		Summary: fmt.Sprintf("candidateCount should be between 1 and %d (journaled: no public source shows the API's answer beyond the range).", maxCandidates),
		Refs: []rules.Ref{
			{URL: "https://github.com/router-for-me/CLIProxyAPI/pull/879", Quote: "the Gemini 2.5 series supports up to 8 candidates"},
			{Quote: "the refusal's words", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "candidateCount 9", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"generationConfig":{"candidateCount":9}}`),
			Good: compact(`{"contents":[` + userAsk + `],"generationConfig":{"candidateCount":8}}`),
		}},
	}, checkCandidatesRange)

	s.Add(rules.Rule{ID: "gemini.response-schema-needs-mime", Level: rules.SHOULD, Family: "shapes",
		Summary: "responseSchema and responseJsonSchema should go with responseMimeType application/json (responseSchema also with text/x.enum): without it the answer is free text (journaled: no public source shows the API refusing it).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: `GenerationConfig.ResponseSchema: "If set, a compatible response_mime_type must also be set."`},
			{URL: "https://github.com/firebase/firebase-js-sdk/issues/9792", Quote: `an SDK's own check: "responseMimeType must be set if responseSchema or responseJsonSchema are set."`},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "responseJsonSchema without responseMimeType", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}}`),
			Good: compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}}`),
		}, {
			Name: "responseSchema with text/plain", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"text/plain","responseSchema":` + cityResponse + `}}`),
			Good: compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":` + cityResponse + `}}`),
		}},
	}, checkSchemaNeedsMime)

	s.Add(rules.Rule{ID: "gemini.response-one-schema", Level: rules.SHOULD, Family: "shapes",
		Summary: "A generationConfig should set responseSchema or responseJsonSchema, not both (journaled: no public source shows the API refusing both).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: "GenerationConfig.ResponseJsonSchema: \"If set, `response_schema` must be omitted\""},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "responseSchema and responseJsonSchema both set", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":` + cityResponse + `,"responseJsonSchema":{"type":"object"}}}`),
			Good: compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":` + cityResponse + `}}`),
		}},
	}, checkOneResponseSchema)

	s.Add(rules.Rule{ID: "gemini.response-json-schema-subset", Level: rules.SHOULD, Family: "shapes",
		Summary: "responseJsonSchema should use the JSON Schema keywords the API supports ($id, $defs, $ref, $anchor, type, format, title, description, enum, items, prefixItems, minItems, maxItems, minimum, maximum, anyOf, oneOf, properties, additionalProperties, required, propertyOrdering); others may be ignored (journaled: no public source shows the API refusing one).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: "GenerationConfig.ResponseJsonSchema: \"While the full JSON Schema may be sent, not all features are supported. Specifically, only the following properties are supported\""},
			{Quote: "what the API does with another keyword", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "const and pattern in a responseJsonSchema", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"city":{"type":"string","const":"Paris","pattern":"^P"}}}}}`),
			Good: compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"city":{"type":"string","enum":["Paris"]}}}}}`),
		}},
	}, checkJSONSchemaKeywords)

	s.Add(rules.Rule{ID: "gemini.allowed-function-names-mode", Level: rules.SHOULD, Family: "shapes",
		Summary: "allowedFunctionNames limits calls under mode ANY or VALIDATED only; with AUTO, NONE or no mode it limits nothing and should not be set (journaled: no public source shows the API's answer).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: `FunctionCallingConfig.AllowedFunctionNames: "Only set when the Mode is ANY"; FunctionCallingConfigModeValidated: "If allowed_function_names are set, the predicted function calls will be limited to any one of allowed_function_names"`},
			{URL: "https://github.com/tensorzero/tensorzero/issues/4872", Quote: "a gateway switching the mode to ANY when it sends allowed tools"},
			{Quote: "the API's answer", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "allowedFunctionNames with mode AUTO", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"AUTO","allowedFunctionNames":["get_weather"]}}}`),
			Good: compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED","allowedFunctionNames":["get_weather"]}}}`),
		}},
	}, checkAllowedNamesMode)
}

// responseMime is the request's responseMimeType, lower case ("" when
// none is set).
func responseMime(r *Request) string {
	if r.GenerationConfig == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(r.GenerationConfig.ResponseMIMEType))
}

// hasJSONSchema reports a responseJsonSchema that is set (null is unset).
func (g *GenerationConfig) hasJSONSchema() bool {
	return len(g.ResponseJSONSchema) > 0 && string(g.ResponseJSONSchema) != "null"
}

func checkFunctionCallingJSONMime(r *Request, env *rules.Env) []rules.Violation {
	if responseMime(r) != mimeJSON || declarationCount(r.Tools) == 0 || model.IsGemini3(modelOf(r, env)) {
		return nil
	}
	if fc := callingConfig(r); fc != nil && fc.Mode == "NONE" {
		return nil
	}
	return []rules.Violation{memberBreach("generationConfig.responseMimeType", MsgFunctionCallingJSONMime)}
}

func checkCandidatesModel(r *Request, env *rules.Env) []rules.Violation {
	g := r.GenerationConfig
	if g == nil || g.CandidateCount == nil || *g.CandidateCount <= 1 || !model.IsGemini3(modelOf(r, env)) {
		return nil
	}
	return []rules.Violation{memberBreach("generationConfig.candidateCount", MsgMultipleCandidates)}
}

func checkCandidatesRange(r *Request, _ *rules.Env) []rules.Violation {
	g := r.GenerationConfig
	if g == nil || g.CandidateCount == nil || (*g.CandidateCount >= 0 && *g.CandidateCount <= maxCandidates) {
		return nil
	}
	return []rules.Violation{memberBreach("generationConfig.candidateCount", fmt.Sprintf(msgCandidateCountRange, maxCandidates))}
}

func checkSchemaNeedsMime(r *Request, _ *rules.Env) []rules.Violation {
	g := r.GenerationConfig
	if g == nil {
		return nil
	}
	mime := responseMime(r)
	var out []rules.Violation
	if g.ResponseSchema != nil && mime != mimeJSON && mime != mimeEnum {
		out = append(out, memberBreach("generationConfig.responseSchema", fmt.Sprintf(msgSchemaWithoutMime, "response_schema")))
	}
	if g.hasJSONSchema() && mime != mimeJSON {
		out = append(out, memberBreach("generationConfig.responseJsonSchema", fmt.Sprintf(msgSchemaWithoutMime, "response_json_schema")))
	}
	return out
}

func checkOneResponseSchema(r *Request, _ *rules.Env) []rules.Violation {
	if g := r.GenerationConfig; g != nil && g.ResponseSchema != nil && g.hasJSONSchema() {
		return []rules.Violation{memberBreach("generationConfig.responseJsonSchema", msgTwoResponseSchemas)}
	}
	return nil
}

func checkAllowedNamesMode(r *Request, _ *rules.Env) []rules.Violation {
	fc := callingConfig(r)
	if fc == nil || len(fc.AllowedFunctionNames) == 0 || fc.Mode == "ANY" || fc.Mode == "VALIDATED" {
		return nil
	}
	mode := string(fc.Mode)
	if mode == "" {
		mode = "MODE_UNSPECIFIED"
	}
	return []rules.Violation{memberBreach("toolConfig.functionCallingConfig.allowedFunctionNames", fmt.Sprintf(msgAllowedNamesWrongModes, mode))}
}

// checkJSONSchemaKeywords reports the first keyword of responseJsonSchema
// outside the supported set, walking the sub-schemas: properties,
// $defs, items, prefixItems, anyOf, oneOf and additionalProperties.
func checkJSONSchemaKeywords(r *Request, _ *rules.Env) []rules.Violation {
	g := r.GenerationConfig
	if g == nil || !g.hasJSONSchema() {
		return nil
	}
	var root any
	if json.Unmarshal(g.ResponseJSONSchema, &root) != nil {
		return nil
	}
	// An explicit stack: a schema nested thousands deep walks in a loop.
	type node struct {
		schema any
		at     string
	}
	stack := []node{{root, ""}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		obj, ok := n.schema.(map[string]any)
		if !ok {
			continue
		}
		for _, k := range sortedKeys(obj) {
			if !jsonSchemaKeywords[k] && !strings.HasPrefix(k, "$") {
				return []rules.Violation{memberBreach("generationConfig.responseJsonSchema"+n.at+"."+k, fmt.Sprintf(msgJSONSchemaKeyword, n.at, k))}
			}
		}
		for _, key := range []string{"properties", "$defs"} {
			if m, ok := obj[key].(map[string]any); ok {
				for _, name := range sortedKeys(m) {
					stack = append(stack, node{m[name], n.at + "." + key + "." + name})
				}
			}
		}
		for _, key := range []string{"prefixItems", "anyOf", "oneOf"} {
			if list, ok := obj[key].([]any); ok {
				for i, sub := range list {
					stack = append(stack, node{sub, fmt.Sprintf("%s.%s[%d]", n.at, key, i)})
				}
			}
		}
		for _, key := range []string{"items", "additionalProperties"} {
			stack = append(stack, node{obj[key], n.at + "." + key})
		}
	}
	return nil
}

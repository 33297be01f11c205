package gemini

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The parsed request's members as the API validates them before reading
// the turns: contents and their parts present, function declarations well
// named with consistent schemas, a tool config that has tools to configure.

// Verbatim texts of the API (each rule's references say where seen).
const (
	MsgContentsMissing                  = "* GenerateContentRequest.contents: contents is not specified\n"
	MsgCallingConfigWithoutDeclarations = "Function calling config is set without function_declarations."
	msgRequiredUndefinedFormat          = "* GenerateContentRequest.%s.required[%d]: property is not defined\n"
	msgFunctionNameFormat               = "The GenerateContentRequest proto is invalid:\n  * tools[%d].function_declarations[%d].name: [FIELD_INVALID] Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
	// msgPartNoData is the answer to a part with no data member: the Part
	// message's data is a required oneof.
	msgPartNoData = "* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field\n"
)

// Texts no public source shows, worded in Google's style (their
// references mark them inferred).
const (
	msgAllowedUndeclaredFormat = "Function calling config allowed_function_names contains '%s', which is not declared in function_declarations."
	msgOneSchemaFormat         = "* GenerateContentRequest.tools[%d].function_declarations[%d]: %s and %s_json_schema cannot both be set.\n"
)

func memberRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: "gemini.function-calling-config-needs-declarations", Level: rules.MUST, Family: "shapes",
		Summary: "toolConfig.functionCallingConfig (any mode, allowedFunctionNames) needs tools: functions declared, or built-in tools (googleSearch, codeExecution…), beside which it is accepted.",
		Refs: []rules.Ref{
			{URL: "https://github.com/Chevey339/kelivo/issues/317", Quote: "a config with no tools"},
			{Quote: "beside built-in tools only accepted", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name: "mode ANY without any function declared", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`),
				Good:       compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`),
				WantStatus: 400, WantMessage: MsgCallingConfigWithoutDeclarations,
			},
			{
				Name: "mode AUTO with no tool at all (beside Google Search only: accepted)", Path: path25,
				Bad:        compact(`{"contents":[` + userAsk + `],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`),
				Good:       compact(`{"contents":[` + userAsk + `],"tools":[{"googleSearch":{}}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`),
				WantStatus: 400, WantMessage: MsgCallingConfigWithoutDeclarations,
			},
		},
	}, checkCallingConfigHasDeclarations)

	s.Add(rules.Rule{ID: "gemini.allowed-function-names-declared", Level: rules.SHOULD, Family: "shapes",
		Summary: "Every name in functionCallingConfig.allowedFunctionNames should be a declared function (journaled: no public source shows the API refusing one).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: `FunctionCallingConfig.AllowedFunctionNames: "Function names should match [FunctionDeclaration.Name]"`},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "allowedFunctionNames naming an undeclared function", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_time"]}}}`),
			Good: compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}}}`),
		}},
	}, checkAllowedNamesDeclared)

	s.Add(rules.Rule{ID: "gemini.parameters-one-schema", Level: rules.SHOULD, Family: "shapes",
		Summary: "A function declaration should set parameters or parametersJsonSchema (response or responseJsonSchema), not both (journaled: no public source shows the API refusing both).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: "FunctionDeclaration.ParametersJsonSchema: \"This field is mutually exclusive with `parameters`\""},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "parameters and parametersJsonSchema both set", Path: path25,
			Bad: body(strings.Replace(weatherFn, `"parameters":`, `"parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false},"parameters":`, 1), userAsk),
			Good: body(strings.Replace(weatherFn, `"parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}`,
				`"parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`, 1), userAsk),
		}},
	}, checkOneSchema)

	s.Add(rules.Rule{ID: "gemini.schema-required-defined", Level: rules.MUST, Family: "shapes",
		Summary: "Every name in a Schema's required list is one of its properties, in function parameters and in generationConfig.responseSchema alike.",
		Refs: []rules.Ref{{URL: "https://github.com/iBUHub/AIStudioToAPI/issues/154"},
			{Quote: "the response schema, the same Schema message, checked the same way (projects' notes quote the 400 at generation_config.response_schema.required[0]; no thread to link)", Inferred: true}},
		Cases: []rules.Case{{
			Name: "required names a property that is not declared", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"required":["city"]`, `"required":["city","ref"]`, 1), userAsk),
			Good:       body(weatherFn, userAsk),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgRequiredUndefinedFormat, "tools[0].function_declarations[0].parameters", 1),
		}, {
			Name: "a response schema's required names a property it does not declare", Path: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["town"]}}}`),
			Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}}`),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgRequiredUndefinedFormat, "generation_config.response_schema", 0),
		}},
	}, checkRequiredDefined)

	s.Add(rules.Rule{ID: "gemini.contents-required", Level: rules.MUST, Family: "shapes",
		Summary: "The request has at least one content.",
		Refs: []rules.Ref{
			{URL: "https://github.com/langchain-ai/langchain-google/issues/1393", Quote: `"400 - contents is not specified"`},
			{Quote: "full text", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "no contents", Path: path25,
			Bad:        compact(`{"contents":[],"tools":[` + weatherFn + `]}`),
			Good:       body(weatherFn, userAsk),
			WantStatus: 400, WantMessage: MsgContentsMissing,
		}},
	}, checkContents)

	s.Add(rules.Rule{ID: "gemini.part-has-data", Level: rules.MUST, Family: "shapes",
		Summary: "Every part carries one piece of data (text, inlineData, fileData, functionCall, functionResponse, executableCode, codeExecutionResult, toolCall or toolResponse); a part of metadata alone ({} or only a thought signature) is refused.",
		Refs: []rules.Ref{
			{URL: "https://github.com/genkit-ai/genkit/issues/3816", Quote: `verbatim 400: "* GenerateContentRequest.contents[1].parts[0].data: required oneof field 'data' must have one initialized field"`},
			{URL: "https://github.com/google-gemini/gemini-cli/issues/5575"},
		},
		Cases: []rules.Case{{
			Name: "an empty part", Path: path25,
			Bad:        compact(`{"contents":[{"role":"user","parts":[{"text":"What's the weather in Paris?"},{}]}]}`),
			Good:       compact(`{"contents":[{"role":"user","parts":[{"text":"What's the weather in Paris?"},{"text":" "}]}]}`),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgPartNoData, 0, 1),
		}},
	}, checkPartHasData)

	s.Add(rules.Rule{ID: "gemini.function-name-valid", Level: rules.MUST, Family: "shapes",
		Summary: "Declared function names start with a letter or underscore and use a-z, A-Z, 0-9, _ . : - (at most 64).",
		Refs:    []rules.Ref{{URL: "https://github.com/decolua/9router/issues/369"}},
		Cases: []rules.Case{{
			Name: "function name with a space", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"get_weather"`, `"get weather"`, 1), userAsk),
			Good:       body(weatherFn, userAsk),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgFunctionNameFormat, 0, 0),
		}},
	}, checkFunctionNames)
}

func checkContents(r *Request, _ *rules.Env) []rules.Violation {
	if len(r.Contents) == 0 {
		return []rules.Violation{memberBreach("contents", MsgContentsMissing)}
	}
	return nil
}

// checkPartHasData reports the first empty part only: a body of a million
// empty parts must not cost a million violations.
func checkPartHasData(r *Request, _ *rules.Env) []rules.Violation {
	shapes := r.contentShapes()
	for i, c := range r.Contents {
		if !shapes[i].emptyPart {
			continue
		}
		for j := range c.Parts {
			if !c.Parts[j].hasData() {
				return []rules.Violation{memberBreach(fmt.Sprintf("contents[%d].parts[%d]", i, j), fmt.Sprintf(msgPartNoData, i, j))}
			}
		}
	}
	return nil
}

// hasData reports whether the part carries one of the data fields.
func (p *Part) hasData() bool {
	return p.Text != nil || p.InlineData != nil || p.FileData != nil || p.FunctionCall != nil || p.FunctionResponse != nil ||
		p.ExecutableCode != nil || p.CodeExecutionResult != nil || p.ToolCall != nil || p.ToolResponse != nil
}

func checkFunctionNames(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, t := range r.Tools {
		for j, fd := range t.FunctionDeclarations {
			if !validFunctionName(fd.Name) {
				out = append(out, memberBreach(fmt.Sprintf("tools[%d].functionDeclarations[%d].name", i, j), fmt.Sprintf(msgFunctionNameFormat, i, j)))
			}
		}
	}
	return out
}

// validFunctionName reports what `^[A-Za-z_][A-Za-z0-9_.:\-]{0,63}$`
// matches: a letter or underscore, then at most 63 letters, digits and
// _ . : -. It is written out because the regexp ran on every declared
// tool of every request (the pattern itself is kept in the tests).
func validFunctionName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '.' || c == ':' || c == '-')) {
			return false
		}
	}
	return true
}

func callingConfig(r *Request) *FunctionCallingConfig {
	if r.ToolConfig == nil {
		return nil
	}
	return r.ToolConfig.FunctionCallingConfig
}

// checkCallingConfigHasDeclarations: a functionCallingConfig with no tool
// at all is refused; beside built-in tools only (googleSearch…) it is
// accepted, as a config for tools the request may add later.
func checkCallingConfigHasDeclarations(r *Request, _ *rules.Env) []rules.Violation {
	if callingConfig(r) == nil || declarationCount(r.Tools) > 0 || slices.ContainsFunc(r.Tools, builtIn) {
		return nil
	}
	return []rules.Violation{memberBreach("toolConfig.functionCallingConfig", MsgCallingConfigWithoutDeclarations)}
}

func checkAllowedNamesDeclared(r *Request, _ *rules.Env) []rules.Violation {
	fc := callingConfig(r)
	if fc == nil || declarationCount(r.Tools) == 0 {
		return nil
	}
	declared := map[string]bool{}
	for _, t := range r.Tools {
		for _, fd := range t.FunctionDeclarations {
			declared[fd.Name] = true
		}
	}
	for k, name := range fc.AllowedFunctionNames {
		if !declared[name] {
			return []rules.Violation{memberBreach(fmt.Sprintf("toolConfig.functionCallingConfig.allowedFunctionNames[%d]", k), fmt.Sprintf(msgAllowedUndeclaredFormat, name))}
		}
	}
	return nil
}

// builtIn reports a tool entry that enables a built-in tool (Google
// Search, code execution, URL context…) rather than declaring functions.
func builtIn(t Tool) bool {
	for _, o := range []Object{t.GoogleSearch, t.GoogleSearchRetrieval, t.GoogleMaps, t.CodeExecution, t.ComputerUse, t.FileSearch,
		t.URLContext, t.Retrieval, t.EnterpriseWebSearch, t.ParallelAISearch, t.ExaAISearch} {
		if len(o) > 0 && string(o) != "null" {
			return true
		}
	}
	return len(t.MCPServers) > 0
}

// declarationCount is the number of function declarations of all tools.
func declarationCount(tools []Tool) int {
	n := 0
	for _, t := range tools {
		n += len(t.FunctionDeclarations)
	}
	return n
}

func checkOneSchema(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, t := range r.Tools {
		for j, fd := range t.FunctionDeclarations {
			both := func(a *Schema, b []byte, name string) {
				if a != nil && len(b) > 0 {
					out = append(out, memberBreach(fmt.Sprintf("tools[%d].functionDeclarations[%d].%sJsonSchema", i, j, name),
						fmt.Sprintf(msgOneSchemaFormat, i, j, name, name)))
				}
			}
			both(fd.Parameters, fd.ParametersJSONSchema, "parameters")
			both(fd.Response, fd.ResponseJSONSchema, "response")
		}
	}
	return out
}

func checkRequiredDefined(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	// The path is a stack of segments, joined only for a violation: a
	// string per level made a deep schema cost its depth squared.
	var at []string
	var walk func(s *Schema)
	walk = func(s *Schema) {
		if s == nil {
			return
		}
		path := ""
		for k, name := range s.Required {
			if _, ok := s.Properties[name]; !ok {
				if path == "" {
					path = strings.Join(at, "")
				}
				out = append(out, memberBreach(path+fmt.Sprintf(".required[%d]", k), fmt.Sprintf(msgRequiredUndefinedFormat, path, k)))
			}
		}
		n := len(at)
		for _, name := range sortedKeys(s.Properties) {
			at = append(at[:n], ".properties["+name+"]")
			walk(s.Properties[name])
		}
		at = append(at[:n], ".items")
		walk(s.Items)
		for k, a := range s.AnyOf {
			at = append(at[:n], fmt.Sprintf(".any_of[%d]", k))
			walk(a)
		}
		at = at[:n]
	}
	for i, t := range r.Tools {
		for j, fd := range t.FunctionDeclarations {
			at = append(at[:0], fmt.Sprintf("tools[%d].function_declarations[%d].parameters", i, j))
			walk(fd.Parameters)
		}
	}
	// The response schema is the same Schema message, checked the same way
	// [inferred: the captured refusal is of function parameters].
	if g := r.GenerationConfig; g != nil {
		at = append(at[:0], "generation_config.response_schema")
		walk(g.ResponseSchema)
	}
	return out
}

package openaichat

import (
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Function declarations (names, schemas, strict mode) and the controls
// that steer the model to them (tool_choice, parallel_tool_calls).

var RuleToolNamePattern = set.Add(rules.Rule{
	ID: "openai-chat.tool-name-pattern", Level: rules.MUST, Family: familyShapes,
	Summary: "Function names match ^[a-zA-Z0-9_-]+$ and are at most 64 characters.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools", Quote: "function.name: a-z, A-Z, 0-9, _ and -, max 64"},
		{URL: "https://github.com/brekkylab/ailoy/pull/109", Quote: "verbatim 400"},
	},
	Cases: []rules.Case{
		{Name: "function name with a dot",
			Bad:        body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "weather.get", "parameters": obj{"type": "object"}}}}}),
			Good:       body(hi, obj{"tools": arr{obj{"type": "function", "function": obj{"name": "weather_get", "parameters": obj{"type": "object"}}}}}),
			WantStatus: 400, WantMessage: "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."},
	},
}, checkNames)

// checkNames passes only names that break the pattern or the length:
// openaiwire.CheckNames reports exactly those.
func checkNames(r *Request, _ *rules.Env) []rules.Violation {
	var buf [4]openaiwire.ToolDecl
	if ds := decls(buf[:0], r, func(i int) int { return atTool(r, i) }, func(t Tool) bool { return !validName(t.Name) }); len(ds) > 0 {
		return openaiwire.CheckNames(ds)
	}
	return nil
}

// validName is ^[a-zA-Z0-9_-]+$ with at most 64 characters, the test
// openaiwire.CheckNames makes, without the regexp.
func validName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

var RuleToolSchemaValid = set.Add(rules.Rule{
	ID: "openai-chat.tool-schema-valid", Level: rules.MUST, Family: familyShapes,
	Summary: "Function parameters are a valid JSON Schema of an object.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/function-calling", Quote: "parameters: JSON Schema object"},
		{URL: "https://github.com/sigoden/aichat/pull/1049", Quote: "verbatim 400"},
	},
	Cases: []rules.Case{
		{Name: "array without items",
			Bad:        body(hi, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"paths": obj{"type": "array"}}}, false)}}),
			Good:       body(hi, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"paths": obj{"type": "array", "items": obj{"type": "string"}}}}, false)}}),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=('properties', 'paths'), array schema missing items."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	// Only the declarations with parameters: CheckSchemas skips the others.
	var buf [4]openaiwire.ToolDecl
	if ds := decls(buf[:0], r, atMeaning, func(t Tool) bool { return len(t.Parameters) > 0 }); len(ds) > 0 {
		return openaiwire.CheckSchemas(ds)
	}
	return nil
})

var RuleStrictSchema = set.Add(rules.Rule{
	ID: "openai-chat.strict-schema", Level: rules.MUST, Family: familyShapes, Feature: "strict",
	Summary: "A strict function's object schemas set additionalProperties: false and require every property.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/function-calling#strict-mode"},
		{URL: "https://github.com/kevinwatt/mysql-mcp/issues/5", Quote: "verbatim 400"},
	},
	Cases: []rules.Case{
		{Name: "strict without additionalProperties false",
			Bad:        body(hi, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}}, true)}}),
			Good:       body(hi, obj{"tools": arr{toolWith(obj{"type": "object", "properties": obj{"city": obj{"type": "string"}}, "required": arr{"city"}, "additionalProperties": false}, true)}}),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	// Only the strict declarations with parameters: CheckStrict skips the
	// others.
	var buf [4]openaiwire.ToolDecl
	if ds := decls(buf[:0], r, atMeaning, func(t Tool) bool { return t.Strict && len(t.Parameters) > 0 }); len(ds) > 0 {
		return openaiwire.CheckStrict(ds)
	}
	return nil
})

// decls lists the declared functions for the shared openaiwire checks,
// each at the place at(tool index) gives; tools without a name are left
// to the required-fields rule. keep picks the declarations a check can
// say something about: each openaiwire check judges every declaration on
// its own and skips the others, so leaving them out changes no verdict,
// and a request whose tools are all fine builds no list and no paths at
// all.
//
// The list is appended to out, which callers back with an array on their
// stack (the openaiwire checks keep no reference to the slice).
func decls(out []openaiwire.ToolDecl, r *Request, at func(int) int, keep func(Tool) bool) []openaiwire.ToolDecl {
	for _, t := range r.Tools {
		if t.Type != "function" || !t.HasName || !keep(t) {
			continue
		}
		out = append(out, openaiwire.ToolDecl{Name: t.Name, Parameters: t.Parameters, Strict: t.Strict,
			Path: toolFunctionPath(t.Index), Order: at(t.Index)})
	}
	return out
}

// toolFunctionPaths are "tools[N].function" for the first few tools,
// built once so a check costs no formatting. Written only at package
// initialization and read-only after, so sharing it is safe.
var toolFunctionPaths = func() (p [16]string) {
	for i := range p {
		p[i] = toolPath(i) + ".function"
	}
	return p
}()

func toolFunctionPath(i int) string {
	if i < len(toolFunctionPaths) {
		return toolFunctionPaths[i]
	}
	return toolPath(i) + ".function"
}

var RuleToolControlsNeedTools = set.Add(rules.Rule{
	ID: "openai-chat.tool-controls-need-tools", Level: rules.MUST, Family: familyShapes,
	Summary: `tool_choice and parallel_tool_calls are sent only with tools (and the legacy function_call only with functions); tool_choice "none" without tools is refused too.`,
	Refs: []rules.Ref{
		{URL: "https://github.com/RageAgainstThePixel/OpenAI-DotNet/issues/479", Quote: "verbatim 400, param tool_choice, code null"},
		{URL: "https://github.com/openai/swarm/issues/30", Quote: "parallel_tool_calls, verbatim"},
		{URL: "https://github.com/openai/openai-openapi/pull/287", Quote: "parallel_tool_calls, verbatim"},
		{URL: "https://github.com/Azure-Samples/azure-search-openai-demo/pull/1175", Quote: "function_call, verbatim"},
		{URL: "https://github.com/vllm-project/vllm/pull/40311", Quote: `tool_choice "none" without tools refused by the real API`},
	},
	Cases: []rules.Case{
		{Name: "tool_choice without tools",
			Bad: body(hi, obj{"tools": nil, "tool_choice": "none"}), Good: body(hi, obj{"tools": nil}),
			WantStatus: 400, WantMessage: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."},
		{Name: "parallel_tool_calls without tools",
			Bad: body(hi, obj{"tools": nil, "parallel_tool_calls": false}), Good: body(hi, obj{"tools": nil}),
			WantStatus: 400, WantMessage: "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."},
		{Name: "function_call without functions",
			Bad: body(hi, obj{"tools": nil, "function_call": "auto"}), Good: body(hi, obj{"tools": nil}),
			WantStatus: 400, WantMessage: "Invalid value for 'function_call': 'function_call' is only allowed when 'functions' are specified."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	if len(r.Tools) == 0 {
		if r.ToolChoiceSent {
			out = append(out, onlyWithTools("tool_choice", "tools"))
		}
		if r.ParallelToolCalls != nil {
			out = append(out, onlyWithTools("parallel_tool_calls", "tools"))
		}
	}
	if r.FunctionCallSent && !r.FunctionsSent {
		out = append(out, onlyWithTools("function_call", "functions"))
	}
	return out
})

// onlyWithTools is the API's answer to a tool control sent without the
// tools it controls, e.g. "Invalid value for 'tool_choice': 'tool_choice'
// is only allowed when 'tools' are specified."
func onlyWithTools(param, tools string) rules.Violation {
	return badRequest(requestLevel, param, param, "",
		fmt.Sprintf("Invalid value for '%s': '%s' is only allowed when '%s' are specified.", param, param, tools))
}

var RuleForcedToolDeclared = set.Add(rules.Rule{
	ID: "openai-chat.forced-tool-declared", Level: rules.SHOULD, Family: familyShapes,
	Summary: "A tool_choice that forces a named function (or custom tool) names one declared in tools. Journaled, not answered: no public capture shows the API's answer to an undeclared name.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice", Quote: "forces the named tool"},
		{Quote: "that the API refuses an undeclared name, and the text, are inferred", Inferred: true},
	},
	Cases: []rules.Case{
		{Name: "forced function not declared",
			Bad:         body(hi, obj{"tool_choice": obj{"type": "function", "function": obj{"name": "get_time"}}}),
			Good:        body(hi, obj{"tool_choice": obj{"type": "function", "function": obj{"name": "get_weather"}}}),
			WantMessage: "Invalid value for 'tool_choice': the function 'get_time' is not among the 'tools' of this request."},
	},
}, checkForcedToolDeclared)

// checkForcedToolDeclared: the forced name must be a declared tool of the
// same kind. Without tools the tool-controls rule answers instead.
func checkForcedToolDeclared(r *Request, _ *rules.Env) []rules.Violation {
	if len(r.Tools) == 0 || (r.ToolChoice.Mode != "function" && r.ToolChoice.Mode != "custom") {
		return nil
	}
	for _, t := range r.Tools {
		if t.Type == r.ToolChoice.Mode && t.HasName && t.Name == r.ToolChoice.Name {
			return nil
		}
	}
	p := "tool_choice." + r.ToolChoice.Mode + ".name"
	return []rules.Violation{badRequest(requestLevel, p, "tool_choice", "invalid_value",
		fmt.Sprintf("Invalid value for 'tool_choice': the %s '%s' is not among the 'tools' of this request.", kindWord(r.ToolChoice.Mode), r.ToolChoice.Name))}
}

func kindWord(mode string) string {
	if mode == "custom" {
		return "custom tool"
	}
	return "function"
}

package openairesp

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Function declarations (names, schemas, strict mode) and the tool_choice
// that forces one of the declared tools.

var RuleFunctionName = set.Add(rules.Rule{
	ID: "openai-responses.function-name-pattern", Level: rules.MUST, Family: familyShapes,
	Summary: "Function names match ^[a-zA-Z0-9_-]+$ and are at most 64 characters.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/function-calling", Quote: "name pattern"},
		{URL: "https://github.com/justrach/codegraff/issues/930", Quote: "verbatim: Invalid 'tools[16].name': string does not match pattern. …, code invalid_value"},
		{URL: "https://github.com/openai/openai-dotnet/issues/441"},
	},
	Cases: []rules.Case{
		{
			Name:       "function name with a space",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get weather","parameters":{"type":"object","properties":{}}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{}}}]}`),
			WantStatus: 400, WantMessage: "Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
		},
	},
}, toolCheck(openaiwire.CheckNames))

var RuleFunctionSchema = set.Add(rules.Rule{
	ID: "openai-responses.function-schema-valid", Level: rules.MUST, Family: familyShapes,
	Summary: "A function's parameters is a valid JSON Schema of an object.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/function-calling", Quote: "parameters is a JSON Schema object"},
		{URL: "https://github.com/SamSaffron/term-llm/pull/180", Quote: "Responses answers schema problems as Invalid schema for function '…': …, verbatim"},
		{URL: "https://github.com/sigoden/aichat/pull/1049", Quote: "the non-object verdict, verbatim from Chat Completions"},
		{Quote: "that Responses shares the non-object verdict", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name:       "parameters not an object schema",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"array","items":{"type":"string"}}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`),
			WantStatus: 400, WantMessage: `Invalid schema for function 'get_weather': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`,
		},
	},
}, toolCheck(openaiwire.CheckSchemas))

var RuleStrictSchema = set.Add(rules.Rule{
	ID: "openai-responses.strict-schema", Level: rules.MUST, Family: familyShapes,
	Summary: "A strict function's object schemas set additionalProperties: false and require every property.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"},
		{URL: "https://github.com/YourGPT/copilot-sdk/pull/108", Quote: "Responses, verbatim: Invalid schema for function 'create_booking': In context=('properties','metadata'), 'additionalProperties' is required to be supplied and to be false."},
	},
	Cases: []rules.Case{
		{
			Name:       "strict function without additionalProperties:false",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tools":[{"type":"function","name":"get_weather","strict":true,"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.",
		},
	},
}, toolCheck(openaiwire.CheckStrict))

// toolCheck adapts an openaiwire declaration check to the Responses
// tools list (param paths "tools[N].name").
func toolCheck(check func([]openaiwire.ToolDecl) []rules.Violation) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, _ *rules.Env) []rules.Violation {
		return check(toolDecls(r))
	}
}

// toolDecls lists the function declarations once per request: three
// checks read them, and the list (with its param paths) is the same each
// time. The checks only read it.
func toolDecls(r *Request) []openaiwire.ToolDecl {
	if !r.declsDone {
		r.decls, r.declsDone = buildToolDecls(r), true
	}
	return r.decls
}

func buildToolDecls(r *Request) []openaiwire.ToolDecl {
	var decls []openaiwire.ToolDecl
	for i, t := range r.Tools {
		if t.Type != "function" || t.Name == nil {
			continue
		}
		params := t.Parameters
		if params.Kind() == 'n' {
			params = nil
		}
		if decls == nil {
			decls = make([]openaiwire.ToolDecl, 0, len(r.Tools))
		}
		decls = append(decls, openaiwire.ToolDecl{Name: *t.Name, Parameters: []byte(params), Strict: t.Strict != nil && *t.Strict,
			Path: toolPath(i), Order: atTool(r, i)})
	}
	return decls
}

// toolPaths are the paths of the first tools, made once: every request
// lists its declarations.
var toolPaths = func() (p [16]string) {
	for i := range p {
		p[i] = "tools[" + strconv.Itoa(i) + "]"
	}
	return p
}()

func toolPath(i int) string {
	if i < len(toolPaths) {
		return toolPaths[i]
	}
	return "tools[" + strconv.Itoa(i) + "]"
}

// strictCompatible reports whether a schema meets strict mode, which the
// API turns on for a function that leaves strict unset [I]: the encoder
// echoes tools with that effective flag.
func strictCompatible(params jsontext.Value) bool {
	if len(params) == 0 {
		return false
	}
	return len(openaiwire.CheckStrict([]openaiwire.ToolDecl{{Name: "f", Parameters: []byte(params), Strict: true}})) == 0
}

// strictVerdicts is what a session knows of its tools' schemas under
// strict mode, by schema: a Response echoes every function tool with its
// effective strict flag, an agent loop declares the same tools on every
// request, and checking a schema again (parsing it whole) was a tenth of
// the mock's work on a Responses turn (BenchmarkHandler).
var strictVerdicts = session.NewKept(
	func(session.Limits) int { return 64 },
	func(v strictVerdict) int64 { return int64(v.schema) + 64 },
)

type strictVerdict struct {
	compatible bool
	schema     int // the id's length
}

// strictCompatibleIn is strictCompatible, kept by session s (nil: none).
func strictCompatibleIn(s *session.Session, params jsontext.Value) bool {
	if s == nil || len(params) == 0 {
		return strictCompatible(params)
	}
	if v, ok := strictVerdicts.Get(s, string(params)); ok {
		return v.compatible
	}
	ok := strictCompatible(params)
	strictVerdicts.Put(s, session.KeptItem[strictVerdict]{ID: string(params), Value: strictVerdict{compatible: ok, schema: len(params)}})
	return ok
}

var RuleToolChoice = set.Add(rules.Rule{
	ID: "openai-responses.tool-choice-declared", Level: rules.MUST, Family: familyShapes,
	Summary: "tool_choice is only sent with tools, and a tool_choice that forces one tool (function, custom or hosted) names a tool declared in tools.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create", Quote: "tool_choice"},
		{URL: "https://github.com/openai/swarm/issues/30", Quote: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."},
		{URL: "https://github.com/raine/claude-code-proxy/issues/26", Quote: "verbatim: Tool choice 'web_search_preview' not found in 'tools' parameter."},
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go", Quote: "ResponseInputItemAdditionalToolsParam: tools of additional_tools input items count as declared"},
		{Quote: "param and code", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name:       "tool_choice without tools",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":"required"}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":"required","tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
		},
		{
			Name:       "forced function that is not declared",
			Bad:        js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":{"type":"function","name":"get_time"},"tools":[$TOOL]}`),
			Good:       js(`{"model":"gpt-4.1","input":"Weather?","tool_choice":{"type":"function","name":"get_weather"},"tools":[$TOOL]}`),
			WantStatus: 400, WantMessage: "Tool choice 'get_time' not found in 'tools' parameter.",
		},
		{
			Name: "forced function declared nowhere, then in an additional_tools item",
			Bad:  js(`{"model":"gpt-4.1","tool_choice":{"type":"function","name":"get_weather"},"input":[{"role":"user","content":"Weather in Tokyo?"}]}`),
			Good: js(`{"model":"gpt-4.1","tool_choice":{"type":"function","name":"get_weather"},"input":[{"type":"additional_tools","role":"developer","tools":[$TOOL]},
				{"role":"user","content":"Weather in Tokyo?"}]}`),
			WantStatus: 400, WantMessage: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
		},
	},
}, checkToolChoice)

// declaredTools are the tools a request declares: its tools, then those of
// its additional_tools input items (the API reads both; a tool_choice may
// name a tool that only an additional_tools item brings).
func declaredTools(r *Request) []*ToolUnionParam {
	var out []*ToolUnionParam
	for i := range r.W.Tools {
		out = append(out, &r.W.Tools[i])
	}
	for _, a := range r.additionalTools {
		for j := range a.Tools {
			out = append(out, &a.Tools[j])
		}
	}
	return out
}

// checkToolChoice: what tool_choice names is read after every tool is,
// at the start of the conversation's meaning.
func checkToolChoice(r *Request, _ *rules.Env) []rules.Violation {
	if len(r.ToolChoice) == 0 || r.ToolChoice.Kind() == 'n' {
		return nil
	}
	order := atEffective(0)
	tools := declaredTools(r)
	if len(tools) == 0 {
		return []rules.Violation{violation(order, "tool_choice", "tool_choice", nil,
			"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.")}
	}
	tc := &r.W.ToolChoice
	var want, kind string
	switch {
	case tc.OfFunctionTool != nil:
		want, kind = str(tc.OfFunctionTool.Name), "function"
	case tc.OfCustomTool != nil:
		want, kind = str(tc.OfCustomTool.Name), "custom"
	case tc.OfHostedTool != nil:
		want, kind = tc.OfHostedTool.Type, ""
	default:
		return nil
	}
	for _, t := range tools {
		switch {
		case kind == "function" && t.OfFunction != nil && str(t.OfFunction.Name) == want,
			kind == "custom" && t.OfCustom != nil && str(t.OfCustom.Name) == want,
			kind == "" && typeOf([]jsontext.Value{t.raw}, 0) == want:
			return nil
		}
	}
	return []rules.Violation{violation(order, "tool_choice", "tool_choice", nil, fmt.Sprintf("Tool choice '%s' not found in 'tools' parameter.", want))}
}

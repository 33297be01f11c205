package openairesp

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Rule IDs of the Responses dialect.
const (
	RuleToolOutput        = "openai-responses.tool-output-required"
	RuleToolCall          = "openai-responses.output-needs-call"
	RuleReasoningBefore   = "openai-responses.reasoning-before-call"
	RuleReasoningFollowed = "openai-responses.reasoning-needs-following-item"
	RulePreviousResponse  = "openai-responses.previous-response-known"
	RuleRequiredFields    = "openai-responses.required-fields"
	RuleArgumentsString   = "openai-responses.arguments-string"
	RuleMessageRole       = "openai-responses.message-role"
	RuleAssistantContent  = "openai-responses.assistant-content-type"
	RuleFunctionName      = "openai-responses.function-name-pattern"
	RuleFunctionSchema    = "openai-responses.function-schema-valid"
	RuleStrictSchema      = "openai-responses.strict-schema"
	RuleKnownFields       = "openai-responses.known-fields"
	RuleFieldTypes        = "openai-responses.field-types"
	RuleValidJSON         = "openai-responses.valid-json"
	RuleUniqueItemIDs     = "openai-responses.unique-item-ids"
	RuleItemsPersisted    = "openai-responses.items-persisted"
	RuleItemReference     = "openai-responses.item-reference-known"
	RuleToolChoice        = "openai-responses.tool-choice-declared"
)

// Where breaches sit relative to one another: the API validates the
// request's shape (fields, types, tools) before it reads the conversation,
// so structural breaches get orders below every item index.
const (
	orderStructure = -3_000_000 // + item index
	orderTools     = -2_000_000 // + tool index
	orderPrevious  = -1_000_000
)

func (d *Dialect) Rules() []rules.Rule { return d.rules }

func catalog() []rules.Rule {
	r := func(id, summary, source, feature string, check rules.CheckFunc) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.OpenAIResponses, Level: rules.MUST, Summary: summary, Source: source, Feature: feature, Check: check}
	}
	return []rules.Rule{
		r(RuleValidJSON, "The body is JSON in UTF-8 (a syntax error or invalid UTF-8 gets the API's parse error; the body is never stored raw).",
			"https://github.com/ChatGPTNextWeb/NextChat/issues/4064 (the parse error envelope, verbatim) [I for invalid UTF-8]", "", judgedWhileDecoding),
		r(RuleKnownFields, "Every member is one the API defines, at the top level and nested (Unknown parameter: 'input[1].metadata'.). With --lenient, unknown members are journaled instead.",
			"https://github.com/microsoft/agent-framework/issues/2203 (Unknown parameter: 'input[1].metadata'., code unknown_parameter); https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go (ResponseNewParams fields)", "", checkKnownFields),
		r(RuleFieldTypes, "Every member has its type (strings, integers, decimals, booleans, arrays, objects, the string-or-array unions), numbers are in range (temperature 0–2, top_p 0–1), objects have no member twice, union objects have a supported type, and an input_file is of a file type the API reads.",
			"https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go (ResponseNewParams field types); https://github.com/Wei-Shaw/sub2api/issues/3818 (verbatim: Invalid type for 'input[40].arguments': expected an object, but got a string instead., param input[40].arguments, code invalid_type, for a tool_search_call); duplicate-member and out-of-range texts [I]; "+
				openaiwire.SamplingRangesSource+"; "+inputFileSource, "", checkFieldValues),
		r(RuleRequiredFields, "Every input item carries its required fields (function_call: call_id, name, arguments; function_call_output: call_id, output; message: role, content; reasoning: id, summary), and model and input are present (a stored prompt carries both).",
			"https://platform.openai.com/docs/api-reference/responses/create (required item fields); testdata/corpus/datadog-dd-trace-py.jsonl (recorded 200s: a stored prompt without model or input); message [I] in the API's Missing required parameter form", "", checkRequired),
		r(RuleArgumentsString, "A replayed function_call's arguments is a JSON-encoded string, not an object.",
			"https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go (function_call arguments: a JSON-encoded string); https://github.com/Wei-Shaw/sub2api/issues/3818 (the API type-checks input[N].arguments in this wording, verbatim for a tool_search_call); the function_call case [I]", "", checkArgumentsString),
		r(RuleMessageRole, "A message's role is assistant, system, developer or user: the Responses API has no 'tool' role (results are function_call_output items).",
			"https://platform.openai.com/docs/api-reference/responses/create (input message roles); https://github.com/anomalyco/opencode/issues/10803 (verbatim: Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.); param and code [I]", "", checkMessageRole),
		r(RuleAssistantContent, "An assistant message's content parts are output_text or refusal, not input_text.",
			"https://platform.openai.com/docs/api-reference/responses/create (output message content); https://github.com/NousResearch/hermes-agent/issues/15687 (verbatim 400, param input[109].content[0], code invalid_value); https://dev.to/flarecanary/openai-responses-api-started-rejecting-inputtext-with-no-warning-heres-the-fix-and-why-it-keeps-2l49", "", checkAssistantContent),
		r(RuleFunctionName, "Function names match ^[a-zA-Z0-9_-]+$ and are at most 64 characters.",
			"https://platform.openai.com/docs/guides/function-calling (name pattern); https://github.com/justrach/codegraff/issues/930 (verbatim: Invalid 'tools[16].name': string does not match pattern. …, code invalid_value); https://github.com/openai/openai-dotnet/issues/441", "", toolCheck(openaiwire.CheckNames)),
		r(RuleFunctionSchema, "A function's parameters is a valid JSON Schema of an object.",
			"https://platform.openai.com/docs/guides/function-calling (parameters is a JSON Schema object); https://github.com/SamSaffron/term-llm/pull/180 (Responses answers schema problems as Invalid schema for function '…': …, verbatim); https://github.com/sigoden/aichat/pull/1049 (the non-object verdict, verbatim from Chat Completions; that Responses shares it [I])", "", toolCheck(openaiwire.CheckSchemas)),
		r(RuleStrictSchema, "A strict function's object schemas set additionalProperties: false and require every property.",
			"https://platform.openai.com/docs/guides/structured-outputs#supported-schemas; https://github.com/YourGPT/copilot-sdk/pull/108 (Responses, verbatim: Invalid schema for function 'create_booking': In context=('properties','metadata'), 'additionalProperties' is required to be supplied and to be false.)", "", toolCheck(openaiwire.CheckStrict)),
		r(RuleToolChoice, "tool_choice is only sent with tools, and a tool_choice that forces one tool (function, custom or hosted) names a tool declared in tools.",
			"https://platform.openai.com/docs/api-reference/responses/create (tool_choice); https://github.com/openai/swarm/issues/30 (Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.) [V]; https://github.com/raine/claude-code-proxy/issues/26 (verbatim: Tool choice 'web_search_preview' not found in 'tools' parameter.); https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go (ResponseInputItemAdditionalToolsParam: tools of additional_tools input items count as declared); param and code [I]", "", checkToolChoice),
		r(RulePreviousResponse, "previous_response_id names a stored response of the same key (store:false responses cannot be continued).",
			"https://platform.openai.com/docs/api-reference/responses/create (previous_response_id); https://github.com/maximhq/bifrost/issues/2441 (verbatim: Previous response with id 'resp_…' not found., code previous_response_not_found); param [I]", "", checkPrevious),
		r(RuleUniqueItemIDs, "No two items of the effective conversation (stored items of previous_response_id included) carry the same id.",
			"https://github.com/continuedev/continue/issues/10723 (Duplicate item found with id rs_…. Remove duplicate items from your input and try again., param input)", "", checkUniqueItemIDs),
		r(RuleItemsPersisted, "An item the API must look up by its id has to be stored: an item_reference to an item of a store:false response, or from a store:false request, and a reasoning item sent back without its encrypted_content in a store:false request, are not found (404).",
			"https://github.com/can1357/oh-my-pi/issues/41 (a store:false request replaying a reasoning item by id: 404 Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.); https://github.com/anomalyco/opencode/issues/7724; param and code [I]", "", checkItemsPersisted),
		r(RuleItemReference, "An item_reference names an item the API stored (an output or input item of a stored response of the same key) or an earlier item of the input; it then stands for that item.",
			"https://platform.openai.com/docs/api-reference/responses/create (input item_reference: an internal identifier for an item to reference); https://github.com/vercel/ai/issues/10290 (verbatim 404: Item with id 'rs_…' not found., param input, code null)", "", checkItemReferences),
		r(RuleToolOutput, "Every function_call of the effective conversation (stored items included) is answered by a function_call_output with its call_id.",
			"https://platform.openai.com/docs/guides/function-calling (every function_call gets a function_call_output); https://github.com/router-for-me/CLIProxyAPI/issues/2368 (verbatim 400: No tool output found for function call call_…., param input, code null); https://github.com/openai/codex/issues/620", "", checkToolOutputs),
		r(RuleToolCall, "Every function_call_output answers exactly one earlier function_call (or client-executed tool_search_call) with the same call_id (no output before its call, no duplicates).",
			"https://platform.openai.com/docs/guides/function-calling (call_id matches the function_call); https://github.com/continuedev/continue/issues/10092 (verbatim 400: No tool call found for function call output with call_id call_…., param input, code null); https://github.com/microsoft/vscode/issues/320060; tool_search_call with execution client answered by its call_id: https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go (ResponseInputItemToolSearchCallParam call_id, execution) [I]", "", checkToolCalls),
		r(RuleReasoningBefore, "A function_call replayed with the fc_ id the API issued right after a reasoning item is preceded by that reasoning item.",
			"https://platform.openai.com/docs/guides/reasoning (reasoning items are passed back with the calls they produced); https://github.com/omnigent-ai/omnigent/issues/5066 (verbatim: Item 'fc_…' of type 'function_call' was provided without its required 'reasoning' item: 'rs_…'., param input, code null)", "reasoning", checkReasoningBefore),
		r(RuleReasoningFollowed, "A replayed reasoning item is followed by the output item it preceded: any output item (a function, hosted-tool or custom-tool call, or an assistant message with the id the API gave it), not a user-side item and not an id-less assistant message.",
			"https://platform.openai.com/docs/guides/reasoning (append every output item, reasoning included); https://github.com/continuedev/continue/issues/8933 (verbatim 400: Item 'rs_…' of type 'reasoning' was provided without its required following item., param input, code null); https://github.com/microsoft/agent-framework/pull/6110 and https://github.com/vercel/ai/issues/8379 (reasoning followed by hosted mcp_call / web_search_call items); https://github.com/vercel/ai/issues/7099 (items replayed without their ids break the pairing); the id-less assistant message case [I]", "reasoning", checkReasoningFollowed),
	}
}

// judgedWhileDecoding is the check of a rule the decoder enforces: a
// request that breaks it never reaches the checks (it is answered with the
// rule's 400 by decodeError), so there is nothing left to find here.
func judgedWhileDecoding(any, *rules.Env) []rules.Violation { return nil }

// checkKnownFields journals, in lenient mode, the members strict mode
// would have answered with a 400 (strict decoding never gets this far).
func checkKnownFields(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	for _, p := range r.Unknown {
		param := wirejson.Bracketed(p)
		out = append(out, violation(orderStructure-3, param, param, "unknown_parameter", fmt.Sprintf("Unknown parameter: '%s'.", param)))
	}
	return out
}

func violation(order int, path string, param any, code any, msg string) rules.Violation {
	return rules.Violation{Path: path, Order: order, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Param: param, Code: code, Message: msg}
}

func inputBreach(order int, path, msg string) rules.Violation {
	return violation(order, path, "input", nil, msg)
}

func missing(order int, param string) rules.Violation {
	return violation(order, param, param, "missing_required_parameter", fmt.Sprintf("Missing required parameter: '%s'.", param))
}

func checkRequired(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	// A stored prompt (prompt.id) carries its own model and input: the
	// real API answers such a request without either (the recorded
	// exchanges in testdata/corpus/datadog-dd-trace-py.jsonl).
	stored := r.W.Prompt != nil && r.W.Prompt.ID != nil && *r.W.Prompt.ID != ""
	if r.Model == "" && r.Endpoint != InputTokensPath && !stored {
		out = append(out, missing(orderStructure-2, "model"))
	}
	if r.W.Input.OfString == nil && r.W.Input.OfInputItemList == nil && r.Endpoint == Path && !stored {
		if r.PreviousResponseID == nil || *r.PreviousResponseID == "" {
			out = append(out, missing(orderStructure-1, "input"))
		}
	}
	for i, t := range r.Tools {
		if t.Type == "" {
			out = append(out, missing(orderTools+i, fmt.Sprintf("tools[%d].type", i)))
		} else if t.Type == "function" && (t.Name == nil) {
			out = append(out, missing(orderTools+i, fmt.Sprintf("tools[%d].name", i)))
		}
	}
	if r.InputString {
		return out
	}
	for _, it := range r.Items {
		p := func(f string) string { return fmt.Sprintf("input[%d].%s", it.Index, f) }
		order := orderStructure + it.Index
		need := func(present bool, f string) {
			if !present {
				out = append(out, missing(order, p(f)))
			}
		}
		switch it.Kind() {
		case "message":
			need(it.Role != "" || !it.Typed, "role")
			need(it.Content != nil && it.Content.Present(), "content")
		case "function_call":
			need(it.CallID != nil, "call_id")
			need(it.Name != nil, "name")
			need(len(it.Arguments) > 0 && it.Arguments.Kind() != 'n', "arguments")
		case "function_call_output":
			need(it.CallID != nil, "call_id")
			need(it.Output != nil && (it.Output.OfString != nil || it.Output.OfResponseFunctionCallOutputItemArray != nil), "output")
		case "reasoning":
			need(it.ID != "", "id")
			need(it.HasSummary, "summary")
		case "item_reference":
			need(it.ID != "", "id")
		}
	}
	return out
}

// inputFileSource: the answer is quoted from a 2025 report, when only PDF
// files were read; since February 2026 the API reads documents, text,
// code, presentations and spreadsheets too, so only the kinds no list
// names (archives, audio, video, executables) are refused here.
const inputFileSource = "https://github.com/openai/openai-node/issues/1560 (verbatim 400: The file type you uploaded is not supported. Please try again with a pdf); " +
	"https://developers.openai.com/api/docs/guides/file-inputs (accepted input_file types: PDF, text and code, rich documents, presentations, spreadsheets); param input and code unsupported_file [I]"

// UnsupportedFileMessage is the API's answer to an input_file of a kind it
// does not read.
const UnsupportedFileMessage = "The file type you uploaded is not supported. Please try again with a pdf"

// unreadableFileExtensions are the kinds of file no accepted-type list
// names: archives, audio, video, executables and disk images.
var unreadableFileExtensions = map[string]bool{
	"zip": true, "gz": true, "tgz": true, "tar": true, "7z": true, "rar": true, "bz2": true, "xz": true,
	"mp3": true, "wav": true, "m4a": true, "ogg": true, "flac": true, "aac": true, "opus": true,
	"mp4": true, "mov": true, "avi": true, "mkv": true, "webm": true, "m4v": true,
	"exe": true, "dll": true, "so": true, "dylib": true, "bin": true, "dmg": true, "iso": true, "apk": true, "msi": true,
}

// unreadableFileTypes are the same kinds as MIME types (audio/* and video/*
// are matched by their prefix).
var unreadableFileTypes = map[string]bool{
	"application/zip": true, "application/x-zip-compressed": true, "application/gzip": true, "application/x-gzip": true,
	"application/x-tar": true, "application/x-7z-compressed": true, "application/vnd.rar": true, "application/x-rar-compressed": true,
	"application/x-bzip2": true, "application/x-xz": true, "application/x-msdownload": true, "application/x-executable": true,
	"application/vnd.android.package-archive": true, "application/x-apple-diskimage": true,
}

// unreadableFile reports whether an input_file names a kind of file the
// API does not read, by its filename, the MIME type of its data URL or
// the path of its URL. A file_id says nothing here and is accepted.
func unreadableFile(f *ResponseInputFileParam) bool {
	ext := func(name string) bool {
		name = strings.ToLower(name)
		if i := strings.IndexAny(name, "?#"); i >= 0 {
			name = name[:i]
		}
		dot := strings.LastIndexByte(name, '.')
		return dot >= 0 && dot > strings.LastIndexByte(name, '/') && unreadableFileExtensions[name[dot+1:]]
	}
	if f.Filename != nil && ext(*f.Filename) {
		return true
	}
	if f.FileURL != nil && ext(*f.FileURL) {
		return true
	}
	if f.FileData != nil && strings.HasPrefix(*f.FileData, "data:") {
		mime, _, _ := strings.Cut(strings.TrimPrefix(*f.FileData, "data:"), ";")
		mime, _, _ = strings.Cut(mime, ",")
		mime = strings.ToLower(strings.TrimSpace(mime))
		if unreadableFileTypes[mime] || strings.HasPrefix(mime, "audio/") || strings.HasPrefix(mime, "video/") {
			return true
		}
	}
	return false
}

// checkFieldValues judges the values the decoder accepts by type but the
// API refuses: sampling members out of range, input files it cannot read
// and a tool_search_call's arguments sent as a string (the wire model
// keeps them raw). Every other breach of the rule is answered while
// decoding.
func checkFieldValues(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	out := openaiwire.CheckSamplingRanges(r.W.Temperature, r.W.TopP, orderStructure-2)
	for _, it := range r.Items {
		if it.Kind() == "tool_search_call" {
			// Unlike a function_call's, its arguments are an object
			// (Wei-Shaw/sub2api#3818 quotes the API's answer to a string).
			if k := it.Arguments.Kind(); len(it.Arguments) > 0 && k != 'n' && k != '{' {
				param := fmt.Sprintf("input[%d].arguments", it.Index)
				out = append(out, violation(orderStructure+it.Index, param, param, "invalid_type",
					fmt.Sprintf("Invalid type for '%s': expected an object, but got %s instead.", param, GotOf(byte(k), string(it.Arguments)))))
			}
			continue
		}
		if it.Kind() != "message" || it.Content == nil {
			continue
		}
		for j := range it.Content.OfParts {
			if f := it.Content.OfParts[j].OfInputFile; f != nil && unreadableFile(f) {
				out = append(out, violation(orderStructure+it.Index, fmt.Sprintf("input[%d].content[%d]", it.Index, j), "input", "unsupported_file", UnsupportedFileMessage))
				break
			}
		}
	}
	return out
}

func checkArgumentsString(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	for _, it := range r.Items {
		if it.Kind() != "function_call" {
			continue
		}
		if k := it.Arguments.Kind(); len(it.Arguments) > 0 && k != 'n' && k != '"' {
			param := fmt.Sprintf("input[%d].arguments", it.Index)
			out = append(out, violation(orderStructure+it.Index, param, param, "invalid_type",
				fmt.Sprintf("Invalid type for '%s': expected a string, but got %s instead.", param, GotOf(byte(k), string(it.Arguments)))))
		}
	}
	return out
}

var roles = map[string]bool{"assistant": true, "system": true, "developer": true, "user": true}

func checkMessageRole(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	if r.InputString {
		return nil
	}
	for _, it := range r.Items {
		// An item with neither type nor role is read as a message whose
		// role is '' (the API answers "Invalid value: ''.").
		untyped := !it.Typed && it.Role == ""
		if it.Kind() != "message" || roles[it.Role] || (it.Role == "" && !untyped) {
			continue
		}
		param := fmt.Sprintf("input[%d]", it.Index)
		out = append(out, violation(orderStructure+it.Index, param+".role", param, "invalid_value",
			fmt.Sprintf("Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role)))
	}
	return out
}

func checkAssistantContent(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	for _, it := range r.Items {
		if it.Kind() != "message" || it.Role != "assistant" {
			continue
		}
		if it.Content == nil {
			continue
		}
		for j := range it.Content.OfParts {
			typ := partType(&it.Content.OfParts[j])
			if typ == "output_text" || typ == "refusal" {
				continue
			}
			param := fmt.Sprintf("input[%d].content[%d]", it.Index, j)
			out = append(out, violation(orderStructure+it.Index, param+".type", param, "invalid_value",
				fmt.Sprintf("Invalid value: '%s'. Supported values are: 'output_text' and 'refusal'.", typ)))
			break
		}
	}
	return out
}

// toolCheck adapts an openaiwire declaration check to the Responses
// tools list (param paths "tools[N].name").
func toolCheck(check func([]openaiwire.ToolDecl) []rules.Violation) rules.CheckFunc {
	return func(req any, _ *rules.Env) []rules.Violation {
		return check(toolDecls(req.(*Request)))
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
			Path: toolPath(i), Order: orderTools + i})
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

// declaredTools are the tools a request declares: its tools, then those of
// its additional_tools input items (the API reads both; a tool_choice may
// name a tool that only an additional_tools item brings).
func declaredTools(r *Request) []*ToolUnionParam {
	var out []*ToolUnionParam
	for i := range r.W.Tools {
		out = append(out, &r.W.Tools[i])
	}
	for i := range r.W.Input.OfInputItemList {
		if a := r.W.Input.OfInputItemList[i].OfAdditionalTools; a != nil {
			for j := range a.Tools {
				out = append(out, &a.Tools[j])
			}
		}
	}
	return out
}

func checkToolChoice(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	if len(r.ToolChoice) == 0 || r.ToolChoice.Kind() == 'n' {
		return nil
	}
	order := orderPrevious - 1
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

func checkPrevious(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	if !r.PreviousMissing {
		return nil
	}
	return []rules.Violation{violation(orderPrevious, "previous_response_id", "previous_response_id", "previous_response_not_found",
		fmt.Sprintf("Previous response with id '%s' not found.", *r.PreviousResponseID))}
}

// itemPath names an effective item for the journal: input[N] for the
// request's own, previous_response_id for stored ones.
func itemPath(it Item) string {
	if it.Index < 0 {
		return "previous_response_id"
	}
	return fmt.Sprintf("input[%d]", it.Index)
}

func checkUniqueItemIDs(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	seen := map[string]bool{}
	var out []rules.Violation
	for i, it := range r.Effective() {
		// A local_shell_call_output's id is its call's (the SDK's
		// ResponseInputItemLocalShellCallOutputParam.ID): the pair shares it.
		if it.ID == "" || it.FromReference || it.Type == "item_reference" || it.Type == "local_shell_call_output" {
			continue
		}
		if seen[it.ID] {
			out = append(out, inputBreach(i, itemPath(it), fmt.Sprintf("Duplicate item found with id %s. Remove duplicate items from your input and try again.", it.ID)))
			continue
		}
		seen[it.ID] = true
	}
	return out
}

func checkItemsPersisted(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	storeOff := r.Store != nil && !*r.Store
	for _, it := range r.Items {
		if it.NotPersisted || storeOff && reasoningByID(&it) {
			v := inputBreach(orderStructure+it.Index, itemPath(it), fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID))
			v.Status = http.StatusNotFound
			out = append(out, v)
		}
	}
	return out
}

// reasoningByID reports whether a reasoning item of the request's own
// input can only be read by looking its id up: it carries no
// encrypted_content, so the API fetches the stored item, which a
// store:false request has none of.
func reasoningByID(it *Item) bool {
	return it.Kind() == "reasoning" && it.ID != "" && !it.FromReference && it.Index >= 0 &&
		(it.EncryptedContent == nil || *it.EncryptedContent == "")
}

func checkItemReferences(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	var out []rules.Violation
	for _, it := range r.Items {
		if it.Unresolved && !it.NotPersisted {
			v := inputBreach(orderStructure+it.Index, itemPath(it), fmt.Sprintf("Item with id '%s' not found.", it.ID))
			v.Status = http.StatusNotFound
			out = append(out, v)
		}
	}
	return out
}

func checkToolOutputs(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	items := r.Effective()
	answered := map[string]bool{}
	for _, it := range items {
		if it.Kind() == "function_call_output" && it.CallID != nil {
			answered[*it.CallID] = true
		}
	}
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() == "function_call" && it.CallID != nil && !answered[*it.CallID] {
			out = append(out, inputBreach(i, itemPath(it), fmt.Sprintf("No tool output found for function call %s.", *it.CallID)))
		}
	}
	return out
}

// checkToolCalls scans the input in order, binding each output to one
// earlier unanswered call: an output before its call, a second output for
// the same call, or an output for no call at all finds none.
func checkToolCalls(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	open := map[string]int{}
	var out []rules.Violation
	for i, it := range r.Effective() {
		switch it.Kind() {
		case "function_call":
			if it.CallID != nil {
				open[*it.CallID]++
			}
		case "tool_search_call":
			// A client-executed tool search is answered like a function
			// call: a function_call_output with its call_id.
			if it.Execution == "client" && it.CallID != nil {
				open[*it.CallID]++
			}
		case "function_call_output":
			if it.CallID == nil {
				continue
			}
			if open[*it.CallID] > 0 {
				open[*it.CallID]--
				continue
			}
			out = append(out, inputBreach(i, itemPath(it), fmt.Sprintf("No tool call found for function call output with call_id %s.", *it.CallID)))
		}
	}
	return out
}

func checkReasoningBefore(req any, env *rules.Env) []rules.Violation {
	if env == nil || env.IssuedReasoning == nil {
		return nil // offline: no record of what the mock issued
	}
	r := req.(*Request)
	items := r.Effective()
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() != "function_call" || it.ID == "" {
			continue
		}
		rs := env.IssuedReasoning(it.ID)
		if rs == "" || reasoningPrecedes(items[:i], rs) {
			continue
		}
		out = append(out, inputBreach(i, itemPath(it), fmt.Sprintf("Item '%s' of type 'function_call' was provided without its required 'reasoning' item: '%s'.", it.ID, rs)))
	}
	return out
}

// reasoningPrecedes reports whether reasoning item rs sits in the run of
// assistant-side items just before the call (parallel calls share one
// reasoning item, so other calls may stand in between).
func reasoningPrecedes(before []Item, rs string) bool {
	for j := len(before) - 1; j >= 0; j-- {
		it := before[j]
		if !it.Assistant() {
			return false
		}
		if it.Kind() == "reasoning" && it.ID == rs {
			return true
		}
	}
	return false
}

// notOutputItems are the item types a response never outputs (the
// client's answers to calls, and reasoning itself): none of them can be
// the item a reasoning item preceded.
var notOutputItems = map[string]bool{
	"reasoning": true, "function_call_output": true, "computer_call_output": true, "local_shell_call_output": true,
	"shell_call_output": true, "apply_patch_call_output": true, "custom_tool_call_output": true,
	"mcp_approval_response": true, "additional_tools": true,
}

// followsReasoning reports whether next can be the output item a
// reasoning item preceded: any output item (a call of a function, a
// hosted tool or a custom tool, a message) other than a message replayed
// without the id the API gave it, which the API cannot pair with the
// reasoning item.
func followsReasoning(next *Item) bool {
	switch next.Kind() {
	case "message":
		return next.Role == "assistant" && next.ID != ""
	case "item_reference":
		return true // stands for an item the checks cannot see
	}
	return next.Kind() != "" && !notOutputItems[next.Kind()]
}

func checkReasoningFollowed(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	items := r.Effective()
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() != "reasoning" || it.ID == "" {
			continue
		}
		if i+1 < len(items) && followsReasoning(&items[i+1]) {
			continue
		}
		out = append(out, inputBreach(i, itemPath(it), fmt.Sprintf("Item '%s' of type 'reasoning' was provided without its required following item.", it.ID)))
	}
	return out
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

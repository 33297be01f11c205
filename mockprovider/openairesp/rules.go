package openairesp

import (
	"fmt"
	"net/http"
	"strconv"

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
			"https://github.com/microsoft/agent-framework/issues/2203 (Unknown parameter: 'input[1].metadata'., code unknown_parameter); https://github.com/openai/openai-go/blob/v3.96.0/responses/response.go (ResponseNewParams fields)", "", checkKnownFields),
		r(RuleFieldTypes, "Every member has its type (strings, integers, decimals, booleans, arrays, objects, the string-or-array unions), numbers are in range, objects have no member twice, and union objects have a supported type.",
			"https://github.com/openai/openai-go/blob/v3.96.0/responses/response.go (ResponseNewParams field types); wording [I] after OpenAI's type errors (Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead.), ranges and duplicate members included", "", judgedWhileDecoding),
		r(RuleRequiredFields, "Every input item carries its required fields (function_call: call_id, name, arguments; function_call_output: call_id, output; message: role, content; reasoning: id, summary), and model and input are present.",
			"https://platform.openai.com/docs/api-reference/responses/create (required item fields); message [I] in the API's Missing required parameter form", "", checkRequired),
		r(RuleArgumentsString, "A replayed function_call's arguments is a JSON-encoded string, not an object.",
			"https://github.com/openai/openai-go/blob/v3.96.0/responses/response.go (function_call arguments: a JSON-encoded string); wording [I]", "", checkArgumentsString),
		r(RuleMessageRole, "A message's role is assistant, system, developer or user: the Responses API has no 'tool' role (results are function_call_output items).",
			"https://platform.openai.com/docs/api-reference/responses/create (input message roles); message [I] as client code quotes the API's 400 (Chat-style role 'tool' replayed into input)", "", checkMessageRole),
		r(RuleAssistantContent, "An assistant message's content parts are output_text or refusal, not input_text.",
			"https://platform.openai.com/docs/api-reference/responses/create (output message content); message [I] as client code quotes the API's 400 (param input[N].content[0])", "", checkAssistantContent),
		r(RuleFunctionName, "Function names match ^[a-zA-Z0-9_-]+$ and are at most 64 characters.",
			"https://platform.openai.com/docs/guides/function-calling (name pattern); message [I] as pasted from the API's 400s", "", toolCheck(openaiwire.CheckNames)),
		r(RuleFunctionSchema, "A function's parameters is a valid JSON Schema of an object.",
			"https://platform.openai.com/docs/guides/function-calling (parameters is a JSON Schema object)", "", toolCheck(openaiwire.CheckSchemas)),
		r(RuleStrictSchema, "A strict function's object schemas set additionalProperties: false and require every property.",
			"https://platform.openai.com/docs/guides/structured-outputs#supported-schemas", "", toolCheck(openaiwire.CheckStrict)),
		r(RuleToolChoice, "tool_choice is only sent with tools, and a tool_choice that forces one tool (function, custom or hosted) names a tool declared in tools.",
			"https://platform.openai.com/docs/api-reference/responses/create (tool_choice); https://github.com/openai/swarm/issues/30 (Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.) [V]; Tool choice '…' not found in 'tools' parameter. and the code [I], as client code quotes them", "", checkToolChoice),
		r(RulePreviousResponse, "previous_response_id names a stored response of the same key (store:false responses cannot be continued).",
			"https://platform.openai.com/docs/api-reference/responses/create (previous_response_id); https://platform.openai.com/docs/guides/conversation-state", "", checkPrevious),
		r(RuleUniqueItemIDs, "No two items of the effective conversation (stored items of previous_response_id included) carry the same id.",
			"https://github.com/continuedev/continue/issues/10723 (Duplicate item found with id rs_…. Remove duplicate items from your input and try again., param input)", "", checkUniqueItemIDs),
		r(RuleItemsPersisted, "An item passed back by id alone (item_reference) must be stored: items of store:false responses, or referenced from a store:false request, are not found (404).",
			"https://github.com/can1357/oh-my-pi/issues/41 (404 Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. …); param and code [I]", "", checkItemsPersisted),
		r(RuleItemReference, "An item_reference names an item the API stored (an output or input item of a stored response of the same key) or an earlier item of the input; it then stands for that item.",
			"https://platform.openai.com/docs/api-reference/responses/create (input item_reference: an internal identifier for an item to reference); 404 wording as the store:false answer without its hint [I]", "", checkItemReferences),
		r(RuleToolOutput, "Every function_call of the effective conversation (stored items included) is answered by a function_call_output with its call_id.",
			"https://platform.openai.com/docs/guides/function-calling (every function_call gets a function_call_output)", "", checkToolOutputs),
		r(RuleToolCall, "Every function_call_output answers exactly one earlier function_call with the same call_id (no output before its call, no duplicates).",
			"https://platform.openai.com/docs/guides/function-calling (call_id matches the function_call)", "", checkToolCalls),
		r(RuleReasoningBefore, "A function_call replayed with the fc_ id the API issued right after a reasoning item is preceded by that reasoning item.",
			"https://platform.openai.com/docs/guides/reasoning (reasoning items are passed back with the calls they produced)", "reasoning", checkReasoningBefore),
		r(RuleReasoningFollowed, "A replayed reasoning item is followed by the output item it preceded (a function_call or assistant message).",
			"https://platform.openai.com/docs/guides/reasoning (append every output item, reasoning included)", "reasoning", checkReasoningFollowed),
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
	if r.Model == "" && r.Endpoint != InputTokensPath {
		out = append(out, missing(orderStructure-2, "model"))
	}
	if r.W.Input.OfString == nil && r.W.Input.OfInputItemList == nil && r.Endpoint == Path {
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

func checkToolChoice(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	if len(r.ToolChoice) == 0 || r.ToolChoice.Kind() == 'n' {
		return nil
	}
	order := orderPrevious - 1
	if len(r.W.Tools) == 0 {
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
	for i, t := range r.W.Tools {
		switch {
		case kind == "function" && t.OfFunction != nil && str(t.OfFunction.Name) == want,
			kind == "custom" && t.OfCustom != nil && str(t.OfCustom.Name) == want,
			kind == "" && typeOf(r.ToolsRaw, i) == want:
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
		if it.ID == "" || it.FromReference || it.Type == "item_reference" {
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
	for _, it := range r.Items {
		if it.NotPersisted {
			v := inputBreach(orderStructure+it.Index, itemPath(it), fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID))
			v.Status = http.StatusNotFound
			out = append(out, v)
		}
	}
	return out
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

func checkReasoningFollowed(req any, _ *rules.Env) []rules.Violation {
	r := req.(*Request)
	items := r.Effective()
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() != "reasoning" || it.ID == "" {
			continue
		}
		if i+1 < len(items) {
			next := items[i+1]
			if next.Kind() == "function_call" || (next.Kind() == "message" && next.Role == "assistant") {
				continue
			}
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

package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Verbatim texts of the Gemini API (each rule's source says where seen).
const (
	MsgContentsMissing                  = "* GenerateContentRequest.contents: contents is not specified\n"
	MsgRoleClassic                      = "Please use a valid role: user, model."
	msgRoleV36Format                    = "Role '%s' is not supported. Please use a valid role: SYSTEM, SYSTEM_1, USER, ASSISTANT, DEVELOPER, CONTEXT, USER_CONTEXT, MODEL, USER."
	MsgResponseCount                    = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
	MsgResponseAfterCall                = "Please ensure that function response turn comes immediately after a function call turn."
	MsgCallAfterUser                    = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	MsgCallTurnMixed                    = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts."
	MsgCallingConfigWithoutDeclarations = "Function calling config is set without function_declarations."
	MsgCorruptedSignature               = "Corrupted thought signature."
	MsgMultimodalNotSupp                = "Multimodal function responses are not supported for this model"
	msgSignatureFormat                  = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
	msgRequiredUndefinedFormat          = "* GenerateContentRequest.%s.required[%d]: property is not defined\n"
	msgFunctionNameFormat               = "The GenerateContentRequest proto is invalid:\n  * tools[%d].function_declarations[%d].name: [FIELD_INVALID] Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
)

// Messages the reference could not find; worded in Google's style and
// marked [I] in their rules' sources.
const (
	msgResponseOrder           = "Please ensure that the function response parts are in the same order as the function call parts of the function call turn."
	msgAllowedUndeclaredFormat = "Function calling config allowed_function_names contains '%s', which is not declared in function_declarations."
	msgResponseOrderIDs        = "The function response parts are not in the order of the function call parts. Every response names its call's id, so they can be paired, but answering in call order is advised."
	msgResponseIDFormat        = "Please ensure that each function response part echoes the id of its function call part: function call `%s` has id '%s' but its function response has id '%s'."
	msgInlineDataFormat        = "Invalid function response part at 'contents[%d].parts[%d].function_response.parts[%d]': each multimodal function response part must contain inline_data or file_data with a file_uri."
	msgMIMEFormat              = "Unsupported MIME type in function response part at 'contents[%d].parts[%d].function_response.parts[%d]': %s. Supported MIME types are image/png, image/jpeg, image/webp, application/pdf and text/plain."
	msgDisplayDupFormat        = "Duplicate display_name '%s' at 'contents[%d].parts[%d].function_response.parts'. Each multimodal part of a function response must have a unique display_name."
	msgRefDangleFormat         = "Invalid reference {\"$ref\": \"%s\"} at 'contents[%d].parts[%d].function_response.response': no multimodal part of the function response has that display_name."
	msgOneSchemaFormat         = "* GenerateContentRequest.tools[%d].function_declarations[%d]: %s and %s_json_schema cannot both be set.\n"
	msgRefTwiceFormat          = "display_name '%s' is referenced more than once at 'contents[%d].parts[%d].function_response.response'. Each display_name can only be referenced once."
)

// Sources.
const (
	srcRules      = "https://ai.google.dev/gemini-api/docs/function-calling"
	srcShapes     = "https://github.com/googleapis/go-genai/blob/v1.77.0/types.go"
	srcMultimodal = "https://ai.google.dev/gemini-api/docs/function-calling#multimodal (displayName and $ref)"
)

// bypassSignatures are the documented dummy signatures that skip
// validation (https://ai.google.dev/gemini-api/docs/function-calling). Any non-empty signature
// passes the mock's check; these are listed so cases and docs name them.
var bypassSignatures = []string{"context_engineering_is_the_way_to_go", "skip_thought_signature_validator"}

// multimodalMIMETypes are accepted in function response parts on Gemini 3
// (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
var multimodalMIMETypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/webp": true, "application/pdf": true, "text/plain": true,
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

// Rules returns the Gemini catalog in the order the API validates: JSON
// parsing, then proto validation, then the conversation's turns.
func (d *Dialect) Rules() []rules.Rule { return ruleSet() }

// ruleSet builds the catalog once: Rules is asked on every request, and
// the rules depend on nothing but this package.
var ruleSet = sync.OnceValue(func() []rules.Rule { return append(catalog(), capabilityRules()...) })

func catalog() []rules.Rule {
	rule := func(id, summary, source string, check func(*Request, *rules.Env) []rules.Violation) rules.Rule {
		return rules.Rule{ID: "gemini." + id, Dialect: conv.Gemini, Level: rules.MUST, Summary: summary, Source: source, Check: typed(check)}
	}
	// should is a rule no public source shows the API enforcing: journaled,
	// never answered with a 400.
	should := func(id, summary, source string, check func(*Request, *rules.Env) []rules.Violation) rules.Rule {
		r := rule(id, summary, source, check)
		r.Level = rules.SHOULD
		return r
	}
	rs := []rules.Rule{
		{ID: ruleValidJSON, Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "The body is well-formed JSON in UTF-8.",
			Source:  "https://github.com/protocolbuffers/protobuf/blob/v21.12/src/google/protobuf/util/internal/json_stream_parser.cc (the parser's \"Unexpected token.\" and \"Encountered non UTF-8 code points.\"); caret layout [I]",
			Check:   typed(decodedAlready)},
		{ID: ruleKnownFields, Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "Every member names a field of its message (camelCase or snake_case proto names); the API answers each unknown one with `Unknown name \"foo\" at 'contents[0].parts[0]': Cannot find field.` (at the top level without `at`), --lenient journals them instead.",
			Source:  "https://github.com/promptfoo/promptfoo/issues/1393 (nested) and https://github.com/sourcegraph/cody/issues/4566 (top level, BadRequest detail without field) [V]",
			Check:   typed(checkUnknown(false))},
		{ID: ruleSchemaSubset, Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "functionDeclarations[].parameters (and response, responseSchema) is the OpenAPI-subset Schema message: JSON Schema keywords (additionalProperties, $schema, const, exclusiveMinimum, propertyNames…) are unknown names there; full JSON Schema goes in parametersJsonSchema.",
			Source:  "https://github.com/openswarm-ai/openswarm/issues/24 and https://github.com/Laisky/one-api/issues/60 [V]",
			Check:   typed(checkUnknown(true))},
		{ID: ruleFieldTypes, Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "Every field has its proto type: a message is an object, numbers fit their type (int32, float), enums name a value, a singular field takes no list; no member twice. A repeated field takes a list or a single value (a list of one).",
			Source:  "https://github.com/n8n-io/n8n/issues/15553 (list on a singular field) [V]; a single value for a repeated field is accepted, as protobuf's JSON parsers do [I]; https://github.com/vercel/ai/issues/3589 (`Invalid value at 'FIELD' (TYPE), VALUE` wording of the Struct captures) [V], applied to scalars, enums and messages [I]; duplicate member [I]",
			Check:   typed(decodedAlready)},
		rule("function-calling-config-needs-declarations", "toolConfig.functionCallingConfig (any mode, allowedFunctionNames) needs tools: functions declared, or built-in tools (googleSearch, codeExecution…), beside which it is accepted.",
			"https://github.com/Chevey339/kelivo/issues/317 [V] (a config with no tools); beside built-in tools only accepted [I]", checkCallingConfigHasDeclarations),
		should("allowed-function-names-declared", "Every name in functionCallingConfig.allowedFunctionNames should be a declared function (journaled: no public source shows the API refusing one).",
			"https://github.com/googleapis/go-genai/blob/v1.77.0/types.go (FunctionCallingConfig.AllowedFunctionNames: \"Function names should match [FunctionDeclaration.Name]\") [D]; a refusal not seen [I]", checkAllowedNamesDeclared),
		should("parameters-one-schema", "A function declaration should set parameters or parametersJsonSchema (response or responseJsonSchema), not both (journaled: no public source shows the API refusing both).",
			"https://github.com/googleapis/go-genai/blob/v1.77.0/types.go (FunctionDeclaration.ParametersJsonSchema: \"This field is mutually exclusive with `parameters`\") [D]; a refusal not seen [I]", checkOneSchema),
		rule("schema-required-defined", "Every name in a Schema's required list is one of its properties.",
			"https://github.com/iBUHub/AIStudioToAPI/issues/154 [V]", checkRequiredDefined),
		rule("function-response-object", "functionResponse.response is a JSON object (a google.protobuf.Struct), never a string or list.",
			"https://github.com/googleapis/go-genai/blob/v1.77.0/types.go (FunctionResponse.Response: a map); https://github.com/vercel/ai/issues/3589 (list message) [V]; string message [I] (Struct wording from a Live API capture)", checkResponseObject),
		rule("function-call-args-object", "functionCall.args in history is a JSON object.",
			"https://github.com/googleapis/googleapis/blob/master/google/ai/generativelanguage/v1beta/content.proto (FunctionCall.args: google.protobuf.Struct, the type of FunctionResponse.response); https://github.com/vercel/ai/issues/3589 (a Struct field given a list is refused) [V]; message [I] (same Struct parse error as function-response-object)", checkArgsObject),
		rule("contents-required", "The request has at least one content.",
			"https://github.com/langchain-ai/langchain-google/issues/1393 (\"400 - contents is not specified\") [V]; full text [I]", checkContents),
		rule("part-has-data", "Every part carries one piece of data (text, inlineData, fileData, functionCall, functionResponse, executableCode, codeExecutionResult, toolCall or toolResponse); a part of metadata alone ({} or only a thought signature) is refused.",
			"https://github.com/genkit-ai/genkit/issues/3816 (verbatim 400: \"* GenerateContentRequest.contents[1].parts[0].data: required oneof field 'data' must have one initialized field\") [V]; https://github.com/google-gemini/gemini-cli/issues/5575 [V]", checkPartHasData),
		rule("function-name-valid", "Declared function names start with a letter or underscore and use a-z, A-Z, 0-9, _ . : - (at most 64).",
			"https://github.com/decolua/9router/issues/369 [V]", checkFunctionNames),
		rule("valid-role", "Content roles are only user or model; function responses travel in user turns.",
			srcShapes+" (Content.Role: user or model); https://github.com/memex-lab/dart_agent_core/issues/34 (v3.6 text) [V]", checkRoles),
		rule("call-turn-not-mixed", "A content does not mix functionCall and functionResponse parts.",
			"https://github.com/googleapis/python-genai/issues/81 [V]", checkMixed),
		rule("function-response-after-call", "A function response turn comes immediately after a function call turn (consecutive user contents after the call turn count as one turn).",
			srcRules+" (a function response turn follows the call turn) [V]; testdata/corpus/crewai.jsonl (TestGeminiNativeToolCalling parallel cassettes #2: gemini-2.5-flash accepts responses spread over consecutive user contents) [V]", checkResponseAfterCall),
		rule("function-call-after-user", "A function call turn comes immediately after a user turn, a function response turn, or another function call turn of the model (steps answered together).",
			"https://github.com/google-gemini/gemini-cli/issues/11814 [V]; consecutive call turns accepted [I]", checkCallAfterUser),
		rule("function-response-count", "A function response turn answers every call of the preceding function call turn (consecutive call turns of the model counted as one, and the consecutive user contents that follow it up to the next model turn counted as one): as many responses as calls.",
			"https://github.com/google-gemini/gemini-cli/issues/4504 and https://github.com/microsoft/vscode/issues/299295 (\"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.\") [V]; testdata/corpus/crewai.jsonl (TestGeminiNativeToolCalling parallel cassettes #2: three calls answered by three consecutive user contents accepted) [V]", checkResponseCount),
		should("function-response-order", "The responses to a parallel batch should come in call order, matched by name (journaled: no public source shows the API refusing a reordered batch).",
			srcRules+" (responses in the order of the calls); a refusal not seen [I]", checkResponseOrder),
		{ID: "gemini.function-response-order-ids", Dialect: conv.Gemini, Level: rules.SHOULD,
			Summary: "Responses that each name their call's id may come in another order than the calls; keeping the call order is still advised.",
			Source:  srcRules + " (responses in the order of the calls); no public source shows the API rejecting a reordered batch whose responses carry the calls' ids [I]",
			Check:   typed(checkResponseOrderByID)},
		should("function-response-id", "A functionResponse should echo the id of its functionCall when the call had one (journaled: no public source shows the API refusing another id).",
			srcShapes+" (FunctionResponse.ID echoes FunctionCall.ID); a refusal not seen [I]", checkResponseID),
		{ID: "gemini.thought-signature", Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "On Gemini 3 the first functionCall part of each step of the current turn carries its thoughtSignature (the two documented dummy values bypass validation).",
			Source:  "https://ai.google.dev/gemini-api/docs/thought-signatures [D][V]; position = 1-based content index [I]",
			Feature: "signatures", Option: "--thought-signatures", Check: typed(checkThoughtSignatures)},
		{ID: "gemini.thought-signature-issued", Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "On Gemini 3 a functionCall's thoughtSignature in the current turn is the one the model issued for that call, passed back unchanged (or a documented dummy value, as text or base64-encoded as a bytes field is).",
			Source:  "https://github.com/anomalyco/opencode/issues/4832 and https://github.com/heyhuynhgiabuu/proxypal/issues/119 (\"Corrupted thought signature.\") [V]; mockprovider/gemini/signature.go (the mock's signatures are an HMAC of the call, so it knows which it issued)",
			Feature: "signatures", Option: "--thought-signatures", Check: typed(checkSignaturesIssued)},
		rule("multimodal-response-model", "functionResponse.parts (multimodal function responses) are accepted by Gemini 3 models only.",
			srcMultimodal+" (Gemini 3 models only) [V]", checkMultimodalModel),
		rule("multimodal-response-inline-data", "On Gemini 3 each multimodal function response part carries its media: inlineData, or fileData with a fileUri (an uploaded file).",
			"https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tools/function-calling (each multimodal part must contain inlineData or fileData, as quoted in https://github.com/BerriAI/litellm/pull/29324) [D]; https://ai.google.dev/api/caching#FileData (fileUri required) [D]; message [I]", checkMultimodalInlineData),
		rule("multimodal-response-mime", "On Gemini 3 multimodal function response parts are image/png, image/jpeg, image/webp, application/pdf or text/plain.",
			"https://ai.google.dev/gemini-api/docs/function-calling#multimodal (supported MIME types); message [I]", checkMultimodalMIME),
		rule("multimodal-response-display-name-unique", "On Gemini 3 the displayNames of one function response's parts are unique.",
			srcMultimodal+"; message [I]", checkDisplayNamesUnique),
		rule("multimodal-response-ref-resolves", "On Gemini 3 every {\"$ref\": NAME} in functionResponse.response names a part's displayName.",
			srcMultimodal+"; https://github.com/googleapis/python-genai/issues/2792 (the API checks a $ref against the parts' display_name: \"does not match to a display_name\") [V]; message [I]", checkRefsResolve),
		should("multimodal-response-ref-once", "On Gemini 3 each displayName should be referenced at most once in functionResponse.response (journaled: no public source shows the API refusing a second reference).",
			srcMultimodal+"; a refusal not seen [I]", checkRefsOnce),
	}
	for i := range rs {
		switch rs[i].ID {
		case "gemini.valid-role":
			rs[i].Option = "--gemini-role-message"
		case "gemini.multimodal-response-model", "gemini.multimodal-response-inline-data", "gemini.multimodal-response-mime",
			"gemini.multimodal-response-display-name-unique", "gemini.multimodal-response-ref-resolves", "gemini.multimodal-response-ref-once":
			rs[i].Feature = "images"
		}
	}
	return rs
}

// typed adapts a check on *Request to rules.CheckFunc.
func typed(check func(*Request, *rules.Env) []rules.Violation) rules.CheckFunc {
	return func(req any, env *rules.Env) []rules.Violation {
		r, ok := req.(*Request)
		if !ok || r == nil {
			return nil
		}
		if env == nil {
			env = &rules.Env{Options: rules.DefaultOptions()}
		}
		return check(r, env)
	}
}

// Orders: JSON-parse errors come before proto validation, which comes
// before any turn-by-turn rule (contents index ≥ 0).
const (
	orderParse = -2
	orderProto = -1
)

func violation(order int, path, msg string) rules.Violation {
	return rules.Violation{Order: order, Path: path, Message: msg, Status: http.StatusBadRequest, ErrType: statusInvalidArgument}
}

func modelOf(r *Request, env *rules.Env) string {
	if r.Model != "" {
		return r.Model
	}
	return env.Model
}

// --- parsing -------------------------------------------------------------

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
	var out []rules.Violation
	for i, c := range r.Contents {
		for j, p := range c.Parts {
			if p.FunctionResponse == nil {
				continue
			}
			if !isStructValue(p.FunctionResponse.Response) {
				parent := fmt.Sprintf("contents[%d].parts[%d].function_response", i, j)
				msg := structValueError(p.FunctionResponse.Response, parent, "response")
				out = append(out, violation(orderParse, fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), msg))
			}
		}
	}
	return out
}

func checkArgsObject(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			if !isStructValue(p.FunctionCall.Args) {
				parent := fmt.Sprintf("contents[%d].parts[%d].function_call", i, j)
				msg := structValueError(p.FunctionCall.Args, parent, "args")
				out = append(out, violation(orderParse, fmt.Sprintf("contents[%d].parts[%d].functionCall.args", i, j), msg))
			}
		}
	}
	return out
}

// --- proto validation ----------------------------------------------------

func checkContents(r *Request, _ *rules.Env) []rules.Violation {
	if len(r.Contents) == 0 {
		return []rules.Violation{violation(orderProto, "contents", MsgContentsMissing)}
	}
	return nil
}

// msgPartNoData is the API's answer to a part with no data member: the
// Part message's data is a required oneof.
const msgPartNoData = "* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field\n"

// checkPartHasData reports the first empty part only: a body of a million
// empty parts must not cost a million violations.
func checkPartHasData(r *Request, _ *rules.Env) []rules.Violation {
	for i, c := range r.Contents {
		for j, p := range c.Parts {
			if p.Text == nil && p.InlineData == nil && p.FileData == nil && p.FunctionCall == nil && p.FunctionResponse == nil &&
				p.ExecutableCode == nil && p.CodeExecutionResult == nil && p.ToolCall == nil && p.ToolResponse == nil {
				return []rules.Violation{violation(orderProto, fmt.Sprintf("contents[%d].parts[%d]", i, j), fmt.Sprintf(msgPartNoData, i, j))}
			}
		}
	}
	return nil
}

func checkFunctionNames(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, t := range r.Tools {
		for j, fd := range t.FunctionDeclarations {
			if !validFunctionName(fd.Name) {
				out = append(out, violation(orderProto, fmt.Sprintf("tools[%d].functionDeclarations[%d].name", i, j), fmt.Sprintf(msgFunctionNameFormat, i, j)))
			}
		}
	}
	return out
}

// decodedAlready is the check of the rules Decode enforces (valid JSON,
// field types): a request that reaches the checks has passed them, and a
// breach never reaches them, not even with --lenient.
func decodedAlready(*Request, *rules.Env) []rules.Violation { return nil }

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
	return []rules.Violation{violation(orderProto, "toolConfig.functionCallingConfig", MsgCallingConfigWithoutDeclarations)}
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
			return []rules.Violation{violation(orderProto, fmt.Sprintf("toolConfig.functionCallingConfig.allowedFunctionNames[%d]", k), fmt.Sprintf(msgAllowedUndeclaredFormat, name))}
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

// checkUnknown reports the members a lenient decode skipped: those inside
// a Schema (schema) or the others.
func checkUnknown(schema bool) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, _ *rules.Env) []rules.Violation {
		var out []rules.Violation
		for _, u := range r.Unknown {
			if u.inSchema == schema {
				out = append(out, violation(orderParse, u.Path(), u.message()))
			}
		}
		return out
	}
}

func checkOneSchema(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, t := range r.Tools {
		for j, fd := range t.FunctionDeclarations {
			both := func(a *Schema, b []byte, name string) {
				if a != nil && len(b) > 0 {
					out = append(out, violation(orderProto, fmt.Sprintf("tools[%d].functionDeclarations[%d].%sJsonSchema", i, j, name),
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
				out = append(out, violation(orderProto, path+fmt.Sprintf(".required[%d]", k), fmt.Sprintf(msgRequiredUndefinedFormat, path, k)))
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
	return out
}

// --- turns ---------------------------------------------------------------

func checkRoles(r *Request, env *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		// An empty role is read as user, as the API does for single turns.
		if c.Role == "" || c.Role == roleUser || c.Role == roleModel {
			continue
		}
		msg := MsgRoleClassic
		if env.Options.GeminiRoleMessage == "v3.6" {
			msg = fmt.Sprintf(msgRoleV36Format, c.Role)
		}
		out = append(out, violation(i, fmt.Sprintf("contents[%d].role", i), msg))
	}
	return out
}

func countParts(c Content) (calls, responses int) {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			calls++
		}
		if p.FunctionResponse != nil {
			responses++
		}
	}
	return calls, responses
}

func isCallTurn(c Content) bool     { n, _ := countParts(c); return n > 0 }
func isResponseTurn(c Content) bool { _, n := countParts(c); return n > 0 }
func isMixed(c Content) bool        { a, b := countParts(c); return a > 0 && b > 0 }

func checkMixed(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		if isMixed(c) {
			out = append(out, violation(i, fmt.Sprintf("contents[%d]", i), MsgCallTurnMixed))
		}
	}
	return out
}

// checkResponseAfterCall: a function response belongs to the user
// contents that follow a call turn, up to the next model turn (the API
// reads consecutive user contents as one turn).
func checkResponseAfterCall(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	afterCall := false
	for i, c := range r.Contents {
		switch {
		case isCallTurn(c):
			afterCall = true
		case c.Role == roleModel:
			afterCall = false
		case isResponseTurn(c) && !afterCall:
			out = append(out, violation(i, fmt.Sprintf("contents[%d]", i), MsgResponseAfterCall))
		}
	}
	return out
}

func checkCallAfterUser(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		if !isCallTurn(c) || isMixed(c) {
			continue
		}
		if i == 0 {
			out = append(out, violation(i, fmt.Sprintf("contents[%d]", i), MsgCallAfterUser))
			continue
		}
		prev := r.Contents[i-1]
		if prev.Role == roleModel && isCallTurn(prev) && !isMixed(prev) {
			continue // the call turn goes on: its steps answered together
		}
		if prev.Role == roleModel || isCallTurn(prev) {
			out = append(out, violation(i, fmt.Sprintf("contents[%d]", i), MsgCallAfterUser))
		}
	}
	return out
}

// answeredPairs yields each call turn answered by the user contents that
// follow it up to the next model turn (the answer run), with the parts of
// both. Consecutive call turns of the model are one call turn whose steps
// one run answers together (their calls in order); consecutive user
// contents are one turn, so a run may spread its responses over several
// contents. Several rules walk the pairs on every request, so a single
// content's parts are not copied: callResponsePairs zips the parts.
func answeredPairs(r *Request, visit func(run answerRun, callParts, responseParts []Part)) {
	for i := 1; i < len(r.Contents); i++ {
		c, prev := r.Contents[i], r.Contents[i-1]
		if isCallTurn(c) || !isCallTurn(prev) || isMixed(prev) {
			continue
		}
		end := i + 1
		for end < len(r.Contents) && r.Contents[end].Role != roleModel && !isCallTurn(r.Contents[end]) {
			end++
		}
		run := answerRun{contents: r.Contents[i:end], start: i, first: -1}
		responseParts := c.Parts
		if end > i+1 {
			responseParts = nil
			for _, u := range run.contents {
				responseParts = append(responseParts, u.Parts...)
			}
		}
		for k, u := range run.contents {
			if isResponseTurn(u) {
				run.first = i + k
				break
			}
		}
		i = end - 1
		if run.first < 0 {
			continue // unanswered: nothing to pair
		}
		callParts := prev.Parts
		first := run.start - 1
		for first > 0 && r.Contents[first-1].Role == roleModel && isCallTurn(r.Contents[first-1]) && !isMixed(r.Contents[first-1]) {
			first--
		}
		if first < run.start-1 {
			callParts = nil
			for _, step := range r.Contents[first:run.start] {
				callParts = append(callParts, step.Parts...)
			}
		}
		visit(run, callParts, responseParts)
	}
}

// answerRun is the user contents answering one call turn: contents[start:]
// of the request, the first of them with a function response at first.
type answerRun struct {
	contents     []Content
	start, first int
}

// locate maps the k-th part of the run's joined parts to its content and
// part index in the request.
func (run answerRun) locate(k int) (content, part int) {
	for j, c := range run.contents {
		if k < len(c.Parts) {
			return run.start + j, k
		}
		k -= len(c.Parts)
	}
	return run.start, k
}

// callResponsePairs walks the k-th functionCall part of callParts
// together with the k-th functionResponse part of responseParts.
type callResponsePairs struct {
	callParts, responseParts []Part
	call, response           int // index of the current pair's parts
}

func pairsOf(callParts, responseParts []Part) callResponsePairs {
	return callResponsePairs{callParts: callParts, responseParts: responseParts, call: -1, response: -1}
}

// next moves to the next pair; false when either side has run out.
func (z *callResponsePairs) next() bool {
	z.call = nextPart(z.callParts, z.call, func(p *Part) bool { return p.FunctionCall != nil })
	z.response = nextPart(z.responseParts, z.response, func(p *Part) bool { return p.FunctionResponse != nil })
	return z.call < len(z.callParts) && z.response < len(z.responseParts)
}

func (z *callResponsePairs) pair() (*FunctionCall, *FunctionResponse) {
	return z.callParts[z.call].FunctionCall, z.responseParts[z.response].FunctionResponse
}

// nextPart is the index of the first part after from that matches, or
// len(parts).
func nextPart(parts []Part, from int, match func(*Part) bool) int {
	i := from + 1
	for i < len(parts) && !match(&parts[i]) {
		i++
	}
	return i
}

// sameCount reports whether a call turn and its response turn have as
// many functionCall parts as functionResponse parts.
func sameCount(callParts, responseParts []Part) bool {
	calls, _ := countParts(Content{Parts: callParts})
	_, responses := countParts(Content{Parts: responseParts})
	return calls == responses
}

func checkResponseCount(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !sameCount(callParts, responseParts) {
			out = append(out, violation(run.first, fmt.Sprintf("contents[%d]", run.first), MsgResponseCount))
		}
	})
	return out
}

func checkResponseOrder(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !sameCount(callParts, responseParts) || matchedByID(callParts, responseParts) {
			return
		}
		for z := pairsOf(callParts, responseParts); z.next(); {
			if fc, fr := z.pair(); fc.Name != fr.Name {
				at, part := run.locate(z.response)
				out = append(out, violation(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.name", at, part), msgResponseOrder))
				return
			}
		}
	})
	return out
}

// matchedByID reports a batch whose calls all carry ids and whose
// responses name each of them once: the API can pair them in any order.
func matchedByID(callParts, responseParts []Part) bool {
	ids := map[string]int{}
	for _, p := range callParts {
		if p.FunctionCall != nil {
			if p.FunctionCall.ID == "" {
				return false
			}
			ids[p.FunctionCall.ID]++
		}
	}
	for _, p := range responseParts {
		if p.FunctionResponse != nil {
			if ids[p.FunctionResponse.ID] == 0 {
				return false
			}
			ids[p.FunctionResponse.ID]--
		}
	}
	return true
}

// checkResponseOrderByID notes a batch answered out of call order whose
// responses all name their calls' ids.
func checkResponseOrderByID(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !sameCount(callParts, responseParts) || !matchedByID(callParts, responseParts) {
			return
		}
		for z := pairsOf(callParts, responseParts); z.next(); {
			if fc, fr := z.pair(); fc.ID != fr.ID {
				at, part := run.locate(z.response)
				out = append(out, violation(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", at, part), msgResponseOrderIDs))
				return
			}
		}
	})
	return out
}

func checkResponseID(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !sameCount(callParts, responseParts) || matchedByID(callParts, responseParts) {
			return
		}
		for z := pairsOf(callParts, responseParts); z.next(); {
			if fc, fr := z.pair(); fc.ID != "" && fr.ID != fc.ID {
				at, part := run.locate(z.response)
				out = append(out, violation(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", at, part),
					fmt.Sprintf(msgResponseIDFormat, fc.Name, fc.ID, fr.ID)))
			}
		}
	})
	return out
}

// enforceSignatures applies the --thought-signatures option.
func enforceSignatures(r *Request, env *rules.Env) bool {
	switch env.Options.ThoughtSignatures {
	case "always":
		return true
	case "never":
		return false
	}
	return model.IsGemini3(modelOf(r, env))
}

// currentTurnStart is the index after the last user content with standard
// content (text or media, not a function response): the Gemini 3 "current
// turn" whose calls are validated.
func currentTurnStart(r *Request) int {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role == roleModel || isResponseTurn(c) {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != nil || p.InlineData != nil || p.FileData != nil {
				return i + 1
			}
		}
	}
	return 0
}

func checkThoughtSignatures(r *Request, env *rules.Env) []rules.Violation {
	if !enforceSignatures(r, env) {
		return nil
	}
	var out []rules.Violation
	for i := currentTurnStart(r); i < len(r.Contents); i++ {
		c := r.Contents[i]
		if c.Role != roleModel {
			continue
		}
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			// Only the first call of a step is signed; parallel siblings
			// carry none.
			if p.signature() == "" {
				out = append(out, violation(i, fmt.Sprintf("contents[%d].parts[%d].thoughtSignature", i, j), fmt.Sprintf(msgSignatureFormat, p.FunctionCall.Name, i+1)))
			}
			break
		}
	}
	return out
}

// checkSignaturesIssued: on Gemini 3, every signature on a functionCall
// of the current turn verifies as the mock's own for that call (the
// documented dummy values pass).
func checkSignaturesIssued(r *Request, env *rules.Env) []rules.Violation {
	if !enforceSignatures(r, env) {
		return nil
	}
	var out []rules.Violation
	for i := currentTurnStart(r); i < len(r.Contents); i++ {
		c := r.Contents[i]
		if c.Role != roleModel {
			continue
		}
		for j, p := range c.Parts {
			sig := p.ThoughtSignature
			if p.FunctionCall == nil || sig == nil || sig.Text == "" || isBypassSignature(sig) || issuedSignature(sig.Bytes, p.FunctionCall.Name) {
				continue
			}
			out = append(out, violation(i, fmt.Sprintf("contents[%d].parts[%d].thoughtSignature", i, j), MsgCorruptedSignature))
		}
	}
	return out
}

// --- multimodal function responses ---------------------------------------

// eachMultimodal visits every functionResponse that has parts.
func eachMultimodal(r *Request, visit func(i, j int, fr *FunctionResponse)) {
	for i, c := range r.Contents {
		for j, p := range c.Parts {
			if p.FunctionResponse != nil && len(p.FunctionResponse.Parts) > 0 {
				visit(i, j, p.FunctionResponse)
			}
		}
	}
}

func checkMultimodalModel(r *Request, env *rules.Env) []rules.Violation {
	if model.IsGemini3(modelOf(r, env)) {
		return nil
	}
	var out []rules.Violation
	eachMultimodal(r, func(i, j int, _ *FunctionResponse) {
		out = append(out, violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts", i, j), MsgMultimodalNotSupp))
	})
	return out
}

// gemini3Multimodal runs a multimodal check only where such responses are
// accepted at all (elsewhere multimodal-response-model answers first).
func gemini3Multimodal(r *Request, env *rules.Env, visit func(i, j int, fr *FunctionResponse) []rules.Violation) []rules.Violation {
	if !model.IsGemini3(modelOf(r, env)) {
		return nil
	}
	var out []rules.Violation
	eachMultimodal(r, func(i, j int, fr *FunctionResponse) { out = append(out, visit(i, j, fr)...) })
	return out
}

func checkMultimodalInlineData(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		for k, mp := range fr.Parts {
			if mp.InlineData == nil && (mp.FileData == nil || mp.FileData.FileURI == "") {
				return []rules.Violation{violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts[%d]", i, j, k), fmt.Sprintf(msgInlineDataFormat, i, j, k))}
			}
		}
		return nil
	})
}

func checkMultimodalMIME(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		for k, mp := range fr.Parts {
			if mp.InlineData != nil && !multimodalMIMETypes[strings.ToLower(mp.InlineData.MIMEType)] {
				return []rules.Violation{violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts[%d].inlineData.mimeType", i, j, k),
					fmt.Sprintf(msgMIMEFormat, i, j, k, quoteMIME(mp.InlineData.MIMEType)))}
			}
		}
		return nil
	})
}

func quoteMIME(m string) string {
	if m == "" {
		return "(empty)"
	}
	return m
}

func displayNames(fr *FunctionResponse) []string {
	var names []string
	for _, mp := range fr.Parts {
		switch {
		case mp.InlineData != nil && mp.InlineData.DisplayName != "":
			names = append(names, mp.InlineData.DisplayName)
		case mp.FileData != nil && mp.FileData.DisplayName != "":
			names = append(names, mp.FileData.DisplayName)
		}
	}
	return names
}

func checkDisplayNamesUnique(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		seen := map[string]bool{}
		for _, n := range displayNames(fr) {
			if seen[n] {
				return []rules.Violation{violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts", i, j), fmt.Sprintf(msgDisplayDupFormat, n, i, j))}
			}
			seen[n] = true
		}
		return nil
	})
}

// refs lists the {"$ref": NAME} values in a response, in document order.
func refs(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if s, ok := x["$ref"].(string); ok {
				out = append(out, s)
			}
			for _, k := range sortedKeys(x) {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func checkRefsResolve(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		names := map[string]bool{}
		for _, n := range displayNames(fr) {
			names[n] = true
		}
		for _, ref := range refs(fr.Response) {
			if !names[ref] {
				return []rules.Violation{violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), fmt.Sprintf(msgRefDangleFormat, ref, i, j))}
			}
		}
		return nil
	})
}

func checkRefsOnce(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		seen := map[string]bool{}
		for _, ref := range refs(fr.Response) {
			if seen[ref] {
				return []rules.Violation{violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), fmt.Sprintf(msgRefTwiceFormat, ref, i, j))}
			}
			seen[ref] = true
		}
		return nil
	})
}

package openaichat

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Rule IDs of this dialect.
const (
	RuleModelRequired         = "openai-chat.model-required"
	RuleRequiredFields        = "openai-chat.required-fields"
	RuleArgumentsString       = "openai-chat.arguments-string"
	RuleToolCallsNonEmpty     = "openai-chat.tool-calls-non-empty"
	RuleStreamOptions         = "openai-chat.stream-options-need-stream"
	RuleImageOnlyInUser       = "openai-chat.image-only-in-user-messages"
	RuleImageFormat           = "openai-chat.image-format"
	RuleToolNamePattern       = "openai-chat.tool-name-pattern"
	RuleToolSchemaValid       = "openai-chat.tool-schema-valid"
	RuleStrictSchema          = "openai-chat.strict-schema"
	RuleToolCallsAnswered     = "openai-chat.tool-calls-answered"
	RuleToolMessageFollows    = "openai-chat.tool-message-follows-call"
	RuleKnownFields           = "openai-chat.known-fields"
	RuleMessageMembers        = "openai-chat.message-members"
	RuleFieldTypes            = "openai-chat.field-types"
	RuleValidJSON             = "openai-chat.valid-json"
	RuleToolControlsNeedTools = "openai-chat.tool-controls-need-tools"
	RuleForcedToolDeclared    = "openai-chat.forced-tool-declared"
	RuleReasoningMaxTokens    = "openai-chat.reasoning-models-refuse-max-tokens"
	sourceRules               = "https://platform.openai.com/docs/guides/function-calling"
	toolParamOption           = "--openai-tool-param"
	semanticTier              = 1 << 20
	requestLevel              = -1
	missingCode               = "missing_required_parameter"
	toolCallsAnsweredPrefix   = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
)

// ToolMessageOrphanMessage keeps the API's spelling "preceeding".
const ToolMessageOrphanMessage = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."

// ModelRequiredMessage is the API's answer to a request without a model.
const ModelRequiredMessage = "you must provide a model parameter"

// Violations are ordered the way the API appears to validate: first the
// request's shape (types, required fields, allowed values; messages before
// tools, each by position), then the meaning of the conversation (tool
// schemas compiled, then calls paired with answers). The second tier is
// offset by semanticTier. The split is inferred from which error each
// pasted request produced; it only matters for requests with several
// breaches.

// catalog is the dialect's rule set, in declaration order.
func catalog() []rules.Rule {
	r := func(id string, level rules.Level, summary, source string, check rules.CheckFunc) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.OpenAIChat, Level: level, Summary: summary, Source: source, Check: check}
	}
	list := []rules.Rule{
		r(RuleValidJSON, rules.MUST, "The body is one JSON object in valid UTF-8.",
			"https://github.com/ChatGPTNextWeb/NextChat/issues/4064 (verbatim 400, param and code null); invalid UTF-8 answered the same [I]", judgedByDecoder),
		r(RuleKnownFields, rules.MUST, "Every member outside messages is one the API defines for its place (the SDK's param types); a member of another tool type is unknown there too. Members inside messages are the message-members rule's. In lenient mode unknown members are journaled instead of answered.",
			"https://github.com/coroot/coroot/issues/698 and https://github.com/davidmigloz/langchain_dart/issues/712 (verbatim from api.openai.com/v1/chat/completions: \"Unrecognized request argument supplied: reasoning_effort\", param and code null); https://github.com/openai/openai-go/blob/v3.98.0/chatcompletion.go (member lists); nested members outside messages [I]", checkKnownFields),
		r(RuleMessageMembers, rules.SHOULD, "A message carries only the members the SDK defines for its role (and its parts and calls only those of their types). The API takes other members inside messages (a name on a tool message, a client's own bookkeeping), so they are journaled, not answered; name on a tool message is taken without a note.",
			"https://github.com/openai/openai-node/issues/1161 (\"Additional properties are not allowed ('parsed', 'refusal' were unexpected) - 'messages.2'\" from gpt-3.5/gpt-4/gpt-4-turbo, the same request accepted by gpt-4o); https://github.com/microsoft/agent-framework/pull/2344 (extra message members: Chat Completions did not complain, Responses did); https://github.com/experientiallabs/experiential/issues/803 (a live probe: name on a tool message accepted); https://github.com/transitive-bullshit/agentic/issues/531 (the 2023 refusal)", checkMessageMembers),
		r(RuleFieldTypes, rules.MUST, "Every member has the JSON type the API defines (string or array content, string or object tool_choice, integers for counts), enum members take a listed value, numbers fit (temperature 0–2, top_p 0–1), and no object repeats a key.",
			"https://github.com/openai/openai-go/blob/v3.98.0/chatcompletion.go (member types); https://github.com/pydantic/pydantic-ai/issues/2653 (verbatim: Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an object instead., code invalid_type); https://github.com/epuerta9/deep-research-py/issues/19 (verbatim enum answer: Invalid value: 'object'. Supported values are: …, code invalid_value); \"a number\" for decimals, the duplicate-key and out-of-range texts are inferred [I]; "+openaiwire.SamplingRangesSource, checkFieldValues),
		r(RuleModelRequired, rules.MUST, "A request names a model.",
			"https://github.com/chain-ml/council/issues/45 (curl without model → 400 \"you must provide a model parameter\", param null)", checkModel),
		r(RuleRequiredFields, rules.MUST, "Required fields are present: messages (non-empty), each message's role, content of user/system/developer/tool messages, tool_call_id, tool_calls[].id/type/function.name/arguments, content part types, tools[].type/function.name.",
			"https://platform.openai.com/docs/api-reference/chat/create (required fields); https://github.com/SilasMarvin/lsp-ai/issues/108 (messages); https://github.com/neuron-core/neuron-ai/issues/292 (content[0].type)", checkRequired),
		r(RuleStreamOptions, rules.MUST, "stream_options is sent only with stream: true.",
			"https://github.com/BerriAI/litellm/issues/5803 (verbatim 400, param stream_options)", checkStreamOptions),
		r(RuleToolCallsNonEmpty, rules.MUST, "An assistant message's tool_calls, when sent, is not an empty array (omit it instead).",
			"https://github.com/home-assistant/core/pull/118577 (verbatim 400, code empty_array); https://github.com/openai/openai-node/pull/1341", checkToolCallsNonEmpty),
		r(RuleArgumentsString, rules.MUST, "function.arguments of a replayed tool call is a JSON-encoded string, not an object.",
			"https://github.com/openai/openai-go/blob/v3.98.0/chatcompletion.go (function.arguments: a JSON-encoded string); https://github.com/aaif-goose/goose-mobile/pull/20 (verbatim 400: Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead., code invalid_type)", checkArgumentsString),
		r(RuleImageOnlyInUser, rules.MUST, "Image URLs appear only in user messages; a tool message may carry text only.",
			"https://github.com/strands-agents/sdk-python/issues/320 [V]", checkImages),
		r(RuleImageFormat, rules.MUST, "An image sent inline (a base64 data URL) is a PNG, JPEG, GIF or WebP image, whatever its data URL's media type says.",
			"testdata/corpus/traceloop-openllmetry.jsonl (test_vision_base64.yaml#4: text bytes labelled image/jpeg, recorded 400 with this text, param null, code invalid_image_format)", checkImageFormat),
		r(RuleToolNamePattern, rules.MUST, "Function names match ^[a-zA-Z0-9_-]+$ and are at most 64 characters.",
			"https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools (function.name: a-z, A-Z, 0-9, _ and -, max 64); https://github.com/brekkylab/ailoy/pull/109 (verbatim 400)", checkNames),
		r(RuleToolSchemaValid, rules.MUST, "Function parameters are a valid JSON Schema of an object.",
			"https://platform.openai.com/docs/guides/function-calling (parameters: JSON Schema object); https://github.com/sigoden/aichat/pull/1049 (verbatim 400)", checkSchemas),
		r(RuleStrictSchema, rules.MUST, "A strict function's object schemas set additionalProperties: false and require every property.",
			"https://platform.openai.com/docs/guides/function-calling#strict-mode; https://github.com/kevinwatt/mysql-mcp/issues/5 (verbatim 400)", checkStrict),
		r(RuleToolCallsAnswered, rules.MUST, "Every tool_calls id of an assistant message is answered by a tool message directly after it.",
			"https://github.com/sdcb/chats/pull/132; https://github.com/router-for-me/CLIProxyAPI/issues/2798", checkToolCallsAnswered),
		r(RuleToolMessageFollows, rules.MUST, "A tool message directly follows an assistant tool_calls message (or tool messages of its batch) and answers one of its ids.",
			"https://github.com/miurla/morphic/issues/136; https://github.com/sdcb/chats/pull/132", checkToolMessageFollows),
		r(RuleToolControlsNeedTools, rules.MUST, "tool_choice and parallel_tool_calls are sent only with tools (and the legacy function_call only with functions); tool_choice \"none\" without tools is refused too.",
			"https://github.com/RageAgainstThePixel/OpenAI-DotNet/issues/479 (verbatim 400, param tool_choice, code null); https://github.com/openai/swarm/issues/30 and https://github.com/openai/openai-openapi/pull/287 (parallel_tool_calls, verbatim); https://github.com/Azure-Samples/azure-search-openai-demo/pull/1175 (function_call, verbatim); https://github.com/vllm-project/vllm/pull/40311 (tool_choice \"none\" without tools refused by the real API)", checkToolControlsNeedTools),
		r(RuleForcedToolDeclared, rules.SHOULD, "A tool_choice that forces a named function (or custom tool) names one declared in tools. Journaled, not answered: no public capture shows the API's answer to an undeclared name.",
			"https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice (forces the named tool); that the API refuses an undeclared name, and the text, are inferred [I]", checkForcedToolDeclared),
		r(RuleReasoningMaxTokens, rules.MUST, "Reasoning models (o1*, o3*, o4*, gpt-5*) take max_completion_tokens; the legacy max_tokens is refused.",
			"https://github.com/griptape-ai/ComfyUI-Griptape/issues/312 (gpt-5, verbatim 400 with param max_tokens, code unsupported_parameter); https://github.com/teilomillet/gollm/issues/33 (o1, o3-mini)", checkReasoningMaxTokens),
	}
	// Feature tags let suite profiles skip rules a client never meets.
	features := map[string]string{RuleStreamOptions: "streaming", RuleImageOnlyInUser: "images", RuleImageFormat: "images", RuleStrictSchema: "strict"}
	for i := range list {
		list[i].Feature = features[list[i].ID]
		if list[i].ID == RuleToolCallsAnswered {
			list[i].Option = toolParamOption
		}
	}
	return list
}

func asRequest(req any) *Request {
	r, _ := req.(*Request)
	return r
}

func badRequest(order int, path, param, code, msg string) rules.Violation {
	v := rules.Violation{Path: path, Order: order, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Message: msg}
	if param != "" {
		v.Param = param
	}
	if code != "" {
		v.Code = code
	}
	return v
}

func missing(order int, path string) rules.Violation {
	return badRequest(order, path, path, missingCode, fmt.Sprintf("Missing required parameter: '%s'.", path))
}

// judgedByDecoder is the check of the rules a body breaks before it can
// be read at all (decode.go answers them): a request that reaches the
// checks has kept them.
func judgedByDecoder(any, *rules.Env) []rules.Violation { return nil }

// onlyWithTools is the API's answer to a tool control sent without the
// tools it controls, e.g. "Invalid value for 'tool_choice': 'tool_choice'
// is only allowed when 'tools' are specified."
func onlyWithTools(param, tools string) rules.Violation {
	return badRequest(requestLevel, param, param, "",
		fmt.Sprintf("Invalid value for '%s': '%s' is only allowed when '%s' are specified.", param, param, tools))
}

func checkToolControlsNeedTools(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
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
}

// checkForcedToolDeclared: the forced name must be a declared tool of the
// same kind. Without tools the tool-controls rule answers instead.
func checkForcedToolDeclared(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || len(r.Tools) == 0 || (r.ToolChoice.Mode != "function" && r.ToolChoice.Mode != "custom") {
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

// MaxTokensUnsupportedMessage is the API's answer to max_tokens sent to a
// reasoning model.
const MaxTokensUnsupportedMessage = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."

// reasoningModelPrefixes name the reasoning model families.
var reasoningModelPrefixes = []string{"o1", "o3", "o4", "gpt-5"}

// IsReasoningModel reports whether a model name is of a reasoning family
// (a dated or sized variant such as o4-mini-2025-04-16 included).
func IsReasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range reasoningModelPrefixes {
		if m == p || strings.HasPrefix(m, p+"-") || strings.HasPrefix(m, p+".") {
			return true
		}
	}
	return false
}

func checkReasoningMaxTokens(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || !r.MaxTokensSent || !IsReasoningModel(r.Model) {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "max_tokens", "max_tokens", "unsupported_parameter", MaxTokensUnsupportedMessage)}
}

// checkMessageMembers journals the members inside messages their role
// does not define.
func checkMessageMembers(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, u := range r.MessageExtras {
		out = append(out, rules.Violation{Path: u.Path, Order: requestLevel, Message: u.Message})
	}
	return out
}

// checkFieldValues judges the values the decoder takes by type but the
// API refuses: sampling members out of range. Every other breach of the
// field-types rule is answered while decoding.
func checkFieldValues(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil && (r.Temperature != nil || r.TopP != nil) {
		return openaiwire.CheckSamplingRanges(r.Temperature, r.TopP, requestLevel)
	}
	return nil
}

// checkKnownFields journals the unknown members lenient decoding kept; a
// strict decode answers the first one itself.
func checkKnownFields(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, u := range r.Unknown {
		out = append(out, rules.Violation{Path: u.Path, Order: requestLevel, Status: http.StatusBadRequest, ErrType: openaiwire.InvalidRequest, Message: u.Message})
	}
	return out
}

func checkModel(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.HasModel {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "model", "", "", ModelRequiredMessage)}
}

// contentRequired are the roles whose content may not be omitted; an
// assistant message may leave it out when it carries tool_calls.
var contentRequired = map[string]bool{"system": true, "developer": true, "user": true, "tool": true}

// checkRequired builds each path only for a violation: a well-formed
// request, the common case, costs no formatting.
func checkRequired(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	if !r.HasMessages {
		out = append(out, missing(requestLevel, "messages"))
	} else if len(r.Messages) == 0 {
		// The API's min-length wording, captured for tool_calls [I: not
		// captured for messages itself].
		out = append(out, emptyArray(requestLevel, "messages"))
	}
	for _, m := range r.Messages {
		if !m.HasRole {
			out = append(out, missing(m.Index, messagePath(m.Index)+".role"))
			continue
		}
		if contentRequired[m.Role] && !m.HasContent {
			out = append(out, missing(m.Index, messagePath(m.Index)+".content"))
		}
		for j, part := range m.Parts {
			if !part.HasType {
				out = append(out, missing(m.Index, partPath(m.Index, j)+".type"))
			}
		}
		if m.Role == "tool" && !m.HasToolCallID {
			out = append(out, missing(m.Index, messagePath(m.Index)+".tool_call_id"))
		}
		if m.Role != "assistant" {
			continue
		}
		for j, tc := range m.ToolCalls {
			var field string
			switch {
			case !tc.HasID:
				field = ".id"
			case !tc.HasType:
				field = ".type"
			case tc.Type != "function":
				// custom tool calls carry "custom", not "function"
			case !tc.HasFunction:
				field = ".function"
			case !tc.HasName:
				field = ".function.name"
			case !tc.HasArguments:
				field = ".function.arguments"
			}
			if field != "" {
				out = append(out, missing(m.Index, toolCallPath(m.Index, j)+field))
			}
		}
	}
	base := len(r.Messages)
	for _, t := range r.Tools {
		var field string
		switch {
		case !t.HasType:
			field = ".type"
		case t.Type != "function":
		case !t.HasFunction:
			field = ".function"
		case !t.HasName:
			field = ".function.name"
		}
		if field != "" {
			out = append(out, missing(base+t.Index, toolPath(t.Index)+field))
		}
	}
	return out
}

// StreamOptionsMessage is the API's answer to stream_options without stream.
const StreamOptionsMessage = "The 'stream_options' parameter is only allowed when 'stream' is enabled."

func checkStreamOptions(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || !r.StreamOptionsSent || r.Stream {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "stream_options", "stream_options", "", StreamOptionsMessage)}
}

func checkToolCallsNonEmpty(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, m := range r.Messages {
		if m.ToolCallsSent && len(m.ToolCalls) == 0 {
			out = append(out, emptyArray(m.Index, fmt.Sprintf("messages[%d].tool_calls", m.Index)))
		}
	}
	return out
}

// emptyArray is the API's min-length answer, e.g. "Invalid
// 'messages[2].tool_calls': empty array. Expected an array with minimum
// length 1, but got an empty array instead." (home-assistant/core #118577).
func emptyArray(order int, path string) rules.Violation {
	return badRequest(order, path, path, "empty_array",
		fmt.Sprintf("Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", path))
}

// checkArgumentsString: the validator behind this message writes the path
// as messages[2] (no dot), unlike the tool-pairing messages.
func checkArgumentsString(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for j, tc := range m.ToolCalls {
			if !tc.HasArguments {
				continue
			}
			if _, ok := tc.Arguments.(string); ok {
				continue
			}
			p := fmt.Sprintf("messages[%d].tool_calls[%d].function.arguments", m.Index, j)
			out = append(out, badRequest(m.Index, p, p, "invalid_type",
				fmt.Sprintf("Invalid type for '%s': expected a string, but got %s instead.", p, typeName(tc.Arguments))))
		}
	}
	return out
}

func checkImages(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, m := range r.Messages {
		if m.Role == "user" || !m.HasRole {
			continue
		}
		for _, part := range m.Parts {
			if part.Type == "image_url" {
				p := fmt.Sprintf("messages[%d]", m.Index)
				out = append(out, badRequest(m.Index, p, p, "invalid_value",
					fmt.Sprintf("Invalid '%s'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", p, m.Role)))
				break
			}
		}
	}
	return out
}

// UnsupportedImageMessage is the API's answer to inline image bytes that
// are none of the formats it reads (its wording, "has of one", kept).
const UnsupportedImageMessage = "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp']."

// checkImageFormat reads the first bytes of each inline image: the API
// decodes the image itself, so a data URL whose bytes are not an image is
// refused even when its media type claims one. A URL the API would fetch
// is not judged (the mock fetches nothing).
func checkImageFormat(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	for _, m := range r.Messages {
		for j, part := range m.Parts {
			if part.Type != "image_url" {
				continue
			}
			_, data, ok := splitDataURL(part.ImageURL)
			if !ok || imageFormat(data) {
				continue
			}
			return []rules.Violation{badRequest(m.Index, fmt.Sprintf("messages[%d].content[%d].image_url.url", m.Index, j), "", "invalid_image_format", UnsupportedImageMessage)}
		}
	}
	return nil
}

// imageFormat reports whether base64 data starts like a PNG, JPEG, GIF or
// WebP file. Only the first 16 bytes are decoded.
func imageFormat(data string) bool {
	head := data[:min(len(data), 24)]
	head = head[:len(head)/4*4]
	b, err := base64.StdEncoding.DecodeString(head)
	if err != nil {
		if b, err = base64.URLEncoding.DecodeString(head); err != nil {
			return false
		}
	}
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")),
		bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}),
		bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")),
		len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return true
	}
	return false
}

// decls lists the declared functions for the shared openaiwire checks;
// tools without a name are left to the required-fields rule. keep picks
// the declarations a check can say something about: each openaiwire check
// judges every declaration on its own and skips the others, so leaving
// them out changes no verdict, and a request whose tools are all fine
// builds no list and no paths at all.
//
// The list is appended to out, which callers back with an array on their
// stack (the openaiwire checks keep no reference to the slice).
func decls(out []openaiwire.ToolDecl, r *Request, order int, keep func(Tool) bool) []openaiwire.ToolDecl {
	for _, t := range r.Tools {
		if t.Type != "function" || !t.HasName || !keep(t) {
			continue
		}
		out = append(out, openaiwire.ToolDecl{Name: t.Name, Parameters: t.Parameters, Strict: t.Strict,
			Path: toolFunctionPath(t.Index), Order: order + t.Index})
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

// checkNames passes only names that break the pattern or the length:
// openaiwire.CheckNames reports exactly those.
func checkNames(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil {
		var buf [4]openaiwire.ToolDecl
		if ds := decls(buf[:0], r, len(r.Messages), func(t Tool) bool { return !validName(t.Name) }); len(ds) > 0 {
			return openaiwire.CheckNames(ds)
		}
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

// checkSchemas passes the declarations with parameters: CheckSchemas
// skips the others. Its verdicts are cached by the schema's bytes there.
func checkSchemas(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil {
		var buf [4]openaiwire.ToolDecl
		if ds := decls(buf[:0], r, semanticTier, func(t Tool) bool { return len(t.Parameters) > 0 }); len(ds) > 0 {
			return openaiwire.CheckSchemas(ds)
		}
	}
	return nil
}

// checkStrict passes the strict declarations with parameters: CheckStrict
// skips the others.
func checkStrict(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil {
		var buf [4]openaiwire.ToolDecl
		if ds := decls(buf[:0], r, semanticTier, func(t Tool) bool { return t.Strict && len(t.Parameters) > 0 }); len(ds) > 0 {
			return openaiwire.CheckStrict(ds)
		}
	}
	return nil
}

// checkToolCallsAnswered: the tool messages directly after an assistant
// tool_calls message must answer each of its ids; only the unanswered ids
// are listed. param follows Options.OpenAIToolParam: "messages" (2024
// captures) or messages.[N].role with N the assistant message [I: which
// index the API means is not settled].
func checkToolCallsAnswered(req any, env *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for i, m := range r.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for j := i + 1; j < len(r.Messages) && r.Messages[j].Role == "tool"; j++ {
			answered[r.Messages[j].ToolCallID] = true
		}
		var unanswered []string
		seen := map[string]bool{}
		for _, tc := range m.ToolCalls {
			if !tc.HasID || answered[tc.ID] || seen[tc.ID] {
				continue
			}
			seen[tc.ID] = true
			unanswered = append(unanswered, tc.ID)
		}
		if len(unanswered) == 0 {
			continue
		}
		param := fmt.Sprintf("messages.[%d].role", i)
		if env != nil && env.Options.OpenAIToolParam == "messages" {
			param = "messages"
		}
		out = append(out, badRequest(semanticTier+i, fmt.Sprintf("messages[%d].tool_calls", i), param, "",
			toolCallsAnsweredPrefix+strings.Join(unanswered, ", ")))
	}
	return out
}

// checkToolMessageFollows: a tool message is valid only inside the run of
// tool messages right after an assistant tool_calls message, answering one
// of that message's ids. An id matching no call gets the same answer [I:
// https://platform.openai.com/docs/guides/function-calling names it the likely one].
func checkToolMessageFollows(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	var batch *Message // the open tool_calls message, nil when none
	var batchIDs map[string]bool
	for i, m := range r.Messages {
		switch m.Role {
		case "assistant":
			batch, batchIDs = nil, nil
			if len(m.ToolCalls) > 0 {
				batch = &r.Messages[i]
			}
		case "tool":
			if !m.HasToolCallID && batch != nil {
				continue // required-fields reports the missing id
			}
			if batch == nil || !batchAnswers(batch, &batchIDs, m.ToolCallID) {
				p := messagePath(i)
				out = append(out, badRequest(semanticTier+i, p, fmt.Sprintf("messages.[%d].role", i), "", ToolMessageOrphanMessage))
			}
		default:
			batch, batchIDs = nil, nil
		}
	}
	return out
}

// batchAnswers reports whether id is one of the batch's call ids. A batch
// holds a few calls, searched in place; a large one gets a set, built
// once into *ids, so a long run of tool messages stays linear.
func batchAnswers(batch *Message, ids *map[string]bool, id string) bool {
	const searchInPlace = 16
	if len(batch.ToolCalls) <= searchInPlace {
		for _, tc := range batch.ToolCalls {
			if tc.ID == id {
				return true
			}
		}
		return false
	}
	if *ids == nil {
		*ids = make(map[string]bool, len(batch.ToolCalls))
		for _, tc := range batch.ToolCalls {
			(*ids)[tc.ID] = true
		}
	}
	return (*ids)[id]
}

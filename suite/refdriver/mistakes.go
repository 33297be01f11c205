package refdriver

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// More classic mistakes, one per request rule the variants above leave
// unfailed, so the kill matrix proves every rule of the catalog can be
// caught. Mistakes the SDK params can express are made there (the run
// loops test d.Break); the others edit the request body (edit below).
const (
	// Every dialect.
	ResultsAsUserText Break = "results-as-user-text"
	// OpenAI Chat, OpenAI Responses and Anthropic.
	OmitModel Break = "omit-model"
	// OpenAI Chat and Responses.
	StrictWithLooseSchema Break = "non-strict-schema-with-strict"
	ToolNameWithDot       Break = "tool-name-with-dot"
	// OpenAI Chat.
	OmitToolCallType           Break = "omit-tool-call-type"
	StreamOptionsWithoutStream Break = "stream-options-without-stream"
	EmptyToolCalls             Break = "empty-tool-calls"
	UnknownMember              Break = "unknown-member"
	MessageExtraMember         Break = "message-extra-member"
	ImageNotAnImage            Break = "image-not-an-image"
	WrongMemberType            Break = "wrong-member-type"
	TruncatedBody              Break = "truncated-body"
	ToolControlsWithoutTools   Break = "tool-controls-without-tools"
	ForceUndeclaredTool        Break = "force-undeclared-tool"
	MaxTokensToReasoningModel  Break = "max-tokens-to-reasoning-model"
	// OpenAI Responses.
	OmitFunctionCallName          Break = "omit-function-call-name"
	AssistantInputText            Break = "assistant-input-text"
	ToolRoleInResponses           Break = "tool-role-in-responses"
	PreviousResponseUnknown       Break = "previous-response-unknown"
	DropOutputWithPreviousResp    Break = "drop-output-with-previous-response"
	ReasoningWithoutFollowingItem Break = "reasoning-without-following-item"
	// Anthropic.
	OmitMaxTokens         Break = "omit-max-tokens"
	DuplicateToolUseIDs   Break = "duplicate-tool-use-ids"
	TextAfterToolUse      Break = "text-after-tool-use"
	DropToolUseBlocks     Break = "drop-tool-use-blocks"
	MCPContentPassthrough Break = "mcp-content-passthrough"
	// Anthropic and Gemini.
	DropFirstUserTurn Break = "drop-first-user-turn"
	// Gemini.
	ResponsesInCallTurn       Break = "responses-in-call-turn"
	PromptAsSystemInstruction Break = "prompt-as-system-instruction"
	ResponseIDNotEchoed       Break = "response-id-not-echoed"
	DuplicateDisplayName      Break = "duplicate-display-name"
	FileDataParts             Break = "file-data-parts"
	UnsupportedMIME           Break = "unsupported-mime"
	DanglingRef               Break = "dangling-ref"
	GeminiRoleTool            Break = "gemini-role-tool"
	EmptyGeminiPart           Break = "empty-gemini-part"
)

func init() {
	chat, resp, anth, gem := conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic, conv.Gemini
	all = append(all,
		BreakInfo{ResultsAsUserText, nil, "drop the model's call turn and paste the tool results into a user message as text"},
		BreakInfo{OmitModel, []conv.Dialect{chat, resp, anth}, "leave model out of the request body"},
		BreakInfo{StrictWithLooseSchema, []conv.Dialect{chat, resp}, "declare every function strict: true without making its schema strict (additionalProperties: false, all properties required)"},
		BreakInfo{ToolNameWithDot, []conv.Dialect{chat, resp, anth}, `declare tools under MCP-style namespaced names ("mcp.get_weather")`},
		BreakInfo{OmitToolCallType, []conv.Dialect{chat}, `replay tool_calls without their "type": "function"`},
		BreakInfo{StreamOptionsWithoutStream, []conv.Dialect{chat}, "send stream_options {include_usage: true} on non-streamed requests too"},
		BreakInfo{EmptyToolCalls, []conv.Dialect{chat}, "replay the model's text as its own assistant message with tool_calls: [] before the message with the calls"},
		BreakInfo{UnknownMember, []conv.Dialect{chat, resp, anth, gem}, `send a member the API does not define ("toolwire_extra": 1)`},
		BreakInfo{MessageExtraMember, []conv.Dialect{chat}, `keep a client-side member in the first message ("toolwire_id": "m1")`},
		BreakInfo{ImageNotAnImage, []conv.Dialect{chat}, `attach a data URL labelled image/jpeg whose bytes are text (a page saved in place of the picture)`},
		BreakInfo{WrongMemberType, []conv.Dialect{chat, resp, anth, gem}, `send a member with the wrong JSON kind (Chat "n": "1", elsewhere temperature "warm")`},
		BreakInfo{TruncatedBody, []conv.Dialect{chat, resp, anth, gem}, "send the body without its closing brace"},
		BreakInfo{ToolControlsWithoutTools, []conv.Dialect{chat, anth, gem}, "drop tools but keep the tool controls (Chat parallel_tool_calls: false, Anthropic tool_choice auto, Gemini functionCallingConfig)"},
		BreakInfo{ForceUndeclaredTool, []conv.Dialect{chat, resp, anth, gem}, "force the model to a function that is not declared (tool_choice, or Gemini allowedFunctionNames)"},
		BreakInfo{MaxTokensToReasoningModel, []conv.Dialect{chat}, "send max_tokens to a reasoning model (o4-mini)"},
		BreakInfo{OmitFunctionCallName, []conv.Dialect{resp}, "replay function_call items without their name"},
		BreakInfo{AssistantInputText, []conv.Dialect{resp}, "replay assistant messages with input_text parts instead of output_text"},
		BreakInfo{ToolRoleInResponses, []conv.Dialect{resp}, `send results Chat-style, as {"role": "tool", "tool_call_id": …} messages`},
		BreakInfo{PreviousResponseUnknown, []conv.Dialect{resp}, "chain turns with previous_response_id while sending store: false (the response it names was never stored)"},
		BreakInfo{DropOutputWithPreviousResp, []conv.Dialect{resp}, "chain turns with previous_response_id and send a user message instead of the function_call_output items"},
		BreakInfo{ReasoningWithoutFollowingItem, []conv.Dialect{resp}, "replay reasoning items after the function_call items they preceded"},
		BreakInfo{OmitMaxTokens, []conv.Dialect{anth}, "leave max_tokens out (an OpenAI habit)"},
		BreakInfo{DuplicateToolUseIDs, []conv.Dialect{anth}, "give every tool_use of a turn the same id (toolu_01), so the calls of a parallel turn share one (reusing an id in a later turn is accepted)"},
		BreakInfo{TextAfterToolUse, []conv.Dialect{anth}, "replay the assistant turn with its tool_use blocks first and its text after them"},
		BreakInfo{DropToolUseBlocks, []conv.Dialect{anth}, "replay assistant turns without their tool_use blocks"},
		BreakInfo{MCPContentPassthrough, []conv.Dialect{anth}, "copy MCP content items into tool_result.content unchanged (resource items included)"},
		BreakInfo{DropFirstUserTurn, []conv.Dialect{anth, gem}, "trim the history so it no longer starts with the user's prompt (a window that cut the first turn)"},
		BreakInfo{ResponsesInCallTurn, []conv.Dialect{gem}, "append the function responses to the model's content instead of a new user content"},
		BreakInfo{PromptAsSystemInstruction, []conv.Dialect{gem}, "send the prompt as systemInstruction, leaving contents empty"},
		BreakInfo{ResponseIDNotEchoed, []conv.Dialect{gem}, "leave functionResponse.id empty when the functionCall had an id"},
		BreakInfo{DuplicateDisplayName, []conv.Dialect{gem}, "give every multimodal part of a function response the same displayName"},
		BreakInfo{FileDataParts, []conv.Dialect{gem}, "send tool media as fileData without a fileUri (the bytes dropped) instead of inlineData"},
		BreakInfo{UnsupportedMIME, []conv.Dialect{gem}, "label every multimodal part application/octet-stream"},
		BreakInfo{DanglingRef, []conv.Dialect{gem}, `reference multimodal parts with {"$ref": …} but send them without a displayName`},
		BreakInfo{GeminiRoleTool, []conv.Dialect{gem}, `send function responses in a content with role "tool" (as older docs showed)`},
		BreakInfo{EmptyGeminiPart, []conv.Dialect{gem}, `leave an empty part ({}) in the first content, where a dropped attachment was`},
	)
}

// moreEdits returns the body rewrite of the mistakes above that the
// typed SDK params cannot make, or nil.
func (d *Driver) moreEdits() func([]byte) []byte {
	switch d.Break {
	case OmitModel:
		return deleteKey("model")
	case OmitMaxTokens:
		return deleteKey("max_tokens")
	case UnknownMember:
		return setKeys(map[string]any{"toolwire_extra": 1})
	case MessageExtraMember:
		return setKeys(map[string]any{"messages.0.toolwire_id": "m1"})
	case ImageNotAnImage:
		return setKeys(map[string]any{"messages.-1": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "And this picture?"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/jpeg;base64,PCFET0NUWVBFIGh0bWw+"}}}}})
	case WrongMemberType:
		return setKeys(map[string]any{"n": "1"})
	case TruncatedBody:
		// The closing brace, not a trailing newline some encoders add.
		return func(body []byte) []byte {
			body = bytes.TrimRight(body, " \t\r\n")
			return body[:len(body)-1]
		}
	case ToolControlsWithoutTools:
		return func(body []byte) []byte {
			return setKeys(map[string]any{"parallel_tool_calls": false})(deleteKey("tools")(deleteKey("tool_choice")(body)))
		}
	case ForceUndeclaredTool:
		return setKeys(map[string]any{"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "no_such_tool"}}})
	case MaxTokensToReasoningModel:
		return setKeys(map[string]any{"model": "o4-mini", "max_tokens": 256})
	case ToolNameWithDot:
		return eachPath([]string{"tools.#.function.name", "tools.#.name"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote("mcp." + v.Str), v.Type == gjson.String
		})
	case OmitToolCallType:
		return deletePaths("messages.#.tool_calls.#.type")
	case OmitFunctionCallName:
		return func(body []byte) []byte {
			for i, it := range gjson.GetBytes(body, "input").Array() {
				if it.Get("type").Str == "function_call" {
					body, _ = sjson.DeleteBytes(body, "input."+strconv.Itoa(i)+".name")
				}
			}
			return body
		}
	case AssistantInputText:
		return func(body []byte) []byte {
			for i, it := range gjson.GetBytes(body, "input").Array() {
				if it.Get("role").Str != "assistant" {
					continue
				}
				for j, part := range it.Get("content").Array() {
					if part.Get("type").Str == "output_text" {
						body, _ = sjson.SetBytes(body, fmt.Sprintf("input.%d.content.%d.type", i, j), "input_text")
					}
				}
			}
			return body
		}
	case EmptyToolCalls:
		return mapArray("messages", func(m gjson.Result) []string {
			text := m.Get("content")
			if m.Get("role").Str != "assistant" || len(m.Get("tool_calls").Array()) == 0 || text.Type != gjson.String || text.Str == "" {
				return []string{m.Raw}
			}
			calls, _ := sjson.Set(m.Raw, "content", nil)
			return []string{fmt.Sprintf(`{"role":"assistant","content":%s,"tool_calls":[]}`, text.Raw), calls}
		})
	case DuplicateToolUseIDs:
		return sameToolUseIDs
	case TextAfterToolUse:
		return mapBlocks(func(blocks []gjson.Result) []gjson.Result {
			var calls, rest []gjson.Result
			for _, b := range blocks {
				if b.Get("type").Str == "tool_use" {
					calls = append(calls, b)
				} else {
					rest = append(rest, b)
				}
			}
			return append(calls, rest...)
		})
	case DropToolUseBlocks:
		return mapBlocks(func(blocks []gjson.Result) []gjson.Result {
			var rest []gjson.Result
			for _, b := range blocks {
				if b.Get("type").Str != "tool_use" {
					rest = append(rest, b)
				}
			}
			return rest
		})
	case DropFirstUserTurn:
		return func(body []byte) []byte {
			for _, key := range []string{"messages", "contents"} {
				list := gjson.GetBytes(body, key).Array()
				if len(list) >= 2 && list[0].Get("role").Str == "user" {
					body, _ = sjson.DeleteBytes(body, key+".0")
				}
			}
			return body
		}
	case EmptyGeminiPart:
		return func(body []byte) []byte {
			body, _ = sjson.SetRawBytes(body, "contents.0.parts.-1", []byte(`{}`))
			return body
		}
	case GeminiRoleTool:
		return func(body []byte) []byte {
			for i, c := range gjson.GetBytes(body, "contents").Array() {
				if c.Get("parts.0.functionResponse").Exists() {
					body, _ = sjson.SetBytes(body, "contents."+strconv.Itoa(i)+".role", "tool")
				}
			}
			return body
		}
	}
	return d.issuedEdits()
}

// setKeys sets top-level members (in sorted order, so runs repeat).
func setKeys(kv map[string]any) func([]byte) []byte {
	return func(body []byte) []byte {
		keys := make([]string, 0, len(kv))
		for k := range kv {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if out, err := sjson.SetBytes(body, k, kv[k]); err == nil {
				body = out
			}
		}
		return body
	}
}

func deleteKey(key string) func([]byte) []byte {
	return func(body []byte) []byte {
		out, err := sjson.DeleteBytes(body, key)
		if err != nil {
			return body
		}
		return out
	}
}

// deletePaths deletes every value at pattern ("#" = every array index).
func deletePaths(pattern string) func([]byte) []byte {
	return func(body []byte) []byte {
		paths := expand(body, pattern)
		// Last first, so earlier indexes stay valid.
		for i := len(paths) - 1; i >= 0; i-- {
			if gjson.GetBytes(body, paths[i]).Exists() {
				body, _ = sjson.DeleteBytes(body, paths[i])
			}
		}
		return body
	}
}

// mapArray replaces each element of the array at key by the raw JSON
// elements f returns for it (none, itself, or several).
func mapArray(key string, f func(gjson.Result) []string) func([]byte) []byte {
	return func(body []byte) []byte {
		arr := gjson.GetBytes(body, key)
		if !arr.IsArray() {
			return body
		}
		var items []string
		for _, el := range arr.Array() {
			items = append(items, f(el)...)
		}
		out, err := sjson.SetRawBytes(body, key, []byte("["+strings.Join(items, ",")+"]"))
		if err != nil {
			return body
		}
		return out
	}
}

// mapBlocks rewrites the content blocks of every Anthropic assistant
// message with array content.
func mapBlocks(f func([]gjson.Result) []gjson.Result) func([]byte) []byte {
	return mapArray("messages", func(m gjson.Result) []string {
		content := m.Get("content")
		if m.Get("role").Str != "assistant" || !content.IsArray() {
			return []string{m.Raw}
		}
		var raws []string
		for _, b := range f(content.Array()) {
			raws = append(raws, b.Raw)
		}
		out, err := sjson.SetRaw(m.Raw, "content", "["+strings.Join(raws, ",")+"]")
		if err != nil {
			return []string{m.Raw}
		}
		return []string{out}
	})
}

// sameToolUseIDs gives every tool_use block of each assistant message the
// id toolu_01 and points the tool_result blocks at it: an adapter that
// mints one id per turn. Ids only need to differ within a turn, so the
// later turns' reuse is fine and the parallel turns are the mistake.
func sameToolUseIDs(body []byte) []byte {
	renamed := map[string]string{}
	msgs := gjson.GetBytes(body, "messages").Array()
	for i, m := range msgs {
		if m.Get("role").Str != "assistant" {
			continue
		}
		for j, b := range m.Get("content").Array() {
			if b.Get("type").Str != "tool_use" {
				continue
			}
			id := "toolu_01"
			renamed[b.Get("id").Str] = id
			body, _ = sjson.SetBytes(body, fmt.Sprintf("messages.%d.content.%d.id", i, j), id)
		}
	}
	for i, m := range msgs {
		for j, b := range m.Get("content").Array() {
			if id, ok := renamed[b.Get("tool_use_id").Str]; ok && b.Get("type").Str == "tool_result" {
				body, _ = sjson.SetBytes(body, fmt.Sprintf("messages.%d.content.%d.tool_use_id", i, j), id)
			}
		}
	}
	return body
}

// resultsAsText is the user-message text a results-as-user-text driver
// sends: each call's name and output.
func resultsAsText(names []string, texts []string) string {
	var b strings.Builder
	b.WriteString("Tool results:")
	for i := range names {
		fmt.Fprintf(&b, "\n%s: %s", names[i], texts[i])
	}
	return b.String()
}

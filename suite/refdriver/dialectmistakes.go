package refdriver

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Mistakes against the request-shape and pass-back rules of Anthropic,
// Gemini and Responses: each edits the outgoing body in the dialect's own
// vocabulary. The decode-time mistakes (unknown-member, wrong-member-type,
// truncated-body) and the tool-control ones (tool-controls-without-tools,
// force-undeclared-tool) are shared with OpenAI Chat and spelled per
// dialect here.
const (
	// Anthropic.
	DuplicateToolDeclaration Break = "duplicate-tool-declaration"
	EmptyTextBlock           Break = "empty-text-block"
	FiveCacheBreakpoints     Break = "five-cache-breakpoints"
	ThinkingBudgetTooSmall   Break = "thinking-budget-too-small"
	ThinkingBudgetAtMax      Break = "thinking-budget-at-max-tokens"
	ThinkingWithForcedTool   Break = "thinking-with-forced-tool"
	ThinkingNotPassedBack    Break = "thinking-not-passed-back"
	ForgedThinkingSignature  Break = "forged-thinking-signature"
	ForgedRedactedThinking   Break = "forged-redacted-thinking"
	// Gemini.
	JSONSchemaAsParameters Break = "json-schema-as-parameters"
	BothParameterSchemas   Break = "both-parameter-schemas"
	RequiredUndefined      Break = "required-undefined-property"
	CorruptSignature       Break = "corrupt-signature"
	// OpenAI Responses.
	DuplicateItemIDs      Break = "duplicate-item-ids"
	UnknownItemReference  Break = "unknown-item-reference"
	UnstoredItemReference Break = "unstored-item-reference"
)

func init() {
	resp, anth, gem := conv.OpenAIResponses, conv.Anthropic, conv.Gemini
	all = append(all,
		BreakInfo{DuplicateToolDeclaration, []conv.Dialect{anth}, "declare the first tool twice"},
		BreakInfo{EmptyTextBlock, []conv.Dialect{anth}, "send an empty text block before the prompt"},
		BreakInfo{FiveCacheBreakpoints, []conv.Dialect{anth}, "mark five system blocks with cache_control (the API allows four)"},
		BreakInfo{ThinkingBudgetTooSmall, []conv.Dialect{anth}, "enable thinking with budget_tokens 512 (the minimum is 1024)"},
		BreakInfo{ThinkingBudgetAtMax, []conv.Dialect{anth}, "enable thinking with budget_tokens equal to max_tokens"},
		BreakInfo{ThinkingWithForcedTool, []conv.Dialect{anth}, `enable thinking and force tool use (tool_choice "any")`},
		BreakInfo{ThinkingNotPassedBack, []conv.Dialect{anth}, "with thinking on, replay the assistant turns without their thinking blocks"},
		BreakInfo{ForgedThinkingSignature, []conv.Dialect{anth}, "with thinking on, replay each thinking block with a made-up signature"},
		BreakInfo{ForgedRedactedThinking, []conv.Dialect{anth}, "enable thinking and replay tool-calling turns with a redacted_thinking block whose data the API never issued"},
		BreakInfo{JSONSchemaAsParameters, []conv.Dialect{gem}, "send the JSON Schema of each function (additionalProperties included) as parameters instead of parametersJsonSchema"},
		BreakInfo{BothParameterSchemas, []conv.Dialect{gem}, "send parameters beside parametersJsonSchema"},
		BreakInfo{RequiredUndefined, []conv.Dialect{gem}, "declare parameters whose required list names a property it does not define"},
		BreakInfo{CorruptSignature, []conv.Dialect{gem}, "replay function calls with a thought signature the model never issued"},
		BreakInfo{DuplicateItemIDs, []conv.Dialect{resp}, "give each function_call_output the item id of the function_call it answers"},
		BreakInfo{UnknownItemReference, []conv.Dialect{resp}, "continue by item_reference to ids the API never issued"},
		BreakInfo{UnstoredItemReference, []conv.Dialect{resp}, "send store: false yet continue by item_reference (the items of such responses are not kept)"},
	)
}

// editFor returns the body rewrite of the driver's break for dialect, or
// nil.
func (d *Driver) editFor(dialect conv.Dialect) func([]byte) []byte {
	if e := d.modelEdit(dialect); e != nil {
		return e
	}
	if e := d.dialectEdit(dialect); e != nil {
		return e
	}
	return d.edit()
}

// dialectEdit returns the rewrites whose shape depends on the dialect.
func (d *Driver) dialectEdit(dialect conv.Dialect) func([]byte) []byte {
	anth, gem, resp := dialect == conv.Anthropic, dialect == conv.Gemini, dialect == conv.OpenAIResponses
	thinking := func(budget, maxTokens int) map[string]any {
		return map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}, "max_tokens": maxTokens}
	}
	switch {
	case d.Break == WrongMemberType && (anth || resp):
		return setKeys(map[string]any{"temperature": "warm"})
	case d.Break == WrongMemberType && gem:
		return setKeys(map[string]any{"generationConfig.temperature": "warm"})
	case d.Break == ToolControlsWithoutTools && anth:
		return func(body []byte) []byte {
			return setKeys(map[string]any{"tool_choice": map[string]any{"type": "auto"}})(deleteKey("tools")(body))
		}
	case d.Break == ToolControlsWithoutTools && gem:
		return func(body []byte) []byte {
			return setKeys(map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO"}}})(deleteKey("tools")(body))
		}
	case d.Break == ForceUndeclaredTool && anth:
		return setKeys(map[string]any{"tool_choice": map[string]any{"type": "tool", "name": "no_such_tool"}})
	case d.Break == ForceUndeclaredTool && resp:
		return setKeys(map[string]any{"tool_choice": map[string]any{"type": "function", "name": "no_such_tool"}})
	case d.Break == ForceUndeclaredTool && gem:
		return setKeys(map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY", "allowedFunctionNames": []string{"no_such_tool"}}}})
	}
	switch d.Break {
	case DuplicateToolDeclaration:
		return func(body []byte) []byte {
			first := gjson.GetBytes(body, "tools.0")
			if !first.Exists() {
				return body
			}
			out, _ := sjson.SetRawBytes(body, "tools.-1", []byte(first.Raw))
			return out
		}
	case EmptyTextBlock:
		return func(body []byte) []byte {
			prompt := gjson.GetBytes(body, "messages.0.content")
			blocks := []string{`{"type":"text","text":""}`}
			if prompt.Type == gjson.String {
				blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":%s}`, prompt.Raw))
			} else {
				for _, b := range prompt.Array() {
					blocks = append(blocks, b.Raw)
				}
			}
			out, _ := sjson.SetRawBytes(body, "messages.0.content", []byte("["+strings.Join(blocks, ",")+"]"))
			return out
		}
	case FiveCacheBreakpoints:
		var system []map[string]any
		for i := range 5 {
			system = append(system, map[string]any{"type": "text", "text": fmt.Sprintf("Instruction %d: use the tools.", i+1), "cache_control": map[string]any{"type": "ephemeral"}})
		}
		return setKeys(map[string]any{"system": system})
	case ThinkingBudgetTooSmall:
		return setKeys(thinking(512, 4096))
	case ThinkingBudgetAtMax:
		return setKeys(thinking(2048, 2048))
	case ThinkingWithForcedTool:
		kv := thinking(1024, 4096)
		kv["tool_choice"] = map[string]any{"type": "any"}
		return setKeys(kv)
	case ThinkingNotPassedBack:
		// The thinking the task turned on is dropped from the history.
		return mapBlocks(func(blocks []gjson.Result) []gjson.Result {
			kept := blocks[:0:0]
			for _, b := range blocks {
				if t := b.Get("type").Str; t != "thinking" && t != "redacted_thinking" {
					kept = append(kept, b)
				}
			}
			return kept
		})
	case ThinkingNotSent:
		return deleteKey("thinking")
	case ForgedThinkingSignature:
		forged := strconv.Quote(base64.StdEncoding.EncodeToString([]byte("forged signature")))
		return eachPath([]string{"messages.#.content.#.signature"}, func(v gjson.Result) (string, bool) {
			return forged, v.Type == gjson.String
		})
	case ForgedRedactedThinking:
		forged := `{"type":"redacted_thinking","data":"EmwKAhgBZm9yZ2VkIHJlZGFjdGVkIHRoaW5raW5n"}`
		return func(body []byte) []byte {
			body = setKeys(thinking(1024, 4096))(body)
			return mapBlocks(func(blocks []gjson.Result) []gjson.Result {
				if !hasBlock(blocks, "tool_use") || hasBlock(blocks, "redacted_thinking") {
					return blocks
				}
				return append([]gjson.Result{gjson.Parse(forged)}, blocks...)
			})(body)
		}
	case JSONSchemaAsParameters:
		return moveSchema(func(schema gjson.Result) string {
			out, _ := sjson.Set(schema.Raw, "additionalProperties", false)
			return out
		}, false)
	case BothParameterSchemas:
		return moveSchema(func(gjson.Result) string { return `{"type":"OBJECT"}` }, true)
	case RequiredUndefined:
		return moveSchema(func(gjson.Result) string {
			return `{"type":"OBJECT","properties":{"location":{"type":"STRING"}},"required":["no_such_property"]}`
		}, false)
	case CorruptSignature:
		forged := strconv.Quote(base64.StdEncoding.EncodeToString([]byte("a signature nobody issued")))
		return eachPath([]string{"contents.#.parts.#.thoughtSignature"}, func(v gjson.Result) (string, bool) {
			return forged, v.Type == gjson.String && v.Str != ""
		})
	case DuplicateItemIDs:
		// Each function_call_output takes the item id of the call it
		// answers (id and call_id confused).
		return func(body []byte) []byte {
			callItem := map[string]string{}
			for i, it := range gjson.GetBytes(body, "input").Array() {
				switch it.Get("type").Str {
				case "function_call":
					callItem[it.Get("call_id").Str] = it.Get("id").Str
				case "function_call_output":
					if id := callItem[it.Get("call_id").Str]; id != "" {
						body, _ = sjson.SetBytes(body, fmt.Sprintf("input.%d.id", i), id)
					}
				}
			}
			return body
		}
	case UnknownItemReference:
		// Each reference names an id one character off the issued one.
		return func(body []byte) []byte {
			for i, it := range gjson.GetBytes(body, "input").Array() {
				if id := it.Get("id").Str; it.Get("type").Str == "item_reference" && id != "" {
					body, _ = sjson.SetBytes(body, fmt.Sprintf("input.%d.id", i), id[:len(id)-1]+offByOne(id[len(id)-1]))
				}
			}
			return body
		}
	case UnstoredItemReference:
		return setKeys(map[string]any{"store": false})
	}
	return nil
}

// offByOne is another id character in place of c.
func offByOne(c byte) string {
	if c == 'z' {
		return "y"
	}
	return "z"
}

// moveSchema sets each Gemini function declaration's parameters to what
// schema makes of its parametersJsonSchema, which it keeps only if keep.
func moveSchema(schema func(gjson.Result) string, keep bool) func([]byte) []byte {
	return func(body []byte) []byte {
		for _, p := range expand(body, "tools.#.functionDeclarations.#") {
			js := gjson.GetBytes(body, p+".parametersJsonSchema")
			if !js.Exists() {
				continue
			}
			body, _ = sjson.SetRawBytes(body, p+".parameters", []byte(schema(js)))
			if !keep {
				body, _ = sjson.DeleteBytes(body, p+".parametersJsonSchema")
			}
		}
		return body
	}
}

func hasBlock(blocks []gjson.Result, typ string) bool {
	for _, b := range blocks {
		if b.Get("type").Str == typ {
			return true
		}
	}
	return false
}

package refdriver

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/checks"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// mistake is a row of the table: the shared part (name, description,
// the rules it must fail, the shared hooks) and the hooks of this loop.
type mistake struct {
	core.Mistake
	// toolUseID is the tool_use_id an answer names, in place of the
	// tool_use block's id.
	toolUseID func(msg *anthropic.Message, id string) string
	// reply replaces what goes back after a model turn with calls.
	reply func(m *mistake, callTurn anthropic.MessageParam, answers []core.Answer) ([]anthropic.MessageParam, bool)
	// contentItem replaces the tool_result content item made of an MCP
	// content item (ok=false: the honest one).
	contentItem func(task.Content) (item any, ok bool)
}

const anth = conv.Anthropic

// thinkingPassBack is the scenario whose task turns thinking on.
var thinkingPassBack = []string{"thinking-pass-back"}

// mistakes is the table of the mistakes the driver makes on Anthropic
// Messages, each with the rules the suite must fail for it.
var mistakes = []mistake{
	{Mistake: core.SwappedIDs.Failing(checks.ID(anth, checks.MatchesCall))},
	{Mistake: core.UnansweredCall.Failing("anthropic.tool-use-answered", checks.ID(anth, checks.ResultsSent)).MayFailing("anthropic.role-alternation")},
	{Mistake: core.OmitIsError.Failing(checks.ID(anth, checks.ErrorFlagged))},
	{Mistake: core.DropData},
	{Mistake: core.CrashOnUnknownTool},
	{Mistake: core.IgnoreFinalText},
	{Mistake: core.ResultsAsUserText.Failing(checks.ID(anth, checks.ResultsSent)).MayFailing("anthropic.role-alternation"), reply: resultsAsUserText},
	{Mistake: core.DropAssistantTurn.Failing("anthropic.tool-result-matches-tool-use").MayFailing("anthropic.role-alternation"),
		reply: func(m *mistake, _ anthropic.MessageParam, answers []core.Answer) ([]anthropic.MessageParam, bool) {
			return resultMessage(m.toolResults(answers)), true
		}},
	{Mistake: core.Mistake{Name: "text-before-tool-result", Description: "put a text block before the tool_result blocks"}.Failing("anthropic.tool-result-first"),
		reply: func(m *mistake, callTurn anthropic.MessageParam, answers []core.Answer) ([]anthropic.MessageParam, bool) {
			blocks := append([]anthropic.ContentBlockParamUnion{anthropic.NewTextBlock("Here are the tool results.")}, m.toolResults(answers)...)
			return append([]anthropic.MessageParam{callTurn}, resultMessage(blocks)...), true
		}},
	{Mistake: core.Mistake{Name: "anthropic-id-for-tool-use-id", Description: "use the message id (msg_…) as tool_use_id"}.
		Failing("anthropic.tool-result-matches-tool-use", "anthropic.tool-use-answered"),
		toolUseID: func(msg *anthropic.Message, _ string) string { return msg.ID }},
	{Mistake: core.Mistake{Name: "split-results", Description: "send each tool_result in its own user message"}.Failing("anthropic.role-alternation").
		Killing(core.Kill{StrictRoles: true, Fails: []string{"anthropic.strict-role-alternation"}}),
		reply: func(m *mistake, callTurn anthropic.MessageParam, answers []core.Answer) ([]anthropic.MessageParam, bool) {
			reply := []anthropic.MessageParam{callTurn}
			for _, b := range m.toolResults(answers) {
				reply = append(reply, anthropic.NewUserMessage(b))
			}
			return reply, true
		}},
	{Mistake: core.Mistake{Name: "input-as-string", Description: "replay tool_use.input as a JSON string"}.
		Failing("anthropic.tool-use-input-object").Rewriting(core.EachPath([]string{"messages.#.content.#.input"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote(v.Raw), v.IsObject()
	}))},
	{Mistake: core.Mistake{Name: "is-error-string", Description: `send is_error as the string "true"`}.
		Failing("anthropic.tool-result-is-error-boolean").MayFailing(checks.ID(anth, checks.ErrorFlagged)).
		Rewriting(core.EachPath([]string{"messages.#.content.#.is_error"}, func(v gjson.Result) (string, bool) {
			return `"true"`, v.Type == gjson.True
		}))},
	{Mistake: core.Mistake{Name: "duplicate-tool-use-ids", Description: "give every tool_use of a turn the same id (toolu_01), so the calls of a parallel turn share one (reusing an id in a later turn is accepted)"}.
		Failing("anthropic.tool-use-ids-unique").MayFailing(checks.ID(anth, checks.MatchesCall)).Rewriting(sameToolUseIDs)},
	{Mistake: core.Mistake{Name: "text-after-tool-use", Description: "replay the assistant turn with its tool_use blocks first and its text after them"}.
		Failing("anthropic.no-content-after-tool-use").Rewriting(mapBlocks(toolUsesFirst))},
	{Mistake: core.Mistake{Name: "drop-tool-use-blocks", Description: "replay assistant turns without their tool_use blocks"}.
		Failing("anthropic.non-empty-content", "anthropic.tool-result-matches-tool-use").Rewriting(mapBlocks(func(blocks []gjson.Result) []gjson.Result {
		return without(blocks, "tool_use")
	}))},
	{Mistake: core.Mistake{Name: "mcp-content-passthrough", Description: "copy MCP content items into tool_result.content unchanged (resource items included)"}.
		Failing("anthropic.tool-result-content-type").MayFailing("anthropic.known-fields", checks.ID(anth, checks.CarriesMedia), checks.ID(anth, checks.CarriesData)),
		contentItem: func(c task.Content) (any, bool) { return c, c.Type != "text" }},
	{Mistake: core.DropFirstUserTurn.Failing("anthropic.first-message-user").
		Killing(core.Kill{StrictRoles: true, Fails: []string{"anthropic.strict-first-message-user"}}).Rewriting(core.DropFirst("messages"))},

	// The model.
	{Mistake: core.UnknownModel.Failing("anthropic.model-exists").Rewriting(core.SetKeys(map[string]any{"model": "claude-test"}))},
	{Mistake: core.EffortLevelUnsupported.Failing("anthropic.model-supports-effort-level").
		Rewriting(core.SetKeys(map[string]any{"model": "claude-opus-4-6", "output_config": map[string]any{"effort": "xhigh"}}))},

	// Structured outputs: the schema subset, the output_format shape, the
	// model (rules_output.go).
	{Mistake: core.StrictWithLooseSchema.Failing("anthropic.schema-closed-objects").
		MayFailing("anthropic.schema-supported-keywords", "anthropic.schema-complexity-limits", "anthropic.model-supports-structured-outputs").
		Rewriting(core.EachPath([]string{"tools.#"}, func(v gjson.Result) (string, bool) {
			out, err := sjson.Set(v.Raw, "strict", true)
			return out, err == nil && v.Get("input_schema").Exists()
		}))},
	{Mistake: core.Mistake{Name: "bounded-output-schema", Description: "ask for a structured answer whose schema bounds a number (minimum, maximum), which the grammar cannot enforce"}.
		Failing("anthropic.schema-supported-keywords").
		Rewriting(outputFormat("output_config.format", `{"type":"object","properties":{"score":{"type":"number","minimum":0,"maximum":1}},"required":["score"],"additionalProperties":false}`))},
	{Mistake: core.Mistake{Name: "recursive-output-schema", Description: "ask for a structured answer whose schema is recursive (a tree node whose children are nodes)"}.
		Failing("anthropic.schema-not-recursive").
		Rewriting(outputFormat("output_config.format", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],"additionalProperties":false,"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name","children"],"additionalProperties":false}}}`))},
	{Mistake: core.Mistake{Name: "output-schema-too-many-optional", Description: "ask for a structured answer whose schema has 30 optional properties (the limit is 24)"}.
		Failing("anthropic.schema-complexity-limits").Rewriting(outputFormat("output_config.format", optionalProperties(30)))},
	{Mistake: core.Mistake{Name: "output-format-on-opus-4-7", Description: "ask Opus 4.7 for a structured answer in the deprecated output_format"}.
		Failing("anthropic.output-format-deprecated").MayFailing("anthropic.output-format-beta-header").
		Rewriting(core.Chain(core.SetKeys(map[string]any{"model": "claude-opus-4-7"}), outputFormat("output_format", closedReport)))},
	{Mistake: core.Mistake{Name: "both-output-shapes", Description: "give the output schema twice, in output_config.format and in the deprecated output_format (without its beta)"}.
		Failing("anthropic.output-format-one-shape", "anthropic.output-format-beta-header").
		Rewriting(core.Chain(outputFormat("output_config.format", closedReport), outputFormat("output_format", closedReport)))},
	{Mistake: core.Mistake{Name: "structured-output-on-haiku-3-5", Description: "ask Claude Haiku 3.5, which has no structured outputs, for a structured answer"}.
		Failing("anthropic.model-supports-structured-outputs").
		Rewriting(core.Chain(core.SetKeys(map[string]any{"model": "claude-3-5-haiku-20241022"}), outputFormat("output_config.format", closedReport)))},

	// The request's shape.
	{Mistake: core.OmitModel.Failing("anthropic.required-fields")},
	{Mistake: core.Mistake{Name: "omit-max-tokens", Description: "leave max_tokens out (an OpenAI habit)"}.
		Failing("anthropic.required-fields").Rewriting(core.DeleteKey("max_tokens"))},
	{Mistake: core.UnknownMember.Failing("anthropic.known-fields")},
	{Mistake: core.WrongMemberType.Failing("anthropic.field-types").Rewriting(core.SetKeys(map[string]any{"temperature": "warm"}))},
	{Mistake: core.TruncatedBody.Failing("anthropic.valid-json")},
	{Mistake: core.ToolControlsWithoutTools.Failing("anthropic.tool-choice-needs-tools").
		Rewriting(core.Chain(core.DeleteKey("tools"), core.SetKeys(map[string]any{"tool_choice": map[string]any{"type": "auto"}})))},
	{Mistake: core.ForceUndeclaredTool.Failing("anthropic.tool-choice-declared").
		Rewriting(core.SetKeys(map[string]any{"tool_choice": map[string]any{"type": "tool", "name": "no_such_tool"}}))},
	{Mistake: core.ToolNameWithDot.Failing("anthropic.tool-name-pattern").Rewriting(core.EachPath([]string{"tools.#.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("mcp." + v.Str), v.Type == gjson.String
	}))},
	{Mistake: core.Mistake{Name: "duplicate-tool-declaration", Description: "declare the first tool twice"}.
		Failing("anthropic.tool-names-unique").Rewriting(duplicateFirstTool)},
	{Mistake: core.Mistake{Name: "empty-text-block", Description: "send an empty text block before the prompt"}.
		Failing("anthropic.non-empty-text-block").Rewriting(emptyTextBlockFirst)},
	{Mistake: core.Mistake{Name: "five-cache-breakpoints", Description: "mark five system blocks with cache_control (the API allows four)"}.
		Failing("anthropic.cache-control-limit").Rewriting(fiveCacheBreakpoints())},
	{Mistake: core.Mistake{Name: "thinking-budget-too-small", Description: "enable thinking with budget_tokens 512 (the minimum is 1024)"}.
		Failing("anthropic.thinking-budget-minimum").Rewriting(core.SetKeys(thinking(512, 4096)))},
	{Mistake: core.Mistake{Name: "thinking-budget-at-max-tokens", Description: "enable thinking with budget_tokens equal to max_tokens"}.
		Failing("anthropic.thinking-budget-below-max-tokens").Rewriting(core.SetKeys(thinking(2048, 2048)))},
	{Mistake: core.Mistake{Name: "thinking-with-forced-tool", Description: `enable thinking and force tool use (tool_choice "any")`}.
		Failing("anthropic.thinking-no-forced-tool-choice").Rewriting(core.SetKeys(withKey(thinking(1024, 4096), "tool_choice", map[string]any{"type": "any"})))},
	{Mistake: core.Mistake{Name: "thinking-not-passed-back", Description: "with thinking on, replay the assistant turns without their thinking blocks",
		Kill: core.Kill{Scenarios: thinkingPassBack}}.
		Failing("anthropic.thinking-block-first").Rewriting(mapBlocks(func(blocks []gjson.Result) []gjson.Result {
		// The thinking the task turned on is dropped from the history.
		return without(without(blocks, "thinking"), "redacted_thinking")
	}))},
	{Mistake: core.Mistake{Name: "forged-thinking-signature", Description: "with thinking on, replay each thinking block with a made-up signature",
		Kill: core.Kill{Scenarios: thinkingPassBack}}.
		Failing("anthropic.thinking-signature").Rewriting(forgedSignatures())},
	{Mistake: core.Mistake{Name: "forged-redacted-thinking", Description: "enable thinking and replay tool-calling turns with a redacted_thinking block whose data the API never issued"}.
		Failing("anthropic.redacted-thinking-unchanged").Rewriting(forgedRedactedThinking)},

	// What only the model's calls and the task show.
	{Mistake: core.DropLastCall.Failing(checks.ID(anth, checks.ResultsSent)).Rewriting(dropLastCall)},
	{Mistake: core.DuplicateResult.Failing(checks.ID(anth, checks.OneResultPerCall)).Rewriting(duplicateFirstResult)},
	{Mistake: core.ToolChoiceLost.Rewriting(core.DeleteKey("tool_choice"))},
	{Mistake: core.StrictLost.Failing(checks.ID(anth, checks.StrictSent)).Rewriting(core.EachPath([]string{"tools.#.strict"}, func(v gjson.Result) (string, bool) {
		return "false", v.Type == gjson.True
	}))},
	{Mistake: core.MaxOutputTokensIgnored},
	{Mistake: core.KeepForcing},
	{Mistake: core.ExecuteTruncatedCall.Failing(checks.ID(anth, checks.TruncatedCallRun))},
	{Mistake: core.Mistake{Name: "thinking-not-sent", Description: "leave the task's thinking out of the request (the model then never thinks, and nothing is passed back)",
		Kill: core.Kill{Scenarios: thinkingPassBack}}.
		Failing(checks.ID(anth, checks.ThinkingSent)).Rewriting(core.DeleteKey("thinking"))},

	// Correct variants: nothing may fail.
	{Mistake: core.LibraryErrorWording},
	{Mistake: core.ValidateArguments},
	{Mistake: core.DropOutputSchema}, // what only the task shows: its output schema
}

func resultsAsUserText(m *mistake, _ anthropic.MessageParam, answers []core.Answer) ([]anthropic.MessageParam, bool) {
	names, texts := make([]string, len(answers)), make([]string, len(answers))
	for i, a := range answers {
		names[i], texts[i] = a.Name, m.PlainText(a.Result)
	}
	return []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(core.ResultsAsText(names, texts)))}, false
}

func thinking(budget, maxTokens int) map[string]any {
	return map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}, "max_tokens": maxTokens}
}

func withKey(kv map[string]any, k string, v any) map[string]any {
	kv[k] = v
	return kv
}

// mapBlocks rewrites the content blocks of every assistant message with
// array content.
func mapBlocks(f func([]gjson.Result) []gjson.Result) func([]byte) []byte {
	return core.MapArray("messages", func(m gjson.Result) []string {
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

func toolUsesFirst(blocks []gjson.Result) []gjson.Result {
	var calls, rest []gjson.Result
	for _, b := range blocks {
		if b.Get("type").Str == "tool_use" {
			calls = append(calls, b)
		} else {
			rest = append(rest, b)
		}
	}
	return append(calls, rest...)
}

func without(blocks []gjson.Result, typ string) []gjson.Result {
	var rest []gjson.Result
	for _, b := range blocks {
		if b.Get("type").Str != typ {
			rest = append(rest, b)
		}
	}
	return rest
}

func hasBlock(blocks []gjson.Result, typ string) bool {
	for _, b := range blocks {
		if b.Get("type").Str == typ {
			return true
		}
	}
	return false
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

func duplicateFirstTool(body []byte) []byte {
	first := gjson.GetBytes(body, "tools.0")
	if !first.Exists() {
		return body
	}
	out, _ := sjson.SetRawBytes(body, "tools.-1", []byte(first.Raw))
	return out
}

func emptyTextBlockFirst(body []byte) []byte {
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

func fiveCacheBreakpoints() func([]byte) []byte {
	var system []map[string]any
	for i := range 5 {
		system = append(system, map[string]any{"type": "text", "text": fmt.Sprintf("Instruction %d: use the tools.", i+1), "cache_control": map[string]any{"type": "ephemeral"}})
	}
	return core.SetKeys(map[string]any{"system": system})
}

func forgedSignatures() func([]byte) []byte {
	forged := strconv.Quote(base64.StdEncoding.EncodeToString([]byte("forged signature")))
	return core.EachPath([]string{"messages.#.content.#.signature"}, func(v gjson.Result) (string, bool) {
		return forged, v.Type == gjson.String
	})
}

func forgedRedactedThinking(body []byte) []byte {
	forged := `{"type":"redacted_thinking","data":"EmwKAhgBZm9yZ2VkIHJlZGFjdGVkIHRoaW5raW5n"}`
	body = core.SetKeys(thinking(1024, 4096))(body)
	return mapBlocks(func(blocks []gjson.Result) []gjson.Result {
		if !hasBlock(blocks, "tool_use") || hasBlock(blocks, "redacted_thinking") {
			return blocks
		}
		return append([]gjson.Result{gjson.Parse(forged)}, blocks...)
	})(body)
}

// dropLastCall removes, from every assistant message with two tool_use
// blocks or more, the last, and the tool_result block answering it.
func dropLastCall(body []byte) []byte {
	dropped := map[string]bool{}
	body = core.MapArray("messages", func(m gjson.Result) []string {
		if m.Get("role").Str != "assistant" {
			return []string{m.Raw}
		}
		var uses []int
		for i, b := range m.Get("content").Array() {
			if b.Get("type").Str == "tool_use" {
				uses = append(uses, i)
			}
		}
		if len(uses) < 2 {
			return []string{m.Raw}
		}
		last := uses[len(uses)-1]
		dropped[m.Get("content."+strconv.Itoa(last)+".id").Str] = true
		out, _ := sjson.Delete(m.Raw, "content."+strconv.Itoa(last))
		return []string{out}
	})(body)
	return core.MapArray("messages", func(m gjson.Result) []string {
		content := m.Get("content")
		if m.Get("role").Str != "user" || !content.IsArray() {
			return []string{m.Raw}
		}
		var keep []string
		for _, b := range content.Array() {
			if b.Get("type").Str == "tool_result" && dropped[b.Get("tool_use_id").Str] {
				continue
			}
			keep = append(keep, b.Raw)
		}
		return []string{core.SetArrayRaw(m.Raw, "content", keep)}
	})(body)
}

// duplicateFirstResult sends the first tool_result block of every user
// message twice.
func duplicateFirstResult(body []byte) []byte {
	return core.MapArray("messages", func(m gjson.Result) []string {
		if m.Get("role").Str == "user" {
			blocks := m.Get("content").Array()
			for i, b := range blocks {
				if b.Get("type").Str == "tool_result" {
					return []string{core.InsertAfter(m.Raw, "content", blocks, i)}
				}
			}
		}
		return []string{m.Raw}
	})(body)
}

// closedReport is an output schema inside the structured-output subset.
const closedReport = `{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"number"}},"required":["city","temperature"],"additionalProperties":false}`

// outputFormat sets a json_schema output format with schema at path
// (output_config.format, or the deprecated output_format).
func outputFormat(path, schema string) func([]byte) []byte {
	return func(body []byte) []byte {
		out, err := sjson.SetRawBytes(body, path, []byte(`{"type":"json_schema","schema":`+schema+`}`))
		if err != nil {
			return body
		}
		return out
	}
}

// optionalProperties is a closed object schema of n optional strings.
func optionalProperties(n int) string {
	props := make([]string, n)
	for i := range props {
		props[i] = `"p` + strconv.Itoa(i) + `":{"type":"string"}`
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`
}

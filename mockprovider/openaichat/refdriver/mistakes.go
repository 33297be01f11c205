package refdriver

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/checks"
	core "github.com/toolwire/toolwire/suite/refdriver"
)

// mistake is a row of the table: the shared part (name, description,
// the rules it must fail, the shared hooks) and the hooks of this loop.
type mistake struct {
	core.Mistake
	// tool edits each function declaration.
	tool func(*shared.FunctionDefinitionParam)
	// params edits each request's params.
	params func(p *openai.ChatCompletionNewParams, stream bool)
	// reply replaces what goes back after a model turn with calls.
	reply func(m *mistake, callTurn openai.ChatCompletionMessageParamUnion, answers []core.Answer) ([]openai.ChatCompletionMessageParamUnion, bool)
	// toolMessageHook replaces the tool message of an answer (ok=false:
	// the honest one).
	toolMessageHook func(m *mistake, a core.Answer) (msg openai.ChatCompletionMessageParamUnion, ok bool)
}

const chat = conv.OpenAIChat

// reasoningMaxTokens may fail whenever a request names a reasoning model.
const reasoningMaxTokens = "openai-chat.reasoning-models-refuse-max-tokens"

// mistakes is the table of the mistakes the driver makes on Chat
// Completions, each with the rules the suite must fail for it.
var mistakes = []mistake{
	{Mistake: core.SwappedIDs.Failing(checks.ID(chat, checks.MatchesCall))},
	{Mistake: core.UnansweredCall.Failing("openai-chat.tool-calls-answered")},
	// The OpenAI APIs have no error flag: an error's text sent as is
	// still tells the model that the call failed.
	{Mistake: core.OmitIsError},
	{Mistake: core.ErrorAsNull.Failing(checks.ID(chat, checks.ErrorFlagged), checks.ID(chat, checks.CarriesData))},
	{Mistake: core.DropData},
	{Mistake: core.CrashOnUnknownTool},
	{Mistake: core.IgnoreFinalText},
	{Mistake: core.ResultsAsUserText.Failing(checks.ID(chat, checks.ResultsSent)), reply: resultsAsUserText},
	{Mistake: core.DropAssistantTurn.Failing("openai-chat.tool-message-follows-call"), reply: withoutCallTurn},
	{Mistake: core.Mistake{Name: "image-in-chat-tool", Description: "put image_url parts in Chat Completions tool messages"}.Failing("openai-chat.image-only-in-user-messages"),
		toolMessageHook: imagesInToolMessage},
	{Mistake: core.Mistake{Name: "arguments-as-object", Description: "replay tool_calls[].function.arguments as an object instead of a JSON string"}.
		Failing("openai-chat.arguments-string").Rewriting(argumentsAsObject)},

	// The model.
	{Mistake: core.UnknownModel.Failing("openai-chat.model-exists").Rewriting(core.SetKeys(map[string]any{"model": "gpt-test"}))},
	{Mistake: core.Mistake{Name: "developer-role-to-o1-mini", Description: "send a developer message to o1-mini, which takes none"}.
		Failing("openai-chat.model-supports-role").MayFailing(reasoningMaxTokens).Rewriting(developerMessageToO1Mini)},
	{Mistake: core.Mistake{Name: "web-search-to-plain-model", Description: "send web_search_options to gpt-4.1, which is no search model"}.
		Failing("openai-chat.model-supports-web-search").Rewriting(core.SetKeys(map[string]any{"model": "gpt-4.1", "web_search_options": map[string]any{}}))},
	{Mistake: core.Mistake{Name: "audio-to-text-model", Description: "send an input_audio part to gpt-4.1, which takes no audio"}.
		Failing("openai-chat.model-supports-audio-input").Rewriting(audioToTextModel)},
	{Mistake: core.EffortToNonReasoning.Failing("openai-chat.model-supports-reasoning-effort").
		Rewriting(core.SetKeys(map[string]any{"model": "gpt-4.1", "reasoning_effort": "low"}))},
	{Mistake: core.WrongAPIModel.Failing("openai-chat.model-served-by-chat").MayFailing(reasoningMaxTokens).
		Rewriting(core.SetKeys(map[string]any{"model": "o3-pro"}))},
	{Mistake: core.EffortLevelUnsupported.Failing("openai-chat.model-supports-effort-level").
		Rewriting(core.SetKeys(map[string]any{"model": "gpt-5", "reasoning_effort": "none"}))},
	{Mistake: core.Mistake{Name: "max-tokens-to-reasoning-model", Description: "send max_tokens to a reasoning model (o4-mini)"}.
		Failing(reasoningMaxTokens).Rewriting(core.SetKeys(map[string]any{"model": "o4-mini", "max_tokens": 256}))},

	// The request's shape.
	{Mistake: core.OmitModel.Failing("openai-chat.model-required")},
	{Mistake: core.UnknownMember.Failing("openai-chat.known-fields")},
	{Mistake: core.WrongMemberType.Failing("openai-chat.field-types").Rewriting(core.SetKeys(map[string]any{"n": "1"}))},
	{Mistake: core.TruncatedBody.Failing("openai-chat.valid-json")},
	{Mistake: core.ToolControlsWithoutTools.Failing("openai-chat.tool-controls-need-tools").
		Rewriting(core.Chain(core.DeleteKey("tool_choice"), core.DeleteKey("tools"), core.SetKeys(map[string]any{"parallel_tool_calls": false})))},
	{Mistake: core.ForceUndeclaredTool.Failing("openai-chat.forced-tool-declared").
		Rewriting(core.SetKeys(map[string]any{"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "no_such_tool"}}}))},
	{Mistake: core.StrictWithLooseSchema.Failing("openai-chat.strict-schema"),
		tool: func(def *shared.FunctionDefinitionParam) { def.Strict = openai.Bool(true) }},
	{Mistake: core.ToolNameWithDot.Failing("openai-chat.tool-name-pattern").Rewriting(core.EachPath([]string{"tools.#.function.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("mcp." + v.Str), v.Type == gjson.String
	}))},
	{Mistake: core.BadToolName.Failing("openai-chat.tool-name-pattern").Rewriting(core.EachPath([]string{"tools.#.function.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("get weather!"), v.Type == gjson.String
	}))},
	{Mistake: core.InvalidSchema.Failing("openai-chat.tool-schema-valid").Rewriting(core.EachPath([]string{"tools.#.function.parameters"}, func(v gjson.Result) (string, bool) {
		return `{"type":"object","properties":{"x":{"type":"objekt"}}}`, v.IsObject()
	}))},
	{Mistake: core.Mistake{Name: "omit-tool-call-type", Description: `replay tool_calls without their "type": "function"`}.
		Failing("openai-chat.required-fields").Rewriting(core.DeletePaths("messages.#.tool_calls.#.type"))},
	{Mistake: core.Mistake{Name: "stream-options-without-stream", Description: "send stream_options {include_usage: true} on non-streamed requests too"}.
		Failing("openai-chat.stream-options-need-stream"),
		params: func(p *openai.ChatCompletionNewParams, stream bool) {
			if !stream {
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
		}},
	{Mistake: core.Mistake{Name: "empty-tool-calls", Description: "replay the model's text as its own assistant message with tool_calls: [] before the message with the calls"}.
		Failing("openai-chat.tool-calls-non-empty").Rewriting(textWithEmptyToolCalls)},
	{Mistake: core.Mistake{Name: "message-extra-member", Description: `keep a client-side member in the first message ("toolwire_id": "m1")`}.
		Failing("openai-chat.message-members").Rewriting(core.SetKeys(map[string]any{"messages.0.toolwire_id": "m1"}))},
	{Mistake: core.Mistake{Name: "image-not-an-image", Description: `attach a data URL labelled image/jpeg whose bytes are text (a page saved in place of the picture)`}.
		Failing("openai-chat.image-format").Rewriting(core.SetKeys(map[string]any{"messages.-1": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "And this picture?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/jpeg;base64,PCFET0NUWVBFIGh0bWw+"}}}}}))},

	// The choices n asks for: above the API's 128 a 400; three, answered
	// on the first as every SDK helper reads them, a correct variant.
	{Mistake: core.Mistake{Name: "n-above-maximum", Description: "ask for 130 choices (n: 130; the API generates at most 128)"}.
		Failing("openai-chat.n-range").Rewriting(core.SetKeys(map[string]any{"n": 130}))},
	{Mistake: core.Mistake{Name: "several-choices", Description: "correct variant: ask for three choices (n: 3) and carry on with the first"},
		params: func(p *openai.ChatCompletionNewParams, _ bool) { p.N = openai.Int(3) }},
	// Structured outputs: a response_format the API refuses (or, past
	// the guide's limits, journals).
	{Mistake: core.Mistake{Name: "unnamed-response-format", Description: "ask for a json_schema response format without its name"}.
		Failing("openai-chat.response-format-required").Rewriting(core.SetKeys(map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"schema": nestedSchema(1)}}}))},
	{Mistake: core.Mistake{Name: "array-response-format", Description: "ask for a json_schema response format whose schema is an array, not an object"}.
		Failing("openai-chat.response-format-schema").Rewriting(core.SetKeys(map[string]any{"response_format": responseFormat(false, map[string]any{"type": "array", "items": map[string]any{"type": "string"}})}))},
	{Mistake: core.Mistake{Name: "loose-strict-response-format", Description: "ask for a strict json_schema response format without additionalProperties: false"}.
		Failing("openai-chat.response-format-strict").Rewriting(core.SetKeys(map[string]any{"response_format": responseFormat(true, map[string]any{
		"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}, "required": []string{"answer"}})}))},
	{Mistake: core.Mistake{Name: "allof-in-strict-response-format", Description: "wrap a property of a strict json_schema response format in allOf, which strict mode does not permit"}.
		Failing("openai-chat.strict-schema-subset").Rewriting(core.SetKeys(map[string]any{"response_format": responseFormat(true, map[string]any{
		"type": "object", "properties": map[string]any{"answer": map[string]any{"allOf": []any{map[string]any{"type": "string"}}}}, "required": []string{"answer"}, "additionalProperties": false})}))},
	{Mistake: core.Mistake{Name: "deep-strict-response-format", Description: "ask for a strict json_schema response format nested eleven objects deep (the guide allows ten)"}.
		Failing("openai-chat.strict-schema-limits").Rewriting(core.SetKeys(map[string]any{"response_format": responseFormat(true, nestedSchema(11))}))},
	{Mistake: core.Mistake{Name: "json-mode-without-json", Description: `ask for a json_object response format without saying "json" in any message`}.
		Failing("openai-chat.json-mode-needs-json").Rewriting(core.SetKeys(map[string]any{"response_format": map[string]any{"type": "json_object"}}))},

	// What only the model's calls and the task show.
	{Mistake: core.DropLastCall.Failing(checks.ID(chat, checks.ResultsSent)).Rewriting(dropLastCall)},
	{Mistake: core.DuplicateResult.Failing(checks.ID(chat, checks.OneResultPerCall)).Rewriting(duplicateFirstResult)},
	{Mistake: core.ToolChoiceLost.Rewriting(core.DeleteKey("tool_choice"))},
	{Mistake: core.StrictLost.Failing(checks.ID(chat, checks.StrictSent)).Rewriting(core.EachPath([]string{"tools.#.function.strict"}, func(v gjson.Result) (string, bool) {
		return "false", v.Type == gjson.True
	}))},
	{Mistake: core.MaxOutputTokensIgnored},
	{Mistake: core.KeepForcing},
	{Mistake: core.ExecuteTruncatedCall.Failing(checks.ID(chat, checks.TruncatedCallRun))},

	// Correct variants: nothing may fail.
	{Mistake: core.LibraryErrorWording},
	{Mistake: core.ValidateArguments},
	// A model turn with text and calls replayed as two assistant
	// messages, the text and then the calls (as the OpenAI Agents SDK
	// sends it). Every call still reaches the API.
	{Mistake: core.Mistake{Name: "split-text-and-calls", Description: "correct variant: replay a model turn with text and calls as two assistant messages, the text first, then the calls"}.
		Rewriting(splitTextAndCalls)},
	{Mistake: core.DropOutputSchema}, // what only the task shows: its output schema
}

func resultsAsUserText(m *mistake, _ openai.ChatCompletionMessageParamUnion, answers []core.Answer) ([]openai.ChatCompletionMessageParamUnion, bool) {
	names, texts := make([]string, len(answers)), make([]string, len(answers))
	for i, a := range answers {
		names[i], texts[i] = a.Name, m.PlainText(a.Result)
	}
	return []openai.ChatCompletionMessageParamUnion{openai.UserMessage(core.ResultsAsText(names, texts))}, false
}

func withoutCallTurn(m *mistake, _ openai.ChatCompletionMessageParamUnion, answers []core.Answer) ([]openai.ChatCompletionMessageParamUnion, bool) {
	return m.toolMessages(answers), true
}

func imagesInToolMessage(m *mistake, a core.Answer) (openai.ChatCompletionMessageParamUnion, bool) {
	media := a.Result.Media()
	if len(media) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	parts := []map[string]any{{"type": "text", "text": m.ErrorText(a.Result)}}
	for _, md := range media {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + md.MimeType + ";base64," + md.Data}})
	}
	raw := core.MustJSON(map[string]any{"role": "tool", "tool_call_id": a.ID, "content": parts})
	return param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(raw)), true
}

// argumentsAsObject rewrites every replayed tool call's arguments from a
// JSON string into an object.
func argumentsAsObject(body []byte) []byte {
	msgs := gjson.GetBytes(body, "messages")
	for i, m := range msgs.Array() {
		for j, tc := range m.Get("tool_calls").Array() {
			args := tc.Get("function.arguments")
			if args.Type == gjson.String && gjson.Valid(args.Str) {
				path := fmt.Sprintf("messages.%d.tool_calls.%d.function.arguments", i, j)
				if out, err := sjson.SetRawBytes(body, path, []byte(args.Str)); err == nil {
					body = out
				}
			}
		}
	}
	return body
}

// developerMessageToO1Mini names o1-mini and opens with a developer
// message.
func developerMessageToO1Mini(body []byte) []byte {
	body = core.SetKeys(map[string]any{"model": "o1-mini"})(body)
	first := true
	return core.MapArray("messages", func(m gjson.Result) []string {
		if first {
			first = false
			return []string{`{"role":"developer","content":"Use the tools."}`, m.Raw}
		}
		return []string{m.Raw}
	})(body)
}

// audioToTextModel names gpt-4.1 and follows the first user message with
// an input_audio part.
func audioToTextModel(body []byte) []byte {
	body = core.SetKeys(map[string]any{"model": "gpt-4.1"})(body)
	first := true
	return core.MapArray("messages", func(m gjson.Result) []string {
		if first && m.Get("role").Str == "user" {
			first = false
			return []string{m.Raw, `{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=","format":"wav"}}]}`}
		}
		return []string{m.Raw}
	})(body)
}

// textWithEmptyToolCalls splits an assistant message with text and calls
// into one with the text and tool_calls: [], then one with the calls.
func textWithEmptyToolCalls(body []byte) []byte {
	return core.MapArray("messages", func(m gjson.Result) []string {
		text := m.Get("content")
		if m.Get("role").Str != "assistant" || len(m.Get("tool_calls").Array()) == 0 || text.Type != gjson.String || text.Str == "" {
			return []string{m.Raw}
		}
		calls, _ := sjson.Set(m.Raw, "content", nil)
		return []string{fmt.Sprintf(`{"role":"assistant","content":%s,"tool_calls":[]}`, text.Raw), calls}
	})(body)
}

// splitTextAndCalls replays an assistant message with text and calls as
// two: the text, then the calls.
func splitTextAndCalls(body []byte) []byte {
	return core.MapArray("messages", func(m gjson.Result) []string {
		text := m.Get("content")
		if m.Get("role").Str != "assistant" || !m.Get("tool_calls").IsArray() || text.Type != gjson.String || text.Str == "" {
			return []string{m.Raw}
		}
		calls, _ := sjson.Delete(m.Raw, "content")
		return []string{string(core.MustJSON(map[string]string{"role": "assistant", "content": text.Str})), calls}
	})(body)
}

// dropLastCall removes, from every assistant message with two calls or
// more, the last call, and the tool message answering it.
func dropLastCall(body []byte) []byte {
	dropped := map[string]bool{}
	body = core.MapArray("messages", func(m gjson.Result) []string {
		calls := m.Get("tool_calls").Array()
		if m.Get("role").Str != "assistant" || len(calls) < 2 {
			return []string{m.Raw}
		}
		dropped[calls[len(calls)-1].Get("id").Str] = true
		out, _ := sjson.Delete(m.Raw, "tool_calls."+strconv.Itoa(len(calls)-1))
		return []string{out}
	})(body)
	return core.MapArray("messages", func(m gjson.Result) []string {
		if m.Get("role").Str == "tool" && dropped[m.Get("tool_call_id").Str] {
			return nil
		}
		return []string{m.Raw}
	})(body)
}

// duplicateFirstResult sends the first tool message after every
// assistant message with calls twice.
func duplicateFirstResult(body []byte) []byte {
	afterCalls := false
	return core.MapArray("messages", func(m gjson.Result) []string {
		switch m.Get("role").Str {
		case "assistant":
			afterCalls = len(m.Get("tool_calls").Array()) > 0
		case "tool":
			if afterCalls {
				afterCalls = false
				return []string{m.Raw, m.Raw}
			}
		}
		return []string{m.Raw}
	})(body)
}

// responseFormat is a json_schema response_format with schema.
func responseFormat(strict bool, schema map[string]any) map[string]any {
	return map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "strict": strict, "schema": schema}}
}

// nestedSchema is a strict object schema levels objects deep.
func nestedSchema(levels int) map[string]any {
	s := map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}, "required": []string{"v"}, "additionalProperties": false}
	for range levels - 1 {
		s = map[string]any{"type": "object", "properties": map[string]any{"in": s}, "required": []string{"in"}, "additionalProperties": false}
	}
	return s
}

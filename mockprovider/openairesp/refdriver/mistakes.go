package refdriver

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
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
	// tool edits each function declaration.
	tool func(*responses.FunctionToolParam)
	// params edits each request's params.
	params func(*responses.ResponseNewParams)
	// chained continues each turn with previous_response_id, sending
	// only the new items.
	chained bool
	// replay edits the output items that go back in the next input.
	replay func([]item) []item
	// callID is the id an answer names, in place of the call's call_id.
	callID func(callID, itemID string) string
	// reply replaces what goes back after a response with calls.
	reply func(m *mistake, answers []core.Answer) ([]responses.ResponseInputItemUnionParam, bool)
	// resultItem replaces the function_call_output item of an answer.
	resultItem func(m *mistake, a core.Answer) map[string]any
	// outputHook replaces function_call_output.output.
	outputHook func(task.CallToolResult) any
}

const resp = conv.OpenAIResponses

// itemReferences is the scenario whose task asks for item references.
var itemReferences = []string{"responses-item-references"}

// reasoningPassBack is the scenario whose model reasons before its call.
var reasoningPassBack = []string{"reasoning-pass-back"}

// mistakes is the table of the mistakes the driver makes on Responses,
// each with the rules the suite must fail for it.
var mistakes = []mistake{
	{Mistake: core.SwappedIDs.Failing(checks.ID(resp, checks.MatchesCall))},
	{Mistake: core.UnansweredCall.Failing("openai-responses.tool-output-required")},
	// The OpenAI APIs have no error flag: an error's text sent as is
	// still tells the model that the call failed.
	{Mistake: core.OmitIsError},
	{Mistake: core.ErrorAsNull.Failing(checks.ID(resp, checks.ErrorFlagged), checks.ID(resp, checks.CarriesData))},
	{Mistake: core.DropData},
	{Mistake: core.CrashOnUnknownTool},
	{Mistake: core.IgnoreFinalText},
	{Mistake: core.ResultsAsUserText.Failing(checks.ID(resp, checks.ResultsSent)), replay: onlyMessages, reply: resultsAsUserText},
	{Mistake: core.Mistake{Name: "drop-reasoning", Description: "replay function_call items without the reasoning items before them"}.
		Failing("openai-responses.reasoning-before-call"), replay: withoutReasoning},
	{Mistake: core.Mistake{Name: "item-id-for-call-id", Description: "answer with the item id (fc_…) instead of call_id"}.
		Failing("openai-responses.output-needs-call", "openai-responses.tool-output-required"),
		callID: func(callID, itemID string) string {
			if itemID != "" {
				return itemID
			}
			return callID
		}},
	// The API answers an object output 400 (field-types).
	{Mistake: core.Mistake{Name: "output-as-object", Description: "send function_call_output.output as a JSON object"}.
		Failing("openai-responses.field-types"), outputHook: outputAsObject},
	{Mistake: core.Mistake{Name: "responses-arguments-object", Description: "replay function_call.arguments as an object"}.
		Failing("openai-responses.arguments-string").Rewriting(core.EachPath([]string{"input.#.arguments"}, func(v gjson.Result) (string, bool) {
		return v.Str, v.Type == gjson.String && gjson.Valid(v.Str) && gjson.Parse(v.Str).IsObject()
	}))},
	{Mistake: core.Mistake{Name: "tool-role-in-responses", Description: `send results Chat-style, as {"role": "tool", "tool_call_id": …} messages`}.
		Failing("openai-responses.message-role").MayFailing("openai-responses.tool-output-required"),
		resultItem: func(m *mistake, a core.Answer) map[string]any {
			return map[string]any{"role": "tool", "tool_call_id": a.ID, "content": m.PlainText(a.Result)}
		}},
	{Mistake: core.Mistake{Name: "previous-response-unknown", Description: "chain turns with previous_response_id while sending store: false (the response it names was never stored)"}.
		Failing("openai-responses.previous-response-known").MayFailing("openai-responses.output-needs-call"),
		chained: true, params: func(p *responses.ResponseNewParams) { p.Store = openai.Bool(false) }},
	{Mistake: core.Mistake{Name: "drop-output-with-previous-response", Description: "chain turns with previous_response_id and send a user message instead of the function_call_output items"}.
		Failing("openai-responses.tool-output-required"),
		chained: true, reply: resultsAsUserText},
	{Mistake: core.Mistake{Name: "reasoning-without-following-item", Description: "replay reasoning items after the function_call items they preceded"}.
		Failing("openai-responses.reasoning-needs-following-item", "openai-responses.reasoning-before-call"), replay: reasoningLast},

	// Stateless continuation (store: false) with the reasoning sealed
	// (include reasoning.encrypted_content): passed back as issued it
	// needs nothing stored; edited, the API cannot decrypt it.
	{Mistake: core.Mistake{Name: "stateless-encrypted-reasoning", Description: "correct variant: send store: false with include reasoning.encrypted_content and pass the sealed reasoning items back",
		Kill: core.Kill{Scenarios: reasoningPassBack}}, params: stateless},
	{Mistake: core.Mistake{
		Name:        "tampered-encrypted-reasoning",
		Description: "send store: false with include reasoning.encrypted_content, then pass back reasoning items whose encrypted_content was edited",
		Kill:        core.Kill{Scenarios: reasoningPassBack},
	}.Failing("openai-responses.encrypted-content-verified").Rewriting(tamperEncryptedContent), params: stateless},

	// The model.
	{Mistake: core.UnknownModel.Failing("openai-responses.model-exists").Rewriting(core.SetKeys(map[string]any{"model": "gpt-test"}))},
	{Mistake: core.EffortToNonReasoning.Failing("openai-responses.model-supports-reasoning").
		Rewriting(core.SetKeys(map[string]any{"model": "gpt-4.1", "reasoning": map[string]any{"effort": "low"}}))},
	{Mistake: core.WrongAPIModel.Failing("openai-responses.model-served-by-responses").
		Rewriting(core.SetKeys(map[string]any{"model": "gpt-4o-search-preview"}))},
	{Mistake: core.EffortLevelUnsupported.Failing("openai-responses.model-supports-effort-level").
		Rewriting(core.SetKeys(map[string]any{"model": "gpt-5", "reasoning": map[string]any{"effort": "none"}}))},

	// The request's shape.
	{Mistake: core.OmitModel.Failing("openai-responses.required-fields")},
	{Mistake: core.UnknownMember.Failing("openai-responses.known-fields")},
	{Mistake: core.WrongMemberType.Failing("openai-responses.field-types").Rewriting(core.SetKeys(map[string]any{"temperature": "warm"}))},
	{Mistake: core.TruncatedBody.Failing("openai-responses.valid-json")},
	{Mistake: core.ForceUndeclaredTool.Failing("openai-responses.tool-choice-declared").
		Rewriting(core.SetKeys(map[string]any{"tool_choice": map[string]any{"type": "function", "name": "no_such_tool"}}))},
	{Mistake: core.StrictWithLooseSchema.Failing("openai-responses.strict-schema"),
		tool: func(fn *responses.FunctionToolParam) { fn.Strict = openai.Bool(true) }},
	{Mistake: core.ToolNameWithDot.Failing("openai-responses.function-name-pattern").Rewriting(core.EachPath([]string{"tools.#.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("mcp." + v.Str), v.Type == gjson.String
	}))},
	{Mistake: core.BadToolName.Failing("openai-responses.function-name-pattern").Rewriting(core.EachPath([]string{"tools.#.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("get weather!"), v.Type == gjson.String
	}))},
	{Mistake: core.InvalidSchema.Failing("openai-responses.function-schema-valid").Rewriting(core.EachPath([]string{"tools.#.parameters"}, func(v gjson.Result) (string, bool) {
		return `{"type":"object","properties":{"x":{"type":"objekt"}}}`, v.IsObject()
	}))},
	{Mistake: core.Mistake{Name: "omit-function-call-name", Description: "replay function_call items without their name"}.
		Failing("openai-responses.required-fields").Rewriting(omitFunctionCallName)},
	{Mistake: core.Mistake{Name: "assistant-input-text", Description: "replay assistant messages with input_text parts instead of output_text"}.
		Failing("openai-responses.assistant-content-type").Rewriting(assistantInputText)},
	{Mistake: core.Mistake{Name: "duplicate-item-ids", Description: "give each function_call_output the item id of the function_call it answers"}.
		Failing("openai-responses.unique-item-ids").Rewriting(outputsTakeCallItemIDs)},
	{Mistake: core.Mistake{Name: "unknown-item-reference", Description: "continue by item_reference to ids the API never issued",
		Kill: core.Kill{Scenarios: itemReferences}}.
		Failing("openai-responses.item-reference-known").MayFailing("openai-responses.output-needs-call").Rewriting(offByOneReferences)},
	{Mistake: core.Mistake{Name: "unstored-item-reference", Description: "send store: false yet continue by item_reference (the items of such responses are not kept)",
		Kill: core.Kill{Scenarios: itemReferences}}.
		Failing("openai-responses.items-persisted").MayFailing("openai-responses.output-needs-call").Rewriting(core.SetKeys(map[string]any{"store": false}))},

	// Structured outputs: a text.format the API refuses (or, past the
	// guide's limits, journals).
	{Mistake: core.Mistake{Name: "unnamed-response-format", Description: "ask for a json_schema response format without its name"}.
		Failing("openai-responses.response-format-required").Rewriting(core.SetKeys(map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_schema", "schema": nestedSchema(1)}}}))},
	{Mistake: core.Mistake{Name: "response-format-on-responses", Description: "ask the Responses API for JSON with Chat's response_format instead of text.format"}.
		Failing("openai-responses.response-format-moved").Rewriting(core.SetKeys(map[string]any{"response_format": map[string]any{"type": "json_object"}}))},
	{Mistake: core.Mistake{Name: "array-response-format", Description: "ask for a json_schema response format whose schema is an array, not an object"}.
		Failing("openai-responses.response-format-schema").Rewriting(core.SetKeys(map[string]any{"text": textFormat(false, map[string]any{"type": "array", "items": map[string]any{"type": "string"}})}))},
	{Mistake: core.Mistake{Name: "loose-strict-response-format", Description: "ask for a strict json_schema response format without additionalProperties: false"}.
		Failing("openai-responses.response-format-strict").Rewriting(core.SetKeys(map[string]any{"text": textFormat(true, map[string]any{
		"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}, "required": []string{"answer"}})}))},
	{Mistake: core.Mistake{Name: "allof-in-strict-response-format", Description: "wrap a property of a strict json_schema response format in allOf, which strict mode does not permit"}.
		Failing("openai-responses.strict-schema-subset").Rewriting(core.SetKeys(map[string]any{"text": textFormat(true, map[string]any{
		"type": "object", "properties": map[string]any{"answer": map[string]any{"allOf": []any{map[string]any{"type": "string"}}}}, "required": []string{"answer"}, "additionalProperties": false})}))},
	{Mistake: core.Mistake{Name: "deep-strict-response-format", Description: "ask for a strict json_schema response format nested eleven objects deep (the guide allows ten)"}.
		Failing("openai-responses.strict-schema-limits").Rewriting(core.SetKeys(map[string]any{"text": textFormat(true, nestedSchema(11))}))},
	{Mistake: core.Mistake{Name: "json-mode-without-json", Description: `ask for a json_object response format without saying "json" in any message`}.
		Failing("openai-responses.json-mode-needs-json").Rewriting(core.SetKeys(map[string]any{"text": map[string]any{"format": map[string]any{"type": "json_object"}}}))},

	// What only the model's calls and the task show.
	{Mistake: core.DropLastCall.Failing(checks.ID(resp, checks.ResultsSent)).Rewriting(dropLastCall)},
	{Mistake: core.DuplicateResult.Failing(checks.ID(resp, checks.OneResultPerCall)).MayFailing("openai-responses.output-needs-call").Rewriting(duplicateFirstResult)},
	{Mistake: core.ToolChoiceLost.Rewriting(core.DeleteKey("tool_choice"))},
	{Mistake: core.StrictLost.Failing(checks.ID(resp, checks.StrictSent)).Rewriting(core.EachPath([]string{"tools.#.strict"}, func(v gjson.Result) (string, bool) {
		return "false", v.Type == gjson.True
	}))},
	{Mistake: core.MaxOutputTokensIgnored},
	{Mistake: core.KeepForcing},
	{Mistake: core.ExecuteTruncatedCall.Failing(checks.ID(resp, checks.TruncatedCallRun))},
	{Mistake: core.Mistake{Name: "item-references-ignored", Description: "ignore the task's item_references: replay the earlier output items in full",
		Kill: core.Kill{Scenarios: itemReferences}}.Failing(checks.ID(resp, checks.ItemReferencesSent)),
		replay: func(items []item) []item { return inFull(items, func(item) bool { return true }) }},

	// Correct variants: nothing may fail.
	{Mistake: core.LibraryErrorWording},
	{Mistake: core.ValidateArguments},
	// The output string is the JSON of the MCP content blocks, which
	// carries every block's text (the suite must look inside it).
	{Mistake: core.Mistake{Name: "blocks-as-json-output", Description: "correct variant: send function_call_output.output as the JSON text of the result's MCP content blocks"}.
		Rewriting(blocksAsJSONOutput)},
	// With item_references on, the client function calls are still
	// replayed in full (as the Vercel AI SDK does on purpose,
	// vercel/ai#11114), the other output items referenced.
	{Mistake: core.Mistake{Name: "calls-replayed-in-full", Description: "correct variant: with item_references on, replay the client function calls in full and refer to the other output items",
		Kill: core.Kill{Scenarios: itemReferences}},
		replay: func(items []item) []item {
			return inFull(items, func(it item) bool { return it.typ == "function_call" })
		}},
	{Mistake: core.DropOutputSchema}, // what only the task shows: its output schema
}

// stateless asks for nothing stored and the reasoning sealed, as a
// zero-retention client does.
func stateless(p *responses.ResponseNewParams) {
	p.Store = openai.Bool(false)
	p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
}

// tamperEncryptedContent edits one character in the middle of every
// reasoning item's encrypted_content.
func tamperEncryptedContent(body []byte) []byte {
	for i, it := range gjson.GetBytes(body, "input").Array() {
		v := it.Get("encrypted_content").Str
		if it.Get("type").Str != "reasoning" || len(v) < 2 {
			continue
		}
		k := len(v) / 2
		body, _ = sjson.SetBytes(body, fmt.Sprintf("input.%d.encrypted_content", i), v[:k]+offByOne(v[k])+v[k+1:])
	}
	return body
}

func resultsAsUserText(m *mistake, answers []core.Answer) ([]responses.ResponseInputItemUnionParam, bool) {
	names, texts := make([]string, len(answers)), make([]string, len(answers))
	for i, a := range answers {
		names[i], texts[i] = a.Name, m.PlainText(a.Result)
	}
	return []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(core.ResultsAsText(names, texts), responses.EasyInputMessageRoleUser)}, false
}

func onlyMessages(items []item) []item {
	var out []item
	for _, it := range items {
		if it.typ == "message" {
			out = append(out, it)
		}
	}
	return out
}

func withoutReasoning(items []item) []item {
	var out []item
	for _, it := range items {
		if it.typ != "reasoning" {
			out = append(out, it)
		}
	}
	return out
}

// reasoningLast moves the reasoning items after the others.
func reasoningLast(items []item) []item {
	var out, reasoning []item
	for _, it := range items {
		if it.typ == "reasoning" {
			reasoning = append(reasoning, it)
		} else {
			out = append(out, it)
		}
	}
	return append(out, reasoning...)
}

// inFull sends the items full says so in full, not by reference.
func inFull(items []item, full func(item) bool) []item {
	for i := range items {
		if full(items[i]) {
			items[i].byReference = false
		}
	}
	return items
}

func outputAsObject(r task.CallToolResult) any {
	if r.StructuredContent != nil {
		return r.StructuredContent
	}
	var obj map[string]any
	if json.Unmarshal([]byte(r.Text()), &obj) == nil && obj != nil {
		return obj
	}
	return map[string]any{"text": r.Text()}
}

func omitFunctionCallName(body []byte) []byte {
	for i, it := range gjson.GetBytes(body, "input").Array() {
		if it.Get("type").Str == "function_call" {
			body, _ = sjson.DeleteBytes(body, "input."+strconv.Itoa(i)+".name")
		}
	}
	return body
}

func assistantInputText(body []byte) []byte {
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

// outputsTakeCallItemIDs gives each function_call_output the item id of
// the call it answers (id and call_id confused).
func outputsTakeCallItemIDs(body []byte) []byte {
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

// offByOneReferences makes each reference name an id one character off
// the issued one.
func offByOneReferences(body []byte) []byte {
	for i, it := range gjson.GetBytes(body, "input").Array() {
		if id := it.Get("id").Str; it.Get("type").Str == "item_reference" && id != "" {
			body, _ = sjson.SetBytes(body, fmt.Sprintf("input.%d.id", i), id[:len(id)-1]+offByOne(id[len(id)-1]))
		}
	}
	return body
}

// offByOne is another id character in place of c.
func offByOne(c byte) string {
	if c == 'z' {
		return "y"
	}
	return "z"
}

func blocksAsJSONOutput(body []byte) []byte {
	for i, it := range gjson.GetBytes(body, "input").Array() {
		out := it.Get("output")
		if it.Get("type").Str != "function_call_output" || out.Type != gjson.String {
			continue
		}
		blocks := core.MustJSON([]map[string]string{{"type": "text", "text": out.Str}})
		body, _ = sjson.SetBytes(body, "input."+strconv.Itoa(i)+".output", string(blocks))
	}
	return body
}

// dropLastCall removes, from every batch (a run of adjacent
// function_call items) of two calls or more, the last call, and the
// function_call_output answering it.
func dropLastCall(body []byte) []byte {
	dropped := map[string]bool{}
	items := gjson.GetBytes(body, "input").Array()
	if !gjson.GetBytes(body, "input").IsArray() {
		return body
	}
	var keep []string
	for i := 0; i < len(items); i++ {
		if items[i].Get("type").Str != "function_call" {
			keep = append(keep, items[i].Raw)
			continue
		}
		j := i
		for j+1 < len(items) && items[j+1].Get("type").Str == "function_call" {
			j++
		}
		for k := i; k <= j; k++ {
			if k == j && j > i {
				dropped[items[k].Get("call_id").Str] = true
				continue
			}
			keep = append(keep, items[k].Raw)
		}
		i = j
	}
	body = core.SetArray(body, "input", keep)
	return core.MapArray("input", func(it gjson.Result) []string {
		if it.Get("type").Str == "function_call_output" && dropped[it.Get("call_id").Str] {
			return nil
		}
		return []string{it.Raw}
	})(body)
}

// duplicateFirstResult sends the first function_call_output after every
// run of calls twice.
func duplicateFirstResult(body []byte) []byte {
	afterCalls := false
	return core.MapArray("input", func(it gjson.Result) []string {
		switch it.Get("type").Str {
		case "function_call":
			afterCalls = true
		case "function_call_output":
			if afterCalls {
				afterCalls = false
				return []string{it.Raw, it.Raw}
			}
		}
		return []string{it.Raw}
	})(body)
}

// textFormat is a text member with a json_schema format: name, schema and
// strict on the format itself, as the Responses API takes them.
func textFormat(strict bool, schema map[string]any) map[string]any {
	return map[string]any{"format": map[string]any{"type": "json_schema", "name": "answer", "strict": strict, "schema": schema}}
}

// nestedSchema is a strict object schema levels objects deep.
func nestedSchema(levels int) map[string]any {
	s := map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}, "required": []string{"v"}, "additionalProperties": false}
	for range levels - 1 {
		s = map[string]any{"type": "object", "properties": map[string]any{"in": s}, "required": []string{"in"}, "additionalProperties": false}
	}
	return s
}

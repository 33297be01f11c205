package refdriver

import (
	"bytes"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
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
	// reply replaces what goes back after a model turn with calls.
	reply func(m *mistake, callTurn types.Message, answers []core.Answer) ([]types.Message, bool)
	// structured replaces the json block made of structured content.
	structured func(map[string]any) types.ToolResultContentBlock
	// result edits each toolResult block once it is built.
	result func(*types.ToolResultBlock)
	// model is the model id named (in the path) in place of the task's.
	model func(string) string
	// noMedia sends a note in place of each image or document.
	noMedia bool
}

const brk = conv.Bedrock

// thinkingPassBack is the scenario whose task turns thinking on.
var thinkingPassBack = []string{"thinking-pass-back"}

// mistakes is the table of the mistakes the driver makes on Bedrock
// Converse, each with the rules the suite must fail for it.
var mistakes = []mistake{
	{Mistake: core.SwappedIDs.Failing(checks.ID(brk, checks.MatchesCall))},
	{Mistake: core.UnansweredCall.Failing("bedrock.tool-uses-answered", checks.ID(brk, checks.ResultsSent)).MayFailing("bedrock.roles-alternate")},
	{Mistake: core.OmitIsError.Failing(checks.ID(brk, checks.ErrorFlagged))},
	{Mistake: core.DropData.MayFailing(checks.ID(brk, checks.StructuredObject))},
	{Mistake: core.CrashOnUnknownTool},
	{Mistake: core.IgnoreFinalText},
	{Mistake: core.Mistake{Name: "bedrock-media-as-text", Description: "send a text note in place of the images and documents a tool returns"}.
		Failing(checks.ID(brk, checks.CarriesMedia)), noMedia: true},
	{Mistake: core.Mistake{Name: "bedrock-structured-as-text", Description: "send structured content as a text block of its JSON instead of a json block"}.
		Failing(checks.ID(brk, checks.StructuredObject)),
		structured: func(s map[string]any) types.ToolResultContentBlock {
			return &types.ToolResultContentBlockMemberText{Value: string(core.MustJSON(s))}
		}},
	{Mistake: core.Mistake{Name: "bedrock-json-array", Description: "send structured content wrapped in an array in the json block"}.
		Failing("bedrock.json-result-object").MayFailing(checks.ID(brk, checks.StructuredObject)),
		structured: func(s map[string]any) types.ToolResultContentBlock {
			return &types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument([]any{s})}
		}},
	{Mistake: core.Mistake{Name: "bedrock-empty-error-result", Description: `send a tool error as a toolResult with status "error" and no content`}.
		Failing("bedrock.error-result-content").MayFailing(checks.ID(brk, checks.CarriesData)).Rewriting(emptyErrorResults)},
	{Mistake: core.Mistake{Name: "text-beside-results", Description: "add a text block after the toolResult blocks of the user message"}.
		Failing("bedrock.tool-results-alone"),
		reply: func(m *mistake, callTurn types.Message, answers []core.Answer) ([]types.Message, bool) {
			blocks := append(m.toolResults(answers), &types.ContentBlockMemberText{Value: "Here are the tool results."})
			return append([]types.Message{callTurn}, resultMessage(blocks)...), true
		}},
	{Mistake: core.Mistake{Name: "extra-user-turn", Description: "follow the results with a second user message (\"Please continue.\")"}.
		Failing("bedrock.roles-alternate"),
		reply: func(m *mistake, callTurn types.Message, answers []core.Answer) ([]types.Message, bool) {
			reply := append([]types.Message{callTurn}, resultMessage(m.toolResults(answers))...)
			return append(reply, types.Message{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Please continue."}}}), true
		}},
	{Mistake: core.DropFirstUserTurn.Failing("bedrock.first-message-user").Rewriting(core.DropFirst("messages"))},
	{Mistake: core.Mistake{Name: "tool-config-only-first", Description: "declare toolConfig on the first request only, not when the history holds toolUse and toolResult blocks"}.
		Failing("bedrock.tool-config-required").Rewriting(func(body []byte) []byte {
		if bytes.Contains(body, []byte(`"toolUse"`)) {
			return core.DeleteKey("toolConfig")(body)
		}
		return body
	})},
	{Mistake: core.Mistake{Name: "tool-use-ids-with-slash", Description: "rewrite every toolUseId as call/<id> (an id minted by another provider)"}.
		Failing("bedrock.tool-use-id-pattern").MayFailing(checks.ID(brk, checks.MatchesCall), checks.ID(brk, checks.OneResultPerCall)).
		Rewriting(core.EachPath([]string{"messages.#.content.#.toolUse.toolUseId", "messages.#.content.#.toolResult.toolUseId"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote("call/" + v.Str), v.Type == gjson.String
		}))},
	{Mistake: core.Mistake{Name: "result-for-other-id", Description: "answer each call under an id the model never issued (tooluse_ prefixed twice)",
		Hooks: core.Hooks{Batch: func(as []core.Answer) []core.Answer {
			for i := range as {
				as[i].ID = "tooluse_" + as[i].ID
			}
			return as
		}}}.Failing("bedrock.tool-uses-answered").MayFailing(checks.ID(brk, checks.MatchesCall), checks.ID(brk, checks.OneResultPerCall))},

	{Mistake: core.Mistake{Name: "bedrock-reasoning-not-passed-back", Description: "with thinking on, send each tool-calling turn back without its reasoningContent blocks",
		Kill: core.Kill{Scenarios: thinkingPassBack}}.Failing("bedrock.thinking-block-first"),
		reply: func(m *mistake, callTurn types.Message, answers []core.Answer) ([]types.Message, bool) {
			var kept []types.ContentBlock
			for _, b := range callTurn.Content {
				if _, ok := b.(*types.ContentBlockMemberReasoningContent); !ok {
					kept = append(kept, b)
				}
			}
			callTurn.Content = kept
			return append([]types.Message{callTurn}, resultMessage(m.toolResults(answers))...), true
		}},

	{Mistake: core.Mistake{Name: "thinking-not-sent", Description: "leave the task's thinking out of the request (the model then never thinks, and nothing is passed back)",
		Kill: core.Kill{Scenarios: thinkingPassBack}}.
		Failing(checks.ID(brk, checks.ThinkingSent)).Rewriting(core.DeleteKey("additionalModelRequestFields.thinking"))},

	// The model.
	{Mistake: core.UnknownModel.Failing("bedrock.model-exists"),
		model: func(string) string { return "anthropic.claude-test-v1:0" }},

	// The request's shape.
	{Mistake: core.UnknownMember.Failing("bedrock.known-fields")},
	{Mistake: core.WrongMemberType.Failing("bedrock.field-types").Rewriting(core.SetKeys(map[string]any{"inferenceConfig": map[string]any{"temperature": "warm"}}))},
	{Mistake: core.TruncatedBody.Failing("bedrock.valid-json")},
	{Mistake: core.ToolNameWithDot.Failing("bedrock.tool-name-pattern").Rewriting(core.EachPath([]string{"toolConfig.tools.#.toolSpec.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("mcp." + v.Str), v.Type == gjson.String
	}))},
	{Mistake: core.ToolControlsWithoutTools.Failing("bedrock.tools-not-empty").
		Rewriting(core.SetKeys(map[string]any{"toolConfig": map[string]any{"tools": []any{}, "toolChoice": map[string]any{"auto": map[string]any{}}}}))},
	{Mistake: core.Mistake{Name: "duplicate-tool-declaration", Description: "declare the first tool twice"}.
		Failing("bedrock.tool-names-unique").Rewriting(duplicateFirstTool)},

	// What only the model's calls and the task show.
	{Mistake: core.DuplicateResult.Failing("bedrock.tool-result-count").MayFailing(checks.ID(brk, checks.OneResultPerCall)).Rewriting(duplicateFirstResult)},
	{Mistake: core.Mistake{Name: "first-result-twice", Description: "answer the first two calls of a batch both with the first call's result and id",
		Hooks: core.Hooks{Batch: func(as []core.Answer) []core.Answer {
			if len(as) >= 2 {
				as[1] = as[0]
			}
			return as
		}}}.Failing("bedrock.tool-uses-answered", checks.ID(brk, checks.OneResultPerCall)).MayFailing(checks.ID(brk, checks.MatchesCall))},
	{Mistake: core.ToolChoiceLost.Rewriting(core.DeleteKey("toolConfig.toolChoice"))},
	{Mistake: core.MaxOutputTokensIgnored},
	{Mistake: core.KeepForcing},

	// Correct variants: nothing may fail.
	{Mistake: core.LibraryErrorWording},
	{Mistake: core.ValidateArguments},
	{Mistake: core.DropOutputSchema}, // what only the task shows: its output schema
}

// emptyErrorResults empties the content of every toolResult with status
// error.
func emptyErrorResults(body []byte) []byte {
	for i, m := range gjson.GetBytes(body, "messages").Array() {
		for j, b := range m.Get("content").Array() {
			if b.Get("toolResult.status").Str == "error" {
				body, _ = sjson.SetRawBytes(body, "messages."+strconv.Itoa(i)+".content."+strconv.Itoa(j)+".toolResult.content", []byte("[]"))
			}
		}
	}
	return body
}

func duplicateFirstTool(body []byte) []byte {
	first := gjson.GetBytes(body, "toolConfig.tools.0")
	if !first.Exists() {
		return body
	}
	out, _ := sjson.SetRawBytes(body, "toolConfig.tools.-1", []byte(first.Raw))
	return out
}

// duplicateFirstResult sends the first toolResult block of every user
// message twice.
func duplicateFirstResult(body []byte) []byte {
	return core.MapArray("messages", func(m gjson.Result) []string {
		if m.Get("role").Str == "user" {
			blocks := m.Get("content").Array()
			for i, b := range blocks {
				if b.Get("toolResult").Exists() {
					return []string{core.InsertAfter(m.Raw, "content", blocks, i)}
				}
			}
		}
		return []string{m.Raw}
	})(body)
}

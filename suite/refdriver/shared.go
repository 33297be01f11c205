package refdriver

import (
	"bytes"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/suite/checks"
	"github.com/toolwire/toolwire/suite/task"
)

// The mistakes more than one dialect makes, each declared once: its name,
// its description and, where the mistake is made the same way on every
// wire, how it is made and what the suite must report on any dialect.
// Each dialect's table lists the ones it makes, adding the rules it must
// fail there and, where the dialect spells the mistake its own way, how.
var (
	SwappedIDs = Mistake{Name: "swapped-ids", Description: "answer the first two calls of a batch with each other's ids",
		Hooks: Hooks{Batch: func(as []Answer) []Answer {
			if len(as) >= 2 {
				as[0].ID, as[1].ID = as[1].ID, as[0].ID
			}
			return as
		}}}
	UnansweredCall = Mistake{Name: "unanswered-call", Description: "leave the last call of a batch without a result",
		Hooks: Hooks{Batch: func(as []Answer) []Answer {
			if len(as) == 0 {
				return as
			}
			return as[:len(as)-1]
		}}}
	OmitIsError = Mistake{Name: "omit-is-error", Description: "send tool errors as ordinary results (no is_error, no error marker)",
		Hooks: Hooks{UnmarkedErrors: true}}
	ErrorAsNull = Mistake{Name: "error-as-null", Description: `send "null" (the JSON of the structured content an error lacks) as the output of every tool error`,
		Hooks: Hooks{ResultText: func(r task.CallToolResult) string {
			if r.IsError {
				return "null"
			}
			return r.Text()
		}}}
	DropData = Mistake{Name: "drop-data", Description: "send an empty result instead of the tool's output",
		Kill: Kill{Fails: []string{checks.Every(checks.CarriesData)}, MayFail: []string{checks.Every(checks.CarriesMedia)}},
		Hooks: Hooks{AnswerCall: func(t *task.Task, c Call, honest func(*task.Task, Call) (task.CallToolResult, error)) (task.CallToolResult, error) {
			r, err := honest(t, c)
			if err != nil || c.BadArgs {
				return r, err
			}
			return task.CallToolResult{Content: []task.Content{{Type: "text", Text: ""}}, IsError: r.IsError}, nil
		}}}
	CrashOnUnknownTool = Mistake{Name: "crash-on-unknown-tool", Description: "exit with an error when the model calls an undeclared tool",
		Kill: Kill{Fails: []string{checks.Every(checks.BadCallAnswered), checks.Every(checks.FinalText)}},
		Hooks: Hooks{AnswerCall: func(t *task.Task, c Call, honest func(*task.Task, Call) (task.CallToolResult, error)) (task.CallToolResult, error) {
			if t.Tool(c.Name) == nil {
				return task.CallToolResult{}, fmt.Errorf("tool %q is not declared", c.Name)
			}
			return honest(t, c)
		}}}
	IgnoreFinalText = Mistake{Name: "ignore-final-text", Description: "report an empty final text",
		Kill:  Kill{Fails: []string{checks.Every(checks.FinalText)}},
		Hooks: Hooks{FinalText: func(string) string { return "" }}}
	ResultsAsUserText = Mistake{Name: "results-as-user-text", Description: "drop the model's call turn and paste the tool results into a user message as text"}
	DropAssistantTurn = Mistake{Name: "drop-assistant-turn", Description: "send the results without the assistant turn that made the calls"}

	// Mistakes about the model: an id the API does not serve, or a
	// parameter the named model does not take (the model catalog's rules).
	UnknownModel           = Mistake{Name: "unknown-model", Description: "name a model the API does not serve (gpt-test, claude-test, gemini-1.5-flash)"}
	EffortToNonReasoning   = Mistake{Name: "effort-to-non-reasoning-model", Description: "send a reasoning effort to gpt-4.1, which does not reason"}
	WrongAPIModel          = Mistake{Name: "model-of-the-other-openai-api", Description: "use a Responses-only model on Chat (o3-pro) and a Chat-only one on Responses (gpt-4o-search-preview)"}
	EffortLevelUnsupported = Mistake{Name: "effort-level-unsupported", Description: "ask for an effort level the model lacks (gpt-5 none, Claude Opus 4.6 xhigh)"}

	// Mistakes in the request's shape, refused as the body is decoded or
	// as the request is checked.
	OmitModel                = Mistake{Name: "omit-model", Description: "leave model out of the request body"}.Rewriting(DeleteKey("model"))
	UnknownMember            = Mistake{Name: "unknown-member", Description: `send a member the API does not define ("toolwire_extra": 1)`}.Rewriting(SetKeys(map[string]any{"toolwire_extra": 1}))
	WrongMemberType          = Mistake{Name: "wrong-member-type", Description: `send a member with the wrong JSON kind (Chat "n": "1", elsewhere temperature "warm")`}
	TruncatedBody            = Mistake{Name: "truncated-body", Description: "send the body without its closing brace"}.Rewriting(withoutClosingBrace)
	ToolControlsWithoutTools = Mistake{Name: "tool-controls-without-tools", Description: "drop tools but keep the tool controls (Chat parallel_tool_calls: false, Anthropic tool_choice auto, Gemini functionCallingConfig)"}
	ForceUndeclaredTool      = Mistake{Name: "force-undeclared-tool", Description: "force the model to a function that is not declared (tool_choice, or Gemini allowedFunctionNames)"}
	StrictWithLooseSchema    = Mistake{Name: "non-strict-schema-with-strict", Description: "declare every function strict: true without making its schema strict (additionalProperties: false, all properties required)"}
	ToolNameWithDot          = Mistake{Name: "tool-name-with-dot", Description: `declare tools under MCP-style namespaced names ("mcp.get_weather")`}
	BadToolName              = Mistake{Name: "bad-tool-name", Description: "declare tools with names the API rejects (spaces, punctuation)"}
	InvalidSchema            = Mistake{Name: "invalid-schema", Description: "declare tool parameters that are not a valid JSON Schema"}
	DropFirstUserTurn        = Mistake{Name: "drop-first-user-turn", Description: "trim the history so it no longer starts with the user's prompt (a window that cut the first turn)"}

	// Mistakes only a judge that compares against what the model issued
	// and what the task asked for can see: every request they produce is
	// valid on its own.
	DropLastCall    = Mistake{Name: "drop-last-call", Description: "drop the last call of a parallel batch from the replayed model turn together with its result (code that reads only the first calls)"}
	DuplicateResult = Mistake{Name: "duplicate-result", Description: "send the first result of every batch twice"}
	ToolChoiceLost  = Mistake{Name: "tool-choice-not-sent", Description: "leave the task's forced tool_choice (Gemini: toolConfig) out of the request",
		Kill: Kill{Scenarios: []string{"forced-tool-choice"}, Fails: []string{checks.Every(checks.ToolChoiceSent)}}}
	StrictLost = Mistake{Name: "strict-not-sent", Description: "declare strict tools with strict: false (the flag not passed through)",
		Kill: Kill{Scenarios: []string{"strict-tools"}}}
	MaxOutputTokensIgnored = Mistake{Name: "max-output-tokens-ignored", Description: "ignore the task's max_output_tokens: send no limit (Anthropic: the driver's own 1024)",
		Kill:  Kill{Scenarios: []string{"truncated-call"}, Fails: []string{checks.Every(checks.MaxOutputTokensSent)}},
		Hooks: Hooks{NoOutputLimit: true}}
	DropOutputSchema = Mistake{Name: "drop-output-schema", Description: "leave the task's output schema out of the requests (no response_format, text.format, output_config.format, responseJsonSchema or outputConfig.textFormat), so the final answer comes back as free text",
		Kill:  Kill{Scenarios: []string{"structured-final-answer"}, Fails: []string{checks.Every(checks.StructuredAnswer)}},
		Hooks: Hooks{DropOutput: true}}

	// Mistakes in how the loop treats the model's turns: a forced choice
	// kept after its call was answered, and a turn the token limit cut
	// run as if it were complete.
	KeepForcing = Mistake{Name: "keep-forcing", Description: "send the task's forced tool_choice on every request, after its call was answered too",
		Kill:  Kill{Scenarios: []string{"forced-tool-choice", "forced-choice-reset"}, Fails: []string{checks.Every(checks.ToolChoiceReset)}},
		Hooks: Hooks{KeepForcing: true}}
	ExecuteTruncatedCall = Mistake{Name: "execute-truncated-call", Description: "run the calls of a turn the token limit cut, as if the turn were complete",
		Kill: Kill{Scenarios: []string{"truncated-call"}}, Hooks: Hooks{RunCutTurns: true}}

	// Correct variants: what popular libraries do, which the suite must
	// accept.
	LibraryErrorWording = Mistake{Name: "library-error-wording", Description: `correct variant: word errors as popular libraries do ("An error occurred while running <tool>: …", "Tool \"x\" not found. Available tools: …", "An error occurred while parsing tool arguments …"), no "Error:" prefix`,
		Hooks: Hooks{AnswerCall: libraryAnswer, ResultText: task.CallToolResult.Text}}
	ValidateArguments = Mistake{Name: "validate-arguments", Description: "correct variant: validate each call's arguments against the tool's schema before running it, and answer a call that breaks it with the validation error (not the tool's result)",
		Hooks: Hooks{AnswerCall: validatingAnswer}}
)

// withoutClosingBrace cuts the body's closing brace, not a trailing
// newline some encoders add.
func withoutClosingBrace(body []byte) []byte {
	body = bytes.TrimRight(body, " \t\r\n")
	return body[:len(body)-1]
}

// DropFirst drops the first entry of the history at key when it is the
// user's and more follow (drop-first-user-turn).
func DropFirst(key string) func([]byte) []byte {
	return func(body []byte) []byte {
		list := gjson.GetBytes(body, key).Array()
		if len(list) >= 2 && list[0].Get("role").Str == "user" {
			return DeleteKey(key + ".0")(body)
		}
		return body
	}
}

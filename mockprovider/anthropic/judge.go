package anthropic

import (
	"github.com/tidwall/gjson"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// Sources the judge cites for the Messages API.
const (
	guide             = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
	toolChoiceDoc     = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use"
	strictDoc         = "https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs (strict tool use)"
	truncatedSource   = "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons (max_tokens: \"Raise max_tokens or continue the response\"); https://gitlab.com/gitlab-org/modelops/applied-ml/code-suggestions/ai-assist/-/merge_requests/3479 (\"Do not run a tool if stop_reason == max_tokens\")"
	limitSource       = "https://platform.claude.com/docs/en/api/messages (max_tokens: the maximum number of tokens to generate before stopping)"
	thinkingBudgetDoc = "https://platform.claude.com/docs/en/build-with-claude/extended-thinking (thinking {type: enabled, budget_tokens}, budget_tokens below max_tokens)"
)

// The variables the Anthropic SDKs read, which the driver contract sets.
const (
	EnvBaseURL = "ANTHROPIC_BASE_URL"
	EnvKey     = "ANTHROPIC_API_KEY"
)

var judge = dialect.Judge{
	DefaultModel: "claude-sonnet-4-5",
	DriverEnv: func(serverURL, key string) map[string]string {
		return map[string]string{EnvBaseURL: serverURL, EnvKey: key}
	},
	Guide:           guide,
	ForcedChoice:    `tool_choice "any" or "tool"`,
	ChoiceShape:     `{"type": "tool", "name": …}`,
	TruncatedSignal: `stop_reason "max_tokens"`,
	TruncatedSource: truncatedSource,
	ErrorLevel:      rules.MUST, ErrorSummary: "A tool error (MCP isError) is sent as a tool_result with is_error: true", ErrorSource: guide,
	ErrorWhy:        "data the model needs is lost: is_error is how the API tells the model that the call failed; without it the error text reads as the tool's output",
	ErrorForm:       "a tool_result with is_error: true",
	ErrorFix:        "set is_error: true on the tool_result",
	LimitMember:     "max_tokens",
	ThinkingInLimit: true,
	Thinking:        thinkingOf,
	ThinkingShape:   `thinking {"type": "enabled", "budget_tokens": N} (max_tokens above N)`,
	Strict:          func(body []byte, name string) (bool, bool) { return dialect.StrictIn(body, "", name) },
	MatchSummary:    "Each result references the call it answers (by call id): no result carries another call's data",
	MediaInResults:  dialect.Always,
	ResultPath:      resultPath,
	ExtraChecks: []dialect.JudgeCheck{
		{Check: checks.ToolChoiceSent, Level: rules.MUST, Feature: "tool-choice", Summary: `The request carries the tool_choice the task asks for ({"type": "tool", "name": …} for a forced tool)`, Source: toolChoiceDoc},
		{Check: checks.StrictSent, Level: rules.MUST, Feature: "strict", Summary: "A tool the task declares strict is sent with strict: true", Source: strictDoc},
		{Check: checks.CarriesMedia, Level: rules.SHOULD, Feature: "images", Summary: "Images and documents returned by a tool travel as image/document blocks inside the tool_result", Source: guide},
		{Check: checks.MaxOutputTokensSent, Level: rules.MUST, Feature: "truncation", Summary: "The first request carries the task's max_output_tokens as max_tokens (with thinking on: budget_tokens + max_output_tokens)", Source: limitSource},
		{Check: checks.ThinkingSent, Level: rules.MUST, Feature: "thinking", Summary: `Every request of a task with thinking carries thinking {"type": "enabled", "budget_tokens": <the task's budget_tokens>}`, Source: thinkingBudgetDoc},
		{Check: checks.StructuredAnswer, Level: rules.MUST, Feature: "structured-output", Summary: `The request that gets the final answer carries the task's output schema as output_config.format {"type": "json_schema", "schema"}, and the driver reports that answer: JSON valid against the schema`, Source: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs (JSON outputs: output_config.format constrains the text response to the schema)"},
	},
}

// Judge is what the conformance suite's judge knows of the Messages API.
func (d *Dialect) Judge() *dialect.Judge { return &judge }

// thinkingOf reads thinking {"type": "enabled", "budget_tokens": N}.
func thinkingOf(body []byte) (on bool, budget int64) {
	t := gjson.GetBytes(body, "thinking")
	return t.Get("type").Str == "enabled", t.Get("budget_tokens").Int()
}

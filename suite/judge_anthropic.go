package suite

import (
	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

var judgeAnthropic = judgeDialect{
	guide:           anthropicGuide,
	forcedChoice:    `tool_choice "any" or "tool"`,
	choiceShape:     `{"type": "tool", "name": …}`,
	truncatedSignal: `stop_reason "max_tokens"`,
	truncatedSource: truncatedAnthropic,
	errorLevel:      rules.MUST, errorSummary: "A tool error (MCP isError) is sent as a tool_result with is_error: true", errorSource: anthropicGuide,
	errorWhy:       "data the model needs is lost: is_error is how the API tells the model that the call failed; without it the error text reads as the tool's output",
	errorForm:      "a tool_result with is_error: true",
	errorFix:       "set is_error: true on the tool_result",
	limitMember:    "max_tokens",
	thinking:       anthropicThinking,
	thinkingShape:  `thinking {"type": "enabled", "budget_tokens": N} (max_tokens above N)`,
	matchSummary:   byCallIDSummary,
	mediaInResults: always,
	resultPath:     anthropicResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "tool", "name": …} for a forced tool)`, whyChoiceLost, anthropicToolChoice},
		{checkStrictSent, rules.MUST, "strict", "A tool the task declares strict is sent with strict: true", whyStrictLost, anthropicStrict},
		{checkCarriesMedia, rules.SHOULD, "images", "Images and documents returned by a tool travel as image/document blocks inside the tool_result", whyMediaElsewhere, anthropicGuide},
		{checkLimitSent, rules.MUST, "truncation", "The first request carries the task's max_output_tokens as max_tokens (with thinking on: budget_tokens + max_output_tokens)", whyLimitLost, anthropicLimit},
		{checkThinkingSent, rules.MUST, "thinking", `Every request of a task with thinking carries thinking {"type": "enabled", "budget_tokens": <the task's budget_tokens>}`, whyThinkingLost, anthropicThinkingDoc},
	},
}

// anthropicThinking reads thinking {"type": "enabled", "budget_tokens": N}.
func anthropicThinking(body []byte) (on bool, budget int64) {
	t := gjson.GetBytes(body, "thinking")
	return t.Get("type").Str == "enabled", t.Get("budget_tokens").Int()
}

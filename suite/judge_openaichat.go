package suite

import "github.com/toolwire/toolwire/mockprovider/rules"

var judgeOpenAIChat = judgeDialect{
	guide:           openAIGuide,
	forcedChoice:    openAIForced,
	choiceShape:     `{"type": "function", "function": {"name": …}}`,
	truncatedSignal: `finish_reason "length"`,
	truncatedSource: truncatedChat,
	errorLevel:      rules.MUST, errorSummary: openAIErrorSummary, errorWhy: openAIErrorWhy, errorSource: openAIGuide, errorForm: openAIErrorForm, errorFix: openAIErrorFix,
	limitMember:    "max_completion_tokens (or the older max_tokens)",
	matchSummary:   byCallIDSummary,
	mediaInResults: never,
	resultPath:     chatResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "function", "function": {"name": …}} for a forced function)`, whyChoiceLost, openAIToolChoice},
		{checkStrictSent, rules.MUST, "strict", "A function the task declares strict is sent with function.strict: true", whyStrictLost, openAIStrict},
		{checkLimitSent, rules.MUST, "truncation", "The first request carries the task's max_output_tokens as max_completion_tokens (or the older max_tokens)", whyLimitLost, openAIChatLimit},
	},
}

package suite

import "github.com/toolwire/toolwire/mockprovider/rules"

var judgeOpenAIChat = judgeDialect{
	guide:           openAIGuide,
	forcedChoice:    openAIForced,
	choiceShape:     `{"type": "function", "function": {"name": …}}`,
	truncatedSignal: `finish_reason "length"`,
	truncatedSource: truncatedChat,
	errorLevel:      rules.SHOULD, errorSummary: openAIErrorSummary, errorSource: openAIGuide, errorFix: openAIErrorFix,
	matchSummary:   byCallIDSummary,
	mediaInResults: never,
	resultPath:     chatResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "function", "function": {"name": …}} for a forced function)`, openAIToolChoice},
		{checkStrictSent, rules.MUST, "strict", "A function the task declares strict is sent with function.strict: true", openAIStrict},
	},
}

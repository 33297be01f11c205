package suite

import "github.com/toolwire/toolwire/mockprovider/rules"

var judgeAnthropic = judgeDialect{
	guide:           anthropicGuide,
	forcedChoice:    `tool_choice "any" or "tool"`,
	choiceShape:     `{"type": "tool", "name": …}`,
	truncatedSignal: `stop_reason "max_tokens"`,
	truncatedSource: truncatedAnthropic,
	errorLevel:      rules.MUST, errorSummary: "A tool error (MCP isError) is sent as a tool_result with is_error: true", errorSource: anthropicGuide,
	errorFix:       "set is_error: true on the tool_result",
	matchSummary:   byCallIDSummary,
	mediaInResults: always,
	resultPath:     anthropicResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "tool", "name": …} for a forced tool)`, anthropicToolChoice},
		{checkStrictSent, rules.MUST, "strict", "A tool the task declares strict is sent with strict: true", anthropicStrict},
		{checkCarriesMedia, rules.SHOULD, "images", "Images and documents returned by a tool travel as image/document blocks inside the tool_result", anthropicGuide},
	},
}

package suite

import "github.com/toolwire/toolwire/mockprovider/rules"

var judgeOpenAIResponses = judgeDialect{
	guide:           openAIGuide,
	forcedChoice:    openAIForced,
	choiceShape:     `{"type": "function", "name": …}`,
	truncatedSignal: `status "incomplete", reason "max_output_tokens"`,
	truncatedSource: truncatedResponses,
	errorLevel:      rules.SHOULD, errorSummary: openAIErrorSummary, errorSource: openAIGuide, errorFix: openAIErrorFix,
	matchSummary:   byCallIDSummary,
	mediaInResults: always,
	resultPath:     responsesResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "function", "name": …} for a forced function)`, openAIToolChoice},
		{checkStrictSent, rules.MUST, "strict", "A function the task declares strict is sent with strict: true", openAIStrict},
		{checkCarriesMedia, rules.SHOULD, "images", "Images and files returned by a tool travel as input_image/input_file items of function_call_output.output", openAIRespOutput},
	},
}

package suite

import "github.com/toolwire/toolwire/mockprovider/rules"

var judgeOpenAIResponses = judgeDialect{
	guide:           openAIGuide,
	forcedChoice:    openAIForced,
	choiceShape:     `{"type": "function", "name": …}`,
	truncatedSignal: `status "incomplete", reason "max_output_tokens"`,
	truncatedSource: truncatedResponses,
	errorLevel:      rules.MUST, errorSummary: openAIErrorSummary, errorWhy: openAIErrorWhy, errorSource: openAIGuide, errorForm: openAIErrorForm, errorFix: openAIErrorFix,
	limitMember:    "max_output_tokens",
	matchSummary:   byCallIDSummary,
	mediaInResults: always,
	resultPath:     responsesResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "function", "name": …} for a forced function)`, whyChoiceLost, openAIToolChoice},
		{checkStrictSent, rules.MUST, "strict", "A function the task declares strict is sent with strict: true", whyStrictLost, openAIStrict},
		{checkCarriesMedia, rules.SHOULD, "images", "Images and files returned by a tool travel as input_image/input_file items of function_call_output.output", whyMediaElsewhere, openAIRespOutput},
		{checkLimitSent, rules.MUST, "truncation", "The first request carries the task's max_output_tokens as max_output_tokens", whyLimitLost, openAIRespLimit},
		{checkItemRefsSent, rules.MUST, "item-references", `When the task asks for item_references, every continuation refers to the model's earlier output items (reasoning, assistant message; a function_call may be either) as {"type": "item_reference", "id": …} instead of replaying them in full`, whyItemRefsLost, openAIItemReference},
	},
}

package suite

import (
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

var judgeGemini = judgeDialect{
	guide:        geminiGuide,
	forcedChoice: "functionCallingConfig mode ANY",
	choiceShape:  `toolConfig.functionCallingConfig {"mode": "ANY", "allowedFunctionNames": [name]}`,
	// Gemini leaves a cut call out of its answer: nothing to run.
	truncatedSignal: `finishReason "MAX_TOKENS"`,
	errorLevel:      rules.MUST, errorSummary: `A tool error (MCP isError) is sent as functionResponse.response {"error": …} (not under "output")`, errorSource: geminiResponseDoc,
	errorWhy:       `data the model needs is lost: the "error" key is how the API tells the model that the call failed; under "output" the error reads as the tool's result`,
	errorForm:      `functionResponse.response {"error": …}`,
	errorFix:       `send {"error": "<message>"} as functionResponse.response`,
	limitMember:    "generationConfig.maxOutputTokens",
	matchSummary:   "Function responses come in call order with the call's name (and id when the call had one): no response carries another call's data",
	mediaInResults: model.IsGemini3,
	resultPath:     geminiResultPath,
	extraChecks: []judgeCheck{
		{checkToolChoiceSent, rules.MUST, "tool-choice", "The request carries the function calling mode the task asks for (toolConfig.functionCallingConfig mode ANY with allowedFunctionNames [name] for a forced function)", whyChoiceLost, geminiToolChoice},
		{checkCarriesMedia, rules.SHOULD, "images", "On Gemini 3 models, images and documents returned by a tool travel as functionResponse.parts inlineData", whyMediaElsewhere, geminiMultimodal},
		{checkStructuredObj, rules.SHOULD, "structured", "Structured tool output is sent as the functionResponse.response object, not as a JSON string", "SHOULD: the data still reaches the model, as a JSON string; only its form is off", geminiResponseDoc},
		{checkLimitSent, rules.MUST, "truncation", "The first request carries the task's max_output_tokens as generationConfig.maxOutputTokens", whyLimitLost, geminiLimit},
	},
}

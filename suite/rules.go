package suite

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// Scenario-level checks: what only the scenario knows (which tool answered
// which call with what data, what the model issued, what the task asked
// the request to carry), judged from the journal after a driver run.
// They join the mock's request rules in the catalog; their Check is nil
// because no single request shows them.
const (
	checkFinalText       = checks.FinalText
	checkCarriesData     = checks.CarriesData
	checkMatchesCall     = checks.MatchesCall
	checkErrorFlagged    = checks.ErrorFlagged
	checkBadCallAnswered = checks.BadCallAnswered
	checkCarriesMedia    = checks.CarriesMedia
	checkStructuredObj   = checks.StructuredObject
	checkResultsSent     = checks.ResultsSent
	checkOneResult       = checks.OneResultPerCall
	checkToolChoiceSent  = checks.ToolChoiceSent
	checkStrictSent      = checks.StrictSent
)

// ruleID names a scenario check of one dialect.
func ruleID(d conv.Dialect, check string) string { return checks.ID(d, check) }

// Rules returns the scenario-level rules, for the catalog.
func Rules() []rules.Rule {
	var out []rules.Rule
	for _, d := range conv.Dialects {
		out = append(out, dialectRules(d)...)
	}
	return out
}

// Public sources of the scenario checks: each API's tool-use guide, and
// the official SDK sources where the guide is silent.
const (
	openAIGuide         = "https://platform.openai.com/docs/guides/function-calling"
	openAIToolChoice    = "https://platform.openai.com/docs/guides/function-calling#tool-choice"
	openAIStrict        = "https://platform.openai.com/docs/guides/function-calling#strict-mode"
	openAIRespOutput    = "https://github.com/openai/openai-go/blob/v3.96.0/responses/response.go (ResponseInputItemFunctionCallOutputParam.Output: a string or a list of input_text/input_image/input_file items)"
	anthropicGuide      = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
	anthropicToolChoice = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use"
	anthropicStrict     = "https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs (strict tool use)"
	geminiGuide         = "https://ai.google.dev/gemini-api/docs/function-calling"
	geminiToolChoice    = "https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes"
	geminiMultimodal    = "https://ai.google.dev/gemini-api/docs/function-calling#multimodal"
	geminiResponseDoc   = "https://github.com/googleapis/go-genai/blob/v1.77.0/types.go (FunctionResponse.Response: \"output\" key for the output, \"error\" key for error details)"
)

func guide(d conv.Dialect) string {
	switch d {
	case conv.Anthropic:
		return anthropicGuide
	case conv.Gemini:
		return geminiGuide
	}
	return openAIGuide
}

func dialectRules(d conv.Dialect) []rules.Rule {
	r := func(check string, level rules.Level, feature, summary, source string) rules.Rule {
		return rules.Rule{ID: ruleID(d, check), Dialect: d, Level: level, Feature: feature, Summary: summary, Source: source}
	}
	errLevel, errSummary, errSource := rules.SHOULD,
		`A tool error (MCP isError) is sent as an error: the output starts with "Error" (the API has no error flag)`, openAIGuide
	switch d {
	case conv.Anthropic:
		errLevel, errSummary, errSource = rules.MUST, "A tool error (MCP isError) is sent as a tool_result with is_error: true", anthropicGuide
	case conv.Gemini:
		errLevel, errSummary, errSource = rules.MUST, `A tool error (MCP isError) is sent as functionResponse.response {"error": …} (not under "output")`, geminiResponseDoc
	}
	matchSummary := "Each result references the call it answers (by call id): no result carries another call's data"
	if d == conv.Gemini {
		matchSummary = "Function responses come in call order with the call's name (and id when the call had one): no response carries another call's data"
	}
	src := guide(d)
	out := []rules.Rule{
		r(checkFinalText, rules.MUST, "core", "The driver completes the tool loop and reports the model's final text unchanged (streamed text fully assembled)", src),
		r(checkCarriesData, rules.MUST, "core", "Every result sent back carries the tool's output (its text, or its structured content)", src),
		r(checkMatchesCall, rules.MUST, "core", matchSummary, src),
		r(checkResultsSent, rules.MUST, "core", "Every call the model issued comes back in the next request — in the replayed model turn, with its result (a conversation never goes back ending in unanswered calls, nor with a call left out)", src),
		r(checkOneResult, rules.MUST, "core", "Each call is answered by exactly one result: no second result for the same call", src),
		r(checkErrorFlagged, errLevel, "errors", errSummary, errSource),
		r(checkBadCallAnswered, rules.MUST, "errors", "A call to an undeclared tool or with unparseable arguments is answered with an error result; the driver does not crash or drop it", src),
	}
	switch d {
	case conv.OpenAIChat:
		out = append(out,
			r(checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "function", "function": {"name": …}} for a forced function)`, openAIToolChoice),
			r(checkStrictSent, rules.MUST, "strict", "A function the task declares strict is sent with function.strict: true", openAIStrict))
	case conv.OpenAIResponses:
		out = append(out,
			r(checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "function", "name": …} for a forced function)`, openAIToolChoice),
			r(checkStrictSent, rules.MUST, "strict", "A function the task declares strict is sent with strict: true", openAIStrict),
			r(checkCarriesMedia, rules.SHOULD, "images", "Images and files returned by a tool travel as input_image/input_file items of function_call_output.output", openAIRespOutput))
	case conv.Anthropic:
		out = append(out,
			r(checkToolChoiceSent, rules.MUST, "tool-choice", `The request carries the tool_choice the task asks for ({"type": "tool", "name": …} for a forced tool)`, anthropicToolChoice),
			r(checkStrictSent, rules.MUST, "strict", "A tool the task declares strict is sent with strict: true", anthropicStrict),
			r(checkCarriesMedia, rules.SHOULD, "images", "Images and documents returned by a tool travel as image/document blocks inside the tool_result", anthropicGuide))
	case conv.Gemini:
		out = append(out,
			r(checkToolChoiceSent, rules.MUST, "tool-choice", "The request carries the function calling mode the task asks for (toolConfig.functionCallingConfig mode ANY with allowedFunctionNames [name] for a forced function)", geminiToolChoice),
			r(checkCarriesMedia, rules.SHOULD, "images", "On Gemini 3 models, images and documents returned by a tool travel as functionResponse.parts inlineData", geminiMultimodal),
			r(checkStructuredObj, rules.SHOULD, "structured", "Structured tool output is sent as the functionResponse.response object, not as a JSON string", geminiResponseDoc))
	}
	return out
}

package suite

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Scenario-level checks: what only the scenario knows (which tool answered
// which call with what data), judged from the journal after a driver run.
// They join the mock's request rules in the catalog; their Check is nil
// because no single request shows them.
const (
	checkFinalText       = "final-text"
	checkCarriesData     = "result-carries-data"
	checkMatchesCall     = "result-matches-call"
	checkErrorFlagged    = "error-flagged"
	checkBadCallAnswered = "bad-call-error-result"
	checkCarriesMedia    = "result-carries-media"
	checkStructuredObj   = "structured-response-object"
	checkResultsSent     = "results-sent"
)

// ruleID names a scenario check of one dialect.
func ruleID(d conv.Dialect, check string) string { return string(d) + "." + check }

// Rules returns the scenario-level rules, for the catalog.
func Rules() []rules.Rule {
	var out []rules.Rule
	for _, d := range conv.Dialects {
		out = append(out, dialectRules(d)...)
	}
	return out
}

func dialectRules(d conv.Dialect) []rules.Rule {
	r := func(check string, level rules.Level, feature, summary, source string) rules.Rule {
		return rules.Rule{ID: ruleID(d, check), Dialect: d, Level: level, Feature: feature, Summary: summary, Source: source}
	}
	errLevel, errSummary, errSource := rules.SHOULD,
		`A tool error (MCP isError) is sent as an error: the output starts with "Error" (the API has no error flag)`,
		"seed 004 §Errors; seed 000 §Unified result formatting layer"
	switch d {
	case conv.Anthropic:
		errLevel, errSummary, errSource = rules.MUST, "A tool error (MCP isError) is sent as a tool_result with is_error: true", "seed 000 §The `is_error` flag"
	case conv.Gemini:
		errLevel, errSummary, errSource = rules.MUST, `A tool error (MCP isError) is sent as functionResponse.response {"error": …} (not under "output")`, "seed 000 §Gemini: `Part.from_function_response()`; go-genai FunctionResponse.Response doc"
	}
	matchSummary, matchSource := "Each result references the call it answers (by call id): no result carries another call's data", "seed 000 §Common pitfalls; seed 001 §Common pitfalls"
	if d == conv.Gemini {
		matchSummary, matchSource = "Function responses come in call order with the call's name (and id when the call had one): no response carries another call's data", "seed 000 §Important Gemini details"
	}
	out := []rules.Rule{
		r(checkFinalText, rules.MUST, "core", "The driver completes the tool loop and reports the model's final text unchanged (streamed text fully assembled)", "seed 000 §Complete example (step 4: send results back for the final response)"),
		r(checkCarriesData, rules.MUST, "core", "Every result sent back carries the tool's output (its text, or its structured content)", "seed 004 §The tool-result format; seed 000 §Unified result formatting layer"),
		r(checkMatchesCall, rules.MUST, "core", matchSummary, matchSource),
		r(checkResultsSent, rules.MUST, "core", "After the model calls tools, the next request carries a result for every call (a conversation never goes back ending in unanswered calls)", "seed 000 §Complete example (step 3: execute each function call and append results)"),
		r(checkErrorFlagged, errLevel, "errors", errSummary, errSource),
		r(checkBadCallAnswered, rules.MUST, "errors", "A call to an undeclared tool or with unparseable arguments is answered with an error result; the driver does not crash or drop it", "seed 004 §Errors (tool errors are results the agent can recover from)"),
	}
	switch d {
	case conv.Anthropic:
		out = append(out, r(checkCarriesMedia, rules.SHOULD, "images", "Images and documents returned by a tool travel as image/document blocks inside the tool_result", "seed 000 §Rich content in results; seed 003 §Anthropic: Base64 images in tool_result content"))
	case conv.OpenAIResponses:
		out = append(out, r(checkCarriesMedia, rules.SHOULD, "images", "Images and files returned by a tool travel as input_image/input_file items of function_call_output.output", "seed 000 §Output as content array (images and files)"))
	case conv.Gemini:
		out = append(out,
			r(checkCarriesMedia, rules.SHOULD, "images", "On Gemini 3 models, images and documents returned by a tool travel as functionResponse.parts inlineData", "seed 003 §Including images in function responses"),
			r(checkStructuredObj, rules.SHOULD, "structured", "Structured tool output is sent as the functionResponse.response object, not as a JSON string", "seed 000 §Common pitfalls (Stringifying Gemini results)"))
	}
	return out
}

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
	checkToolChoiceReset = checks.ToolChoiceReset
	checkTruncatedCall   = checks.TruncatedCallRun
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
	// A forced choice kept after its call was answered forces a call on
	// every later turn: the loop never ends in text.
	toolChoiceReset = "https://github.com/openai/openai-agents-python/pull/335 (docs/agents.md: \"the framework automatically resets tool_choice to 'auto' after a tool call … The infinite loop is because tool results are sent to the LLM, which then generates another tool call because of tool_choice, ad infinitum\")"
	// A turn the token limit cut is incomplete: a call in it is not run.
	truncatedAnthropic = "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons (max_tokens: \"Raise max_tokens or continue the response\"); https://gitlab.com/gitlab-org/modelops/applied-ml/code-suggestions/ai-assist/-/merge_requests/3479 (\"Do not run a tool if stop_reason == max_tokens\")"
	truncatedChat      = "https://platform.openai.com/docs/api-reference/chat/object (finish_reason \"length\": the maximum number of tokens specified in the request was reached)"
	truncatedResponses = "https://platform.openai.com/docs/guides/reasoning#allocating-space-for-reasoning (status \"incomplete\", incomplete_details.reason \"max_output_tokens\")"
	geminiResponseDoc  = "https://github.com/googleapis/go-genai/blob/v1.77.0/types.go (FunctionResponse.Response: \"output\" key for the output, \"error\" key for error details)"
)

func dialectRules(d conv.Dialect) []rules.Rule {
	r := func(check string, level rules.Level, feature, summary, source string) rules.Rule {
		return rules.Rule{ID: ruleID(d, check), Dialect: d, Level: level, Feature: feature, Summary: summary, Source: source}
	}
	jd := judgeOf(d)
	src := jd.guide
	out := []rules.Rule{
		r(checkFinalText, rules.MUST, "core", "The driver completes the tool loop and reports the model's final text unchanged (streamed text fully assembled)", src),
		r(checkCarriesData, rules.MUST, "core", "Every result sent back carries the tool's output (its text, or its structured content)", src),
		r(checkMatchesCall, rules.MUST, "core", jd.matchSummary, src),
		r(checkResultsSent, rules.MUST, "core", "Every call the model issued comes back in the next request — in the replayed model turn, with its result (a conversation never goes back ending in unanswered calls, nor with a call left out)", src),
		r(checkOneResult, rules.MUST, "core", "Each call is answered by exactly one result: no second result for the same call", src),
		r(checkErrorFlagged, jd.errorLevel, "errors", jd.errorSummary, jd.errorSource),
		r(checkBadCallAnswered, rules.MUST, "errors", "A call to an undeclared tool or with unparseable arguments is answered with an error result; the driver does not crash or drop it", src),
		r(checkToolChoiceReset, rules.MUST, "tool-choice", "Once the forced call is answered, the next request no longer forces a call ("+jd.forcedChoice+" goes back to auto): a forced choice makes every answer a call, so a loop that keeps it never ends in text", toolChoiceReset),
	}
	if jd.truncatedSource != "" {
		out = append(out, r(checkTruncatedCall, rules.MUST, "truncation", "A turn the token limit cut ("+jd.truncatedSignal+") is not continued: the cut call is neither run nor answered; the driver asks again with a larger limit (or reports the turn incomplete)", jd.truncatedSource))
	}
	for _, c := range jd.extraChecks {
		out = append(out, r(c.check, c.level, c.feature, c.summary, c.source))
	}
	return out
}

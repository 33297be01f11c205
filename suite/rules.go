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
	checkLimitSent       = checks.MaxOutputTokensSent
	checkThinkingSent    = checks.ThinkingSent
	checkItemRefsSent    = checks.ItemReferencesSent
	checkStructuredAns   = checks.StructuredAnswer
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

// The source of the tool_choice reset check: a forced choice kept after
// its call was answered forces a call on every later turn, so the loop
// never ends in text. The per-dialect sources are in each dialect's
// judge.go.
const toolChoiceReset = "https://github.com/openai/openai-agents-python/pull/335 (docs/agents.md: \"the framework automatically resets tool_choice to 'auto' after a tool call … The infinite loop is because tool results are sent to the LLM, which then generates another tool call because of tool_choice, ad infinitum\")"

// Why each scenario check has its level: a MUST because the real API
// refuses the breach, or because data the model needs is lost on the way
// (the tool's output, the failure of a call, a setting the caller gave);
// a SHOULD because the data may still reach the model.
const (
	whyFinalText      = "data the model needs is lost: a loop that stops early, or reports another text, loses the model's answer"
	whyCarriesData    = "data the model needs is lost: the model answers without the tool's output"
	whyMatchesCall    = "data the model needs is lost: the model reads one call's output as another's (and an id no call has is the API's 400)"
	whyResultsSent    = "the real API refuses a call without its result (400), and a call left out of the replayed turn loses its output"
	whyOneResult      = "data the model needs is lost: two answers to one call leave the model no way to tell which is the tool's output"
	whyBadCall        = "the real API refuses a conversation that leaves a call unanswered (400); a driver that crashes or drops the call ends the loop"
	whyChoiceReset    = "data the model needs is lost: a forced choice kept after its call was answered makes every answer a call, so the model's final answer never comes"
	whyTruncated      = "data the model needs is lost: a call cut by the token limit carries a fragment of its arguments; running it runs a call the model never finished"
	whyChoiceLost     = "data the model needs is lost: the caller's tool_choice never reaches the API, so the model answers unforced"
	whyStrictLost     = "data the model needs is lost: without strict the API does not hold the model's arguments to the schema the caller asked it to enforce"
	whyLimitLost      = "data the model needs is lost: the caller's output token limit never reaches the API, so the answers are not bounded as asked (and a cut turn is never met)"
	whyThinkingLost   = "data the model needs is lost: the caller's thinking budget never reaches the API, so the model answers without extended thinking"
	whyItemRefsLost   = "data the model needs is lost: the caller asked to continue by reference to the stored items, and the API is sent something else"
	whyOutputLost     = "data the model needs is lost: the caller's output schema never reaches the API, so the model answers in free text and the caller's parser fails on it"
	whyMediaElsewhere = "SHOULD: the image or document may still reach the model another way (a user message after the results, which this check does not follow), and not every model takes media in results"
)

// whyOf is the usual reason for the level of a check only some dialects
// have (dialect.JudgeCheck.Why overrides it).
var whyOf = map[string]string{
	checkToolChoiceSent: whyChoiceLost,
	checkStrictSent:     whyStrictLost,
	checkCarriesMedia:   whyMediaElsewhere,
	checkLimitSent:      whyLimitLost,
	checkThinkingSent:   whyThinkingLost,
	checkItemRefsSent:   whyItemRefsLost,
	checkStructuredAns:  whyOutputLost,
}

func dialectRules(d conv.Dialect) []rules.Rule {
	r := func(check string, level rules.Level, feature, summary, why, source string) rules.Rule {
		return rules.Rule{ID: ruleID(d, check), Dialect: d, Level: level, Family: checks.Family[check], Feature: feature, Summary: summary, Why: why, Source: source}
	}
	jd := judgeOf(d)
	src := jd.Guide
	out := []rules.Rule{
		r(checkFinalText, rules.MUST, "core", "The driver completes the tool loop and reports the model's final text unchanged (streamed text fully assembled)", whyFinalText, src),
		r(checkCarriesData, rules.MUST, "core", "Every result sent back carries the tool's output (its text, or its structured content; a tool error's text, or the substance of it, in any wrapping)", whyCarriesData, src),
		r(checkMatchesCall, rules.MUST, "core", jd.MatchSummary, whyMatchesCall, src),
		r(checkResultsSent, rules.MUST, "core", "Every call the model issued comes back in the next request — in the replayed model turn, with its result (a conversation never goes back ending in unanswered calls, nor with a call left out)", whyResultsSent, src),
		r(checkOneResult, rules.MUST, "core", "Each call is answered by exactly one result: no second result for the same call", whyOneResult, src),
		r(checkErrorFlagged, jd.ErrorLevel, "errors", jd.ErrorSummary, jd.ErrorWhy, jd.ErrorSource),
		r(checkBadCallAnswered, rules.MUST, "errors", "A call to an undeclared tool or with unparseable arguments is answered with an error result ("+jd.ErrorForm+", in the driver's own words); the driver does not crash or drop it", whyBadCall, src),
		r(checkToolChoiceReset, rules.MUST, "tool-choice", "Once the forced call is answered, the next request no longer forces a call ("+jd.ForcedChoice+" goes back to auto, or is left out): a forced choice makes every answer a call, so a loop that keeps it never ends in text", whyChoiceReset, toolChoiceReset),
	}
	if jd.TruncatedSource != "" {
		out = append(out, r(checkTruncatedCall, rules.MUST, "truncation", "A turn the token limit cut ("+jd.TruncatedSignal+") is not continued: the cut call is neither run nor answered; the driver asks again with a larger limit (or reports the turn incomplete)", whyTruncated, jd.TruncatedSource))
	}
	for _, c := range jd.ExtraChecks {
		why := c.Why
		if why == "" {
			why = whyOf[c.Check]
		}
		out = append(out, r(c.Check, c.Level, c.Feature, c.Summary, why, c.Source))
	}
	return out
}

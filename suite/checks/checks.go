// Package checks names the suite's scenario checks: the rules judged from
// a whole exchange rather than from one request. A check runs on every
// provider dialect (or some of them) under the rule ID "<dialect>.<name>".
// The suite declares them; the reference driver's break variants name
// the ones each must fail. A leaf package, so both can use the names.
package checks

import "github.com/toolwire/toolwire/mockprovider/conv"

// Check names.
const (
	FinalText        = "final-text"
	CarriesData      = "result-carries-data"
	MatchesCall      = "result-matches-call"
	ErrorFlagged     = "error-flagged"
	BadCallAnswered  = "bad-call-error-result"
	CarriesMedia     = "result-carries-media"
	StructuredObject = "structured-response-object"
	ResultsSent      = "results-sent"
	OneResultPerCall = "one-result-per-call"
	ToolChoiceSent   = "tool-choice-sent"
	ToolChoiceReset  = "tool-choice-reset"
	TruncatedCallRun = "truncated-call-not-run"
	StrictSent       = "strict-sent"
	// What the task asked the request to carry: the output token limit,
	// the thinking budget, continuation by item reference, the output
	// schema (and the final text keeps to it).
	MaxOutputTokensSent = "max-output-tokens-sent"
	ThinkingSent        = "thinking-sent"
	ItemReferencesSent  = "item-references-sent"
	StructuredAnswer    = "structured-answer"
	FormatNative        = "format-result-native"
	NormalizeCalls      = "normalize-calls"
	NormalizeArguments  = "normalize-arguments"
)

// ID is the rule ID of a check on one dialect.
func ID(d conv.Dialect, name string) string { return string(d) + "." + name }

// Every is the rule-ID pattern (path.Match) of a check on every dialect.
func Every(name string) string { return "*." + name }

// Family is the rule family of each check (the label "family:<name>"),
// declared with the check rather than in a list elsewhere.
var Family = map[string]string{
	FinalText: "loop", BadCallAnswered: "loop", ToolChoiceReset: "loop", TruncatedCallRun: "loop",
	MatchesCall: "pairing", ResultsSent: "pairing", OneResultPerCall: "pairing",
	CarriesData: "results", CarriesMedia: "results", ErrorFlagged: "results", StructuredObject: "results", FormatNative: "results",
	ToolChoiceSent: "shapes", StrictSent: "shapes", NormalizeCalls: "shapes", NormalizeArguments: "shapes",
	MaxOutputTokensSent: "shapes", ThinkingSent: "shapes", ItemReferencesSent: "continuity", StructuredAnswer: "shapes",
}

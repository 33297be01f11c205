package openaichat

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// Sources the judge cites for Chat Completions alone.
const (
	truncatedSource = "https://platform.openai.com/docs/api-reference/chat/object (finish_reason \"length\": the maximum number of tokens specified in the request was reached)"
	limitSource     = "https://platform.openai.com/docs/api-reference/chat/create (max_completion_tokens: an upper bound for the number of tokens that can be generated, max_tokens deprecated)"
)

var judge = dialect.Judge{
	DefaultModel:    "gpt-4.1",
	DriverEnv:       openaiwire.DriverEnv,
	Guide:           openaiwire.Guide,
	ForcedChoice:    openaiwire.ForcedChoice,
	ChoiceShape:     `{"type": "function", "function": {"name": …}}`,
	TruncatedSignal: `finish_reason "length"`,
	TruncatedSource: truncatedSource,
	ErrorLevel:      rules.MUST, ErrorSummary: openaiwire.ErrorSummary, ErrorWhy: openaiwire.ErrorWhy, ErrorSource: openaiwire.Guide, ErrorForm: openaiwire.ErrorForm, ErrorFix: openaiwire.ErrorFix,
	NoErrorFlag:    true,
	RawArguments:   true,
	LimitMember:    "max_completion_tokens (or the older max_tokens)",
	Strict:         func(body []byte, name string) (bool, bool) { return dialect.StrictIn(body, "function", name) },
	MatchSummary:   openaiwire.ByCallIDSummary,
	MediaInResults: dialect.Never,
	ResultPath:     resultPath,
	ExtraChecks: []dialect.JudgeCheck{
		{Check: checks.ToolChoiceSent, Level: rules.MUST, Feature: "tool-choice", Summary: `The request carries the tool_choice the task asks for ({"type": "function", "function": {"name": …}} for a forced function)`, Source: openaiwire.ToolChoiceDoc},
		{Check: checks.StrictSent, Level: rules.MUST, Feature: "strict", Summary: "A function the task declares strict is sent with function.strict: true", Source: openaiwire.StrictDoc},
		{Check: checks.MaxOutputTokensSent, Level: rules.MUST, Feature: "truncation", Summary: "The first request carries the task's max_output_tokens as max_completion_tokens (or the older max_tokens)", Source: limitSource},
		{Check: checks.StructuredAnswer, Level: rules.MUST, Feature: "structured-output", Summary: `The request that gets the final answer carries the task's output schema as response_format {"type": "json_schema", "json_schema": {"name", "schema", "strict": true}}, and the driver reports that answer: JSON valid against the schema`, Source: "https://platform.openai.com/docs/guides/structured-outputs (response_format: {type: \"json_schema\", json_schema: {\"strict\": true, \"schema\": …}})"},
	},
}

// Judge is what the conformance suite's judge knows of Chat Completions.
func (d *Dialect) Judge() *dialect.Judge { return &judge }

package openairesp

import (
	"cmp"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// Sources the judge cites for the Responses API alone.
const (
	outputSource        = "https://github.com/openai/openai-go/blob/v3.96.0/responses/response.go (ResponseInputItemFunctionCallOutputParam.Output: a string or a list of input_text/input_image/input_file items)"
	truncatedSource     = "https://platform.openai.com/docs/guides/reasoning#allocating-space-for-reasoning (status \"incomplete\", incomplete_details.reason \"max_output_tokens\")"
	limitSource         = "https://platform.openai.com/docs/api-reference/responses/create (max_output_tokens: an upper bound for the number of tokens that can be generated, reasoning tokens included)"
	itemReferenceSource = "https://platform.openai.com/docs/api-reference/responses/create (input item_reference: an internal identifier for an item to reference)"
)

var judge = dialect.Judge{
	DefaultModel:    "gpt-5",
	DriverEnv:       openaiwire.DriverEnv,
	Guide:           openaiwire.Guide,
	ForcedChoice:    openaiwire.ForcedChoice,
	ChoiceShape:     `{"type": "function", "name": …}`,
	TruncatedSignal: `status "incomplete", reason "max_output_tokens"`,
	TruncatedSource: truncatedSource,
	ErrorLevel:      rules.MUST, ErrorSummary: openaiwire.ErrorSummary, ErrorWhy: openaiwire.ErrorWhy, ErrorSource: openaiwire.Guide, ErrorForm: openaiwire.ErrorForm, ErrorFix: openaiwire.ErrorFix,
	NoErrorFlag:    true,
	RawArguments:   true,
	LimitMember:    "max_output_tokens",
	Strict:         func(body []byte, name string) (bool, bool) { return dialect.StrictIn(body, "", name) },
	ItemReferences: itemReferencesMissing,
	MatchSummary:   openaiwire.ByCallIDSummary,
	MediaInResults: dialect.Always,
	ResultPath:     resultPath,
	ExtraChecks: []dialect.JudgeCheck{
		{Check: checks.ToolChoiceSent, Level: rules.MUST, Feature: "tool-choice", Summary: `The request carries the tool_choice the task asks for ({"type": "function", "name": …} for a forced function)`, Source: openaiwire.ToolChoiceDoc},
		{Check: checks.StrictSent, Level: rules.MUST, Feature: "strict", Summary: "A function the task declares strict is sent with strict: true", Source: openaiwire.StrictDoc},
		{Check: checks.CarriesMedia, Level: rules.SHOULD, Feature: "images", Summary: "Images and files returned by a tool travel as input_image/input_file items of function_call_output.output", Source: outputSource},
		{Check: checks.MaxOutputTokensSent, Level: rules.MUST, Feature: "truncation", Summary: "The first request carries the task's max_output_tokens as max_output_tokens", Source: limitSource},
		{Check: checks.ItemReferencesSent, Level: rules.MUST, Feature: "item-references", Summary: `When the task asks for item_references, every continuation refers to the model's earlier output items (reasoning, assistant message; a function_call may be either) as {"type": "item_reference", "id": …} instead of replaying them in full`, Source: itemReferenceSource},
		{Check: checks.StructuredAnswer, Level: rules.MUST, Feature: "structured-output", Summary: `The request that gets the final answer carries the task's output schema as text.format {"type": "json_schema", "name", "schema", "strict": true}, and the driver reports that answer: JSON valid against the schema`, Source: "https://platform.openai.com/docs/guides/structured-outputs (Responses: text: {format: {type: \"json_schema\", strict: true, schema: …}})"},
	},
}

// Judge is what the conformance suite's judge knows of the Responses API.
func (d *Dialect) Judge() *dialect.Judge { return &judge }

// itemReferencesMissing says how a continuation fails to refer to the
// model's earlier output items by item_reference ("" = it does): an
// output item replayed in full, or no reference at all. A client-executed
// function_call may still be replayed in full: referenced, its fc_ id
// cannot always be matched to the function_call_output's call_id, and
// libraries replay it on purpose (vercel/ai#11114).
func itemReferencesMissing(body []byte) string {
	refs, full := 0, ""
	for k, it := range gjson.GetBytes(body, "input").Array() {
		typ := it.Get("type").Str
		switch {
		case typ == "item_reference":
			refs++
		case full == "" && (typ == "reasoning" || it.Get("role").Str == "assistant"):
			full = fmt.Sprintf("input.%d (%s)", k, cmp.Or(typ, "message"))
		}
	}
	switch {
	case full != "":
		return "the output item " + full + " replayed in full"
	case refs == 0 && gjson.GetBytes(body, "previous_response_id").Exists():
		return "a continuation by previous_response_id, without item_reference"
	case refs == 0:
		return "no item_reference"
	}
	return ""
}

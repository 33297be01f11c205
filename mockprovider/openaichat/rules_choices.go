package openaichat

import (
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// maxChoices is the most choices n may ask for.
const maxChoices = 128

var RuleChoicesRange = set.Add(rules.Rule{
	ID: "openai-chat.n-range", Level: rules.MUST, Family: familyShapes,
	Summary: "n, the number of choices to generate, is at most 128.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-n", Quote: "How many chat completion choices to generate for each input message."},
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/streamaccumulator.go", Quote: "maxStreamAccumulatorChoiceIndex limits zero-based protocol positions to the maximum 128 choices supported by the API"},
		{URL: "https://github.com/thisisartium/continuous-alignment-testing/issues/25", Quote: `verbatim 400: "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 130 instead.", type invalid_request_error, param n, code integer_above_max_value`},
	},
	Cases: []rules.Case{
		{Name: "n above 128",
			Bad: body(hi, obj{"n": 130}), Good: body(hi, obj{"n": 128}),
			WantStatus: 400, WantMessage: "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 130 instead."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	if r.N <= maxChoices {
		return nil
	}
	return []rules.Violation{badRequest(requestLevel, "n", "n", "integer_above_max_value",
		fmt.Sprintf("Invalid 'n': integer above maximum value. Expected a value <= %d, but got %d instead.", maxChoices, r.N))}
})

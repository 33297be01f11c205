package openaiwire

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// SamplingRangesRefs are where the bounds and their answers come from:
// the API reference gives the ranges, and the answers below 0 and above 2
// for temperature are quoted from a client's tests against the real API;
// the codes and the top_p answers follow the same form.
var SamplingRangesRefs = []rules.Ref{
	{URL: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-temperature", Quote: "temperature between 0 and 2, top_p between 0 and 1"},
	{URL: "https://github.com/dsw7/GPTifier/blob/main/tests/test_run.py", Quote: `in its history, test_invalid_temp asserted verbatim against the API, before the client checked the range itself: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -2.5 instead." and "… decimal above maximum value. Expected a value <= 2, but got 2.5 instead."`},
	{Quote: "codes decimal_below_min_value / decimal_above_max_value and the top_p texts in the same form", Inferred: true},
}

// decimalBound is one bounded decimal member.
type decimalBound struct {
	name     string
	min, max float64
}

var samplingBounds = [...]decimalBound{{"temperature", 0, 2}, {"top_p", 0, 1}}

// CheckSamplingRanges answers temperature and top_p outside the API's
// ranges (nil members were not sent), each at the given order.
func CheckSamplingRanges(temperature, topP *float64, order int) []rules.Violation {
	var out []rules.Violation
	for i, v := range [...]*float64{temperature, topP} {
		if v == nil {
			continue
		}
		b := samplingBounds[i]
		got := strconv.FormatFloat(*v, 'f', -1, 64)
		switch {
		case *v < b.min:
			out = append(out, rangeViolation(b.name, order, "decimal_below_min_value",
				fmt.Sprintf("Invalid '%s': decimal below minimum value. Expected a value >= %s, but got %s instead.", b.name, strconv.FormatFloat(b.min, 'f', -1, 64), got)))
		case *v > b.max:
			out = append(out, rangeViolation(b.name, order, "decimal_above_max_value",
				fmt.Sprintf("Invalid '%s': decimal above maximum value. Expected a value <= %s, but got %s instead.", b.name, strconv.FormatFloat(b.max, 'f', -1, 64), got)))
		}
	}
	return out
}

func rangeViolation(param string, order int, code, msg string) rules.Violation {
	return rules.Violation{Path: param, Order: order, Status: http.StatusBadRequest, ErrType: InvalidRequest, Param: param, Code: code, Message: msg}
}

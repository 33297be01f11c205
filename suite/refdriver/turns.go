package refdriver

import (
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Mistakes in how the loop treats the model's turns: a forced choice kept
// after its call was answered, and a turn the token limit cut run as if
// it were complete.
const (
	KeepForcing          Break = "keep-forcing"
	ExecuteTruncatedCall Break = "execute-truncated-call"
)

func init() {
	all = append(all,
		BreakInfo{KeepForcing, nil, "send the task's forced tool_choice on every request, after its call was answered too"},
		BreakInfo{ExecuteTruncatedCall, []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic}, "run the calls of a turn the token limit cut, as if the turn were complete"},
	)
}

// forcing reports whether a request sends the task's tool_choice: until
// the first results go back. The APIs answer a forced choice with a call
// every time, so a loop that keeps it after the forced call was answered
// never ends in text.
func (d *Driver) forcing(answered bool) bool { return !answered || d.Break == KeepForcing }

// maxOutputLimit bounds the retries of a cut turn: the limit doubles on
// each, up to this.
const maxOutputLimit = 8192

// retryCut decides what to do with a turn the token limit cut inside a
// call (its last call's arguments are a fragment; a text the limit cut
// is an answer, as short as the caller asked): ask again
// with twice the limit (retry), or report the turn incomplete once the
// limit reaches maxOutputLimit. The execute-truncated-call break carries
// on with the turn as received.
func (d *Driver) retryCut(cut bool, limit *int) (retry bool, err error) {
	if !cut || d.Break == ExecuteTruncatedCall {
		return false, nil
	}
	if *limit <= 0 || *limit >= maxOutputLimit {
		return false, fmt.Errorf("the model's turn was cut by the output token limit (%d)", *limit)
	}
	*limit *= 2
	return true, nil
}

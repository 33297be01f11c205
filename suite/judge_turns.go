package suite

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Checks on how the loop treats the model's turns as a whole: a forced
// choice is given up once answered, and a turn the token limit cut is not
// continued as if it were complete.

// forcesCall reports whether a tool choice makes every answer a call.
func forcesCall(tc conv.ToolChoice) bool {
	return tc.Mode == conv.ToolChoiceRequired || tc.Mode == conv.ToolChoiceFunction
}

// checkToolChoiceReset: when the task forces a call, no request that
// answers calls (its conversation ends in results) forces one again. The
// APIs make every answer to a forced choice a call, so a loop that keeps
// the choice only ends at its own turn limit; the mock's model does the
// same once the script has run out.
func (j *judge) checkToolChoiceReset() {
	want, ok := wantedToolChoice(j.t.ToolChoice)
	if !ok || !forcesCall(want) {
		return
	}
	for i := range j.entries {
		e := &j.entries[i]
		c := e.Conversation
		if c == nil || !c.EndsInResults() || !forcesCall(c.ToolChoice) {
			continue
		}
		j.add(checkToolChoiceReset, finding{level: rules.MUST,
			message:  fmt.Sprintf("the request answering the model's turn %d still forces %s, so the model must call a tool again", assistantTurns(c), describeChoice(c.ToolChoice)),
			expected: "tool_choice auto (or absent) once the forced call is answered", got: describeChoice(c.ToolChoice), excerpt: clip(string(e.Request), 1500),
			fix: "send the forced tool_choice until its call is answered, then drop it (or set it to auto) for the requests that follow"})
		return
	}
}

// checkTruncatedCalls: when the token limit cut a turn inside a call, the
// driver's next request does not carry that turn on (its calls answered)
// but asks again, with a larger limit. The cut is recomputed the way the
// mock decided it, from the accepted request. An API that drops a cut
// call from its answer (Gemini; no TruncatedSource) leaves nothing to run
// (final-text catches the loop that stops at it). The cut turns found are returned, so the
// results judged for them (a cut call's arguments are a fragment) do not
// add noise to the story.
func (j *judge) checkTruncatedCalls() map[int]bool {
	cut := map[int]bool{}
	if judgeOf(j.c.Dialect).TruncatedSource == "" {
		return cut
	}
	for k := range j.entries {
		e := &j.entries[k]
		if e.Status != 200 || e.Fault != "" || e.Conversation == nil {
			continue
		}
		reply := j.replyTo(k)
		if reply == nil || reply.Stop != model.StopTokens || reply.CutCall < 0 {
			continue
		}
		next := j.nextRequest(k)
		if next == nil {
			continue
		}
		turn := assistantTurns(e.Conversation)
		carried := assistantTurn(next.Conversation, turn)
		if carried == nil || len(carried.Calls()) == 0 {
			continue // asked again, or the turn went back without the call
		}
		cut[turn] = true
		calls := reply.Calls()
		name := calls[min(reply.CutCall, len(calls)-1)].Name
		j.add(checkTruncatedCall, finding{level: rules.MUST,
			message:  fmt.Sprintf("the token limit cut the model's turn %d inside its call to %s, and the driver's next request carries that call on (%s) instead of asking again", turn+1, name, strings.Join(callNames(carried.Calls()), ", ")),
			expected: "the same request again with a larger output token limit", got: "the cut turn replayed with its calls answered", excerpt: clip(string(next.Request), 1500),
			fix: "check why the turn ended (" + judgeOf(j.c.Dialect).TruncatedSignal + "): never run a call from a cut turn; ask again with a larger limit, or report the turn incomplete"})
	}
	return cut
}

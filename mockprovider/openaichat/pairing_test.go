package openaichat

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// referenceToolCallsAnswered is checkToolCallsAnswered as it was before
// small batches were searched in place: two sets per assistant message.
func referenceToolCallsAnswered(r *Request, env *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, m := range r.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for j := i + 1; j < len(r.Messages) && r.Messages[j].Role == "tool"; j++ {
			answered[r.Messages[j].ToolCallID] = true
		}
		var unanswered []string
		seen := map[string]bool{}
		for _, tc := range m.ToolCalls {
			if !tc.HasID || answered[tc.ID] || seen[tc.ID] {
				continue
			}
			seen[tc.ID] = true
			unanswered = append(unanswered, tc.ID)
		}
		if len(unanswered) == 0 {
			continue
		}
		param := fmt.Sprintf("messages.[%d].role", i)
		if env != nil && env.Options.OpenAIToolParam == "messages" {
			param = "messages"
		}
		out = append(out, badRequest(atMeaning(i), fmt.Sprintf("messages[%d].tool_calls", i), param, "",
			toolCallsAnsweredPrefix+strings.Join(unanswered, ", ")))
	}
	return out
}

// referenceContentRequired is the set contentRequired replaced.
var referenceContentRequired = map[string]bool{"system": true, "developer": true, "user": true, "tool": true}

// TestPairingMatchesReference: the pairing check, searching small batches
// in place, reports what the set-based check did (same violations, paths,
// messages, order) over every rule case and over random conversations
// with small and large batches, repeated, missing, unknown and reordered
// ids; contentRequired agrees with the set it replaced on every role.
func TestPairingMatchesReference(t *testing.T) {
	envs := []*rules.Env{nil, {}, {Options: rules.Options{OpenAIToolParam: "messages"}}}
	compare := func(name string, r *Request) {
		t.Helper()
		for _, env := range envs {
			if got, want := checkToolCallsAnswered(r, env), referenceToolCallsAnswered(r, env); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %+v, want %+v", name, got, want)
			}
		}
	}
	decoded := 0
	for _, c := range RuleCases() {
		for _, b := range [][]byte{c.Bad, c.Good} {
			r, apiErr := decodeRequest(b, false)
			if apiErr != nil {
				continue
			}
			decoded++
			compare(c.Rule+"/"+c.Name, r)
		}
	}
	if decoded == 0 {
		t.Fatal("no rule case decoded")
	}

	rng := rand.New(rand.NewPCG(21, 400))
	id := func(pool int) string { return fmt.Sprint("call_", rng.IntN(pool)) }
	violations := 0
	for n := range 3000 {
		// Batches up to 40 calls and answers cross the in-place limit;
		// a small id pool makes repeats and matches likely.
		pool := 1 + rng.IntN(40)
		var msgs []*Message
		for range rng.IntN(12) {
			switch rng.IntN(4) {
			case 0:
				msgs = append(msgs, &Message{Role: "user", HasRole: true})
			case 1:
				calls := make([]ToolCall, rng.IntN(40))
				if rng.IntN(2) == 0 {
					calls = calls[:min(len(calls), rng.IntN(4))]
				}
				for j := range calls {
					calls[j] = ToolCall{ID: id(pool), HasID: rng.IntN(10) > 0}
				}
				msgs = append(msgs, &Message{Role: "assistant", HasRole: true, ToolCalls: calls})
				// Answers: all of the calls shuffled, some, or extras.
				answers := make([]string, 0, len(calls))
				for _, tc := range calls {
					if rng.IntN(6) > 0 {
						answers = append(answers, tc.ID)
					}
				}
				for range rng.IntN(3) {
					answers = append(answers, id(pool))
				}
				rng.Shuffle(len(answers), func(a, b int) { answers[a], answers[b] = answers[b], answers[a] })
				for _, a := range answers {
					msgs = append(msgs, &Message{Role: "tool", HasRole: true, ToolCallID: a, HasToolCallID: a != ""})
				}
			case 2:
				msgs = append(msgs, &Message{Role: "tool", HasRole: true, ToolCallID: id(pool), HasToolCallID: true})
			default:
				msgs = append(msgs, &Message{Role: "assistant", HasRole: true})
			}
		}
		for i, m := range msgs {
			m.Index = i
		}
		r := &Request{Messages: msgs, HasMessages: true}
		violations += len(referenceToolCallsAnswered(r, nil))
		compare(fmt.Sprint("random ", n), r)
	}
	if violations == 0 {
		t.Fatal("the random conversations broke nothing")
	}

	for _, role := range []string{"", "system", "developer", "user", "assistant", "tool", "function", "User"} {
		if got, want := contentRequired(role), referenceContentRequired[role]; got != want {
			t.Errorf("contentRequired(%q) = %v, want %v", role, got, want)
		}
	}
}

package openaichat

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestUnansweredCalls: batches searched in place and batches read with
// sets list the same ids, each once, in call order.
func TestUnansweredCalls(t *testing.T) {
	withSets := func(calls []ToolCall, run []*Message) []string {
		answered, seen := map[string]bool{}, map[string]bool{}
		for _, m := range run {
			answered[m.ToolCallID] = true
		}
		var out []string
		for _, tc := range calls {
			if tc.HasID && !answered[tc.ID] && !seen[tc.ID] {
				seen[tc.ID] = true
				out = append(out, tc.ID)
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 2000 {
		calls := make([]ToolCall, rng.IntN(40))
		for j := range calls {
			calls[j] = ToolCall{ID: fmt.Sprint("call_", rng.IntN(30)), HasID: rng.IntN(8) > 0}
		}
		run := make([]*Message, rng.IntN(40))
		for j := range run {
			run[j] = &Message{Role: "tool", ToolCallID: fmt.Sprint("call_", rng.IntN(30))}
		}
		if got, want := unansweredCalls(calls, run), withSets(calls, run); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: %d calls, %d answers: got %v, want %v", i, len(calls), len(run), got, want)
		}
	}
}

package openairesp

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// TestPairingLooksAroundExactly: the pairing rules, which look for a
// call's output or an output's call among the items nearby before they
// map every call id, find what mapping every call id finds, on random
// conversations of calls, outputs, tool searches and messages.
func TestPairingLooksAroundExactly(t *testing.T) {
	checkOf := func(id string) rules.CheckFunc {
		for _, r := range set.Rules() {
			if r.ID == id {
				return r.Check
			}
		}
		t.Fatalf("no rule %s", id)
		return nil
	}
	outputRequired, outputNeedsCall := checkOf(RuleToolOutput), checkOf(RuleToolCall)
	rng := rand.New(rand.NewPCG(21, 400))
	ids := []*string{nil, ptr("a"), ptr("b"), ptr("c")}
	fastPaths := 0
	for n := range 5000 {
		req := &Request{}
		for i := range rng.IntN(3 * pairLookAround) {
			it := &Item{Index: i, CallID: ids[rng.IntN(len(ids))]}
			switch rng.IntN(6) {
			case 0, 1:
				it.Type = "function_call"
			case 2, 3:
				it.Type = "function_call_output"
			case 4:
				it.Type, it.Execution = "tool_search_call", []string{"client", "server"}[rng.IntN(2)]
			default:
				it.Type, it.Role = "message", "user"
			}
			req.Items = append(req.Items, it)
		}
		if everyCallAnsweredNearby(req.Items) || everyOutputAfterItsCall(req.Items) {
			fastPaths++
		}
		if got, want := outputRequired(req, nil), mappedOutputRequired(req); !reflect.DeepEqual(got, want) {
			t.Fatalf("conversation %d %s: tool-output-required %v, mapping every call id %v", n, itemsText(req.Items), got, want)
		}
		if got, want := outputNeedsCall(req, nil), mappedOutputNeedsCall(req); !reflect.DeepEqual(got, want) {
			t.Fatalf("conversation %d %s: output-needs-call %v, mapping every call id %v", n, itemsText(req.Items), got, want)
		}
	}
	if fastPaths < 500 {
		t.Fatalf("only %d conversations paired nearby: the test hardly tries the looking around", fastPaths)
	}
}

func ptr(s string) *string { return &s }

func itemsText(items []*Item) string {
	s := ""
	for _, it := range items {
		s += fmt.Sprintf("%s/%s/%s ", it.Type, str(it.CallID), it.Execution)
	}
	return s
}

// mappedOutputRequired is tool-output-required mapping every output.
func mappedOutputRequired(r *Request) []rules.Violation {
	items := r.Effective()
	answered := map[string]bool{}
	for _, it := range items {
		if it.Kind() == "function_call_output" && it.CallID != nil {
			answered[*it.CallID] = true
		}
	}
	var out []rules.Violation
	for i, it := range items {
		if it.Kind() == "function_call" && it.CallID != nil && !answered[*it.CallID] {
			out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("No tool output found for function call %s.", *it.CallID)))
		}
	}
	return out
}

// mappedOutputNeedsCall is output-needs-call counting every call's open
// outputs.
func mappedOutputNeedsCall(r *Request) []rules.Violation {
	open := map[string]int{}
	var out []rules.Violation
	for i, it := range r.Effective() {
		switch {
		case opensCall(it) && it.CallID != nil:
			open[*it.CallID]++
		case it.Kind() == "function_call_output" && it.CallID != nil:
			if open[*it.CallID] > 0 {
				open[*it.CallID]--
				continue
			}
			out = append(out, inputBreach(atEffective(i), itemPath(it), fmt.Sprintf("No tool call found for function call output with call_id %s.", *it.CallID)))
		}
	}
	return out
}

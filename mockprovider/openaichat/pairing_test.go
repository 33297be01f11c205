package openaichat

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// referenceToolCallsAnswered is checkToolCallsAnswered as it was before
// it read only the messages after the settled ones (checkFrom) and shared
// unansweredCalls with settle.
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

// TestPairingMatchesReference: the pairing check reports what it did
// before (same violations, paths, messages, order) over every rule case
// and over random conversations with small and large batches, repeated,
// missing, unknown and reordered ids.
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

}

// TestSettledMessagesHideNothing: the checks that start after the settled
// messages (checkFrom) report exactly what they report reading every
// message (a request without turns), over every rule case and random
// conversations (batches over the in-place limit, repeated, missing,
// unknown and reordered ids, missing fields, object arguments, images,
// unknown roles), decoded whole and resumed after a shorter one; and a
// clean long conversation does settle.
func TestSettledMessagesHideNothing(t *testing.T) {
	envs := []*rules.Env{{Options: rules.DefaultOptions()}, {Options: rules.Options{OpenAIToolParam: "messages"}}}
	compare := func(name string, r *Request) {
		t.Helper()
		bare := *r
		bare.turns = nil
		if bare.checkFrom() != 0 {
			t.Fatalf("%s: a request without turns starts its checks at %d", name, bare.checkFrom())
		}
		for _, env := range envs {
			if got, want := rules.Run(set.Rules(), r, env), rules.Run(set.Rules(), &bare, env); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s (checks from %d): got %+v, want %+v", name, r.checkFrom(), got, want)
			}
		}
	}
	for _, c := range RuleCases() {
		for _, b := range [][]byte{c.Bad, c.Good} {
			if r, apiErr := decodeRequest(b, false); apiErr == nil {
				compare(c.Rule+"/"+c.Name, r)
			}
		}
	}

	rng := rand.New(rand.NewPCG(21, 401))
	pool := 0
	id := func() string { return fmt.Sprint("call_", rng.IntN(pool)) }
	flip := func(odds int) bool { return rng.IntN(odds) == 0 }
	message := func() []any {
		switch rng.IntN(6) {
		case 0:
			if flip(10) {
				return arr{obj{"role": "user", "content": arr{obj{"type": "image_url", "image_url": obj{"url": "data:image/png;base64,aGVsbG8="}}}}}
			}
			if flip(10) {
				return arr{obj{"role": "user"}}
			}
			return arr{userMsg("go on")}
		case 1:
			n := 1 + rng.IntN(3)
			if flip(4) {
				n = 15 + rng.IntN(6) // around the in-place limit
			}
			var calls []obj
			var ids []string
			for range n {
				c := call(id(), "Paris")
				switch {
				case flip(30):
					delete(c, "id")
				case flip(30):
					c["function"] = obj{"name": "get_weather", "arguments": obj{"city": "Paris"}}
				case flip(30):
					delete(c, "type")
				case flip(30):
					c["id"] = "" // answered by a tool message without an id?
				}
				if s, ok := c["id"].(string); ok {
					ids = append(ids, s)
				}
				calls = append(calls, c)
			}
			out := arr{callMsg(calls...)}
			if flip(20) {
				out = arr{obj{"role": "assistant", "content": "none", "tool_calls": arr{}}}
			}
			rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
			for _, x := range ids {
				switch {
				case flip(12): // unanswered
				case flip(20):
					out = append(out, obj{"role": "tool", "content": "22"})
				case flip(15):
					out = append(out, toolMsg(id(), "22"))
				default:
					out = append(out, toolMsg(x, "22"))
				}
			}
			return out
		case 2:
			return arr{toolMsg(id(), "stray")}
		case 3:
			if flip(8) {
				return arr{obj{"role": "function", "name": "f", "content": "x"}}
			}
			return arr{obj{"role": "system", "content": "Be brief."}}
		default:
			return arr{obj{"role": "assistant", "content": "ok"}}
		}
	}
	settledSome := false
	for n := range 1500 {
		pool = 1 + rng.IntN(30)
		msgs := arr{userMsg("hi")}
		for range rng.IntN(16) {
			msgs = append(msgs, message()...)
		}
		whole, apiErr := decodeRequest(body(msgs), false)
		if apiErr != nil {
			continue
		}
		compare(fmt.Sprint("random ", n), whole)
		settledSome = settledSome || whole.checkFrom() > 0

		s := session.NewStore(session.DefaultLimits()).Get("k")
		_, _ = decodeInSession(s, body(msgs[:rng.IntN(len(msgs)+1)]), false)
		resumed, apiErr := decodeInSession(s, body(msgs), false)
		if apiErr != nil {
			t.Fatalf("random %d: resumed decoding failed: %v", n, apiErr)
		}
		compare(fmt.Sprint("random resumed ", n), resumed)
	}
	if !settledSome {
		t.Fatal("no random conversation settled a message")
	}

	// A clean agent loop settles all but its open batch.
	msgs := arr{obj{"role": "system", "content": "Be brief."}, userMsg("Weather?")}
	for i := range 50 {
		msgs = append(msgs, callMsg(call(fmt.Sprint("call_", i), "Paris")), toolMsg(fmt.Sprint("call_", i), "22"))
	}
	r, apiErr := decodeRequest(body(msgs), false)
	if apiErr != nil {
		t.Fatal(apiErr)
	}
	if got, want := r.checkFrom(), len(msgs)-2; got != want {
		t.Fatalf("a clean loop of %d messages starts its checks at %d, want %d (its last batch)", len(msgs), got, want)
	}
}

package gemini

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// TestPairingMatchesReference: the one walk that gives the four pairing
// rules their violations reports what each rule reported walking the runs
// itself (the reference checks below), for every rule case and random
// conversations, decoded whole, resumed after a shorter prefix, and built
// by hand.
func TestPairingMatchesReference(t *testing.T) {
	var bodies [][]byte
	for _, c := range RuleCases() {
		bodies = append(bodies, c.Bad, c.Good)
	}
	rng := rand.New(rand.NewPCG(21, 400))
	for range 400 {
		bodies = append(bodies, randomPairingBody(rng))
	}
	seen := map[string]bool{}
	for _, b := range bodies {
		req, aerr := decodeBody(b, false)
		if aerr != nil {
			continue
		}
		if req.paired == nil && len(req.Contents) > 0 {
			t.Fatalf("no pairing verdicts made when decoding %s", b)
		}
		want := referencePairing(req)
		for name, n := range map[string]int{"count": len(want.count), "order": len(want.order), "order-ids": len(want.orderByID), "id": len(want.id)} {
			seen[name] = seen[name] || n > 0
		}
		comparePairing(t, "whole", b, req.pairing(), want)
		byHand := &Request{Contents: req.Contents}
		comparePairing(t, "by hand", b, byHand.pairing(), want)

		var contents []json.RawMessage
		if err := json.Unmarshal(b, &struct {
			Contents *[]json.RawMessage `json:"contents"`
		}{&contents}); err != nil || len(contents) == 0 {
			continue
		}
		s := session.NewStore(session.DefaultLimits()).Get("k")
		prefix := rng.IntN(len(contents))
		prev := resumetest.Padded(wrapContents(contents[:prefix]))
		if _, aerr := decodeInSession(s, prev, false); aerr != nil {
			t.Fatalf("prefix: %v", aerr)
		}
		resumed, aerr := decodeInSession(s, resumetest.Padded(b), false)
		if aerr != nil {
			t.Fatalf("resumed: %v", aerr)
		}
		comparePairing(t, fmt.Sprintf("resumed after %d", prefix), b, resumed.pairing(), want)
	}
	for _, name := range []string{"count", "order", "order-ids", "id"} {
		if !seen[name] {
			t.Errorf("no body breaks the %s rule", name)
		}
	}
}

func comparePairing(t *testing.T, how string, b []byte, got, want *pairingVerdicts) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s:\ngot  %+v\nwant %+v", how, b, *got, *want)
	}
}

func wrapContents(contents []json.RawMessage) []byte {
	parts := make([]string, len(contents))
	for i, c := range contents {
		parts[i] = string(c)
	}
	return body(weatherFn, parts...)
}

// randomPairingBody is a conversation of call turns (batches with and
// without ids, steps of the model in consecutive contents, calls mixed
// with text) answered in order, out of order, by id, with ids changed,
// too few or too many responses, spread over several user contents.
func randomPairingBody(rng *rand.Rand) []byte {
	names := []string{"get_weather", "get_time", "get_news"}
	var contents []string
	contents = append(contents, userAsk)
	id := 0
	for range 1 + rng.IntN(5) {
		type call struct{ name, id string }
		var calls []call
		for range 1 + rng.IntN(2) { // steps of the model
			var parts []string
			if rng.IntN(4) == 0 {
				parts = append(parts, `{"text":"Let me check."}`)
			}
			withIDs := rng.IntN(2) == 0
			for range 1 + rng.IntN(3) {
				c := call{name: names[rng.IntN(len(names))]}
				if withIDs || rng.IntN(5) == 0 {
					id++
					c.id = fmt.Sprintf("c%d", id)
				}
				calls = append(calls, c)
				idMember := ""
				if c.id != "" {
					idMember = `"id":"` + c.id + `",`
				}
				parts = append(parts, `{"functionCall":{`+idMember+`"name":"`+c.name+`","args":{"city":"Paris"}}}`)
			}
			contents = append(contents, `{"role":"model","parts":[`+strings.Join(parts, ",")+`]}`)
		}
		answers := append([]call(nil), calls...)
		switch rng.IntN(6) {
		case 0:
			rng.Shuffle(len(answers), func(i, j int) { answers[i], answers[j] = answers[j], answers[i] })
		case 1:
			answers = answers[:rng.IntN(len(answers))]
		case 2:
			answers = append(answers, answers[0])
		case 3:
			answers[rng.IntN(len(answers))].id = "other"
		case 4:
			answers[rng.IntN(len(answers))].name = names[rng.IntN(len(names))]
		}
		var parts []string
		for _, a := range answers {
			idMember := ""
			if a.id != "" && rng.IntN(8) > 0 {
				idMember = `"id":"` + a.id + `",`
			}
			parts = append(parts, `{"functionResponse":{`+idMember+`"name":"`+a.name+`","response":{"output":"ok"}}}`)
		}
		for len(parts) > 0 || rng.IntN(3) == 0 {
			n := min(len(parts), 1+rng.IntN(3))
			user := parts[:n]
			parts = parts[n:]
			if len(user) == 0 || rng.IntN(5) == 0 {
				user = append(user, `{"text":"Go on."}`)
			}
			contents = append(contents, `{"role":"user","parts":[`+strings.Join(user, ",")+`]}`)
			if len(parts) == 0 {
				break
			}
		}
		if rng.IntN(3) == 0 {
			contents = append(contents, `{"role":"model","parts":[{"text":"Done."}]}`, userAsk)
		}
	}
	return body(weatherFn, contents...)
}

// referencePairing is what the four pairing rules found when each walked
// the runs itself.
func referencePairing(r *Request) *pairingVerdicts {
	return &pairingVerdicts{
		count:     referenceResponseCount(r, nil),
		order:     referenceResponseOrder(r, nil),
		orderByID: referenceResponseOrderByID(r, nil),
		id:        referenceResponseID(r, nil),
	}
}

func referenceResponseCount(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !run.answersAll() {
			out = append(out, turnBreach(run.first, fmt.Sprintf("contents[%d]", run.first), MsgResponseCount))
		}
	})
	return out
}

func referenceResponseOrder(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !run.answersAll() || run.matchedByID(callParts, responseParts) {
			return
		}
		for z := pairsOf(callParts, responseParts); z.next(); {
			if fc, fr := z.pair(); fc.Name != fr.Name {
				at, part := run.locate(z.response)
				out = append(out, turnBreach(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.name", at, part), msgResponseOrder))
				return
			}
		}
	})
	return out
}

// referenceResponseOrderByID notes a batch answered out of call order whose
// responses all name their calls' ids.
func referenceResponseOrderByID(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !run.answersAll() || !run.matchedByID(callParts, responseParts) {
			return
		}
		for z := pairsOf(callParts, responseParts); z.next(); {
			if fc, fr := z.pair(); fc.ID != fr.ID {
				at, part := run.locate(z.response)
				out = append(out, turnBreach(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", at, part), msgResponseOrderIDs))
				return
			}
		}
	})
	return out
}

func referenceResponseID(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !run.answersAll() || run.callsWithoutID == run.calls || run.matchedByID(callParts, responseParts) {
			return // no call has an id to echo, or every response echoes one
		}
		for z := pairsOf(callParts, responseParts); z.next(); {
			if fc, fr := z.pair(); fc.ID != "" && fr.ID != fc.ID {
				at, part := run.locate(z.response)
				out = append(out, turnBreach(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", at, part),
					fmt.Sprintf(msgResponseIDFormat, fc.Name, fc.ID, fr.ID)))
			}
		}
	})
	return out
}

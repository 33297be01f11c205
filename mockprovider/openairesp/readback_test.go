package openairesp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// withoutSaid are copies of items without what they say (saidBy) or
// their read-back twins: what decoding an item's bytes alone gives.
func withoutSaid(items []*Item) []*Item {
	out := make([]*Item, len(items))
	for i, it := range items {
		bare := *it
		bare.said, bare.readBack = nil, nil
		out[i] = &bare
	}
	return out
}

// TestStoredItemsReadAsDecoded: the items a stored response keeps read
// (the input's read-back twins, items read back before) are what reading
// its stored bytes gives, and a continuation
// decides with them what it decides reading the bytes, over a chain of
// continuations; rule cases, lenient mode, a string input and references
// included.
func TestStoredItemsReadAsDecoded(t *testing.T) {
	bodies := []string{
		`{"model":"gpt-4.1","input":"hi"}`,
		`{"model":"gpt-4.1","input":[{"role":"user","content":"hi","extra":1},{"type":"function_call","id":"fc_9","call_id":"c9","name":"f","arguments":"{}","more":true}]}`,
		`{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"},
			{"type":"function_call_output","call_id":"c1","output":"ok"},{"type":"item_reference","id":"fc_1"},{"type":"item_reference","id":"fc_none"},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}]},{"role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"a"}]}]}`,
		input.Body(input.Head, input.Elems(6), ``),
	}
	for _, c := range RuleCases() {
		for _, raw := range append([]json.RawMessage{c.Bad, c.Good}, c.Setup...) {
			bodies = append(bodies, string(raw))
		}
	}
	outputs := []planned{{kind: "reasoning", id: "rs_out"}, {kind: "function_call", id: "fc_out", callID: "call_out", name: "f", args: "{}"}, {kind: "message", id: "msg_out", text: "done"}}
	continued, keptRead := 0, 0
	for _, lenient := range []bool{false, true} {
		for _, body := range bodies {
			s := session.NewStore(session.DefaultLimits()).Get("k")
			x := exchangeIn(s)
			x.Env.Options.Lenient = lenient
			prev := ""
			// The body, then two continuations of it.
			for step, next := range []string{body, `{"model":"gpt-4.1","input":[{"type":"function_call_output","call_id":"call_out","output":"x"}]}`, `{"model":"gpt-4.1","input":"again"}`} {
				if prev != "" {
					next = strings.Replace(next, `{"model":"gpt-4.1",`, `{"model":"gpt-4.1","previous_response_id":"`+prev+`",`, 1)
				}
				// Long enough for the session to keep it (package resume),
				// so its items are made with their read-back twins.
				req, err := decodeInSession(x, resumetest.Padded([]byte(next)))
				if err != nil {
					break
				}
				if step > 0 {
					continued++
					compareWithStoredBytes(t, x, s, prev, next)
				}
				id := "resp_" + string(rune('a'+step))
				New().remember(x, req, id, completedResponse(nil, req, id, 1, outputs), outputs)
				stored, ok := storedResponse(s, id)
				if !ok {
					break
				}
				bytesOnly := StoredResponse{ID: stored.ID, Body: stored.Body, rest: stored.Items()}
				keptRead += len(stored.read)
				if bytesOnly.cost() != stored.cost() {
					t.Fatalf("%s: kept read, the response costs %d, as bytes %d", next, stored.cost(), bytesOnly.cost())
				}
				if got, want := withoutSaid(readStored(stored)), withoutSaid(readStored(&bytesOnly)); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s (lenient %v, step %d): stored items kept as\n%+v\nread from their bytes\n%+v", next, lenient, step, got, want)
				}
				prev = id
			}
		}
	}
	if continued < len(bodies) || keptRead < 2*len(bodies) {
		t.Fatalf("only %d continuations and %d items kept read: the test hardly tries them", continued, keptRead)
	}
}

// compareWithStoredBytes decodes body, which continues response prev,
// with the items prev keeps read and with them read from their bytes,
// and fails unless both decide the same.
func compareWithStoredBytes(t *testing.T, x *dialect.Exchange, s *session.Session, prev, body string) {
	t.Helper()
	stored, ok := storedResponse(s, prev)
	if !ok {
		t.Fatalf("%s: response %s not kept", body, prev)
	}
	decide := func() []any {
		req, err := decodeRequest(x, []byte(body))
		if err != nil {
			return []any{err}
		}
		return []any{rules.Run(set.Rules(), req, x.Env), req.conversation(), withoutSaid(req.Prior)}
	}
	read := decide()
	bytesOnly := StoredResponse{ID: stored.ID, Body: stored.Body, rest: stored.Items()}
	putResponses(s, &bytesOnly)
	fromBytes := decide()
	putResponses(s, stored)
	if !reflect.DeepEqual(read, fromBytes) {
		t.Fatalf("%s: continuing with the items kept read\n%+v\nwith them read from their bytes\n%+v", body, read, fromBytes)
	}
}

package openairesp

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// walked is req with its taken facts forgotten: every check walks the
// items, as it did before the facts were kept.
func walked(req *Request) *Request {
	w := *req
	w.taken = 0
	w.additionalTools = nil
	for _, it := range w.Items {
		if it.AdditionalTools != nil {
			w.additionalTools = append(w.additionalTools, it.AdditionalTools)
		}
	}
	return &w
}

// The facts kept with the input items (prefix.go) decide what walking
// the items decides, and the turns a session kept make the conversation
// building it from scratch makes: every rule case's requests, and a long loop's with
// items that lack members, outputs before their calls, additional tools
// and references in the part a session reuses, judged with the facts
// and with them forgotten.
func TestPrefixFactsDecideAsTheWalks(t *testing.T) {
	var bodies []string
	for _, c := range RuleCases() {
		for _, raw := range append(append([]string{}, rawStrings(c.Setup)...), string(c.Bad), string(c.Good)) {
			if !strings.Contains(raw, "{{setup") {
				bodies = append(bodies, raw)
			}
		}
	}
	odd := []string{
		`{"type":"function_call","name":"f","arguments":"{}"}`,
		`{"type":"function_call_output","call_id":"call_late","output":"early"}`,
		`{"type":"function_call","call_id":"call_late","name":"f","arguments":"{}"}`,
		`{"type":"additional_tools","tools":[{"type":"function","name":"g","parameters":{"type":"object"}}]}`,
		`{"type":"reasoning","id":"rs_1"}`,
		`{"type":"item_reference","id":"fc_nope"}`,
		`{"role":"developer","content":"be brief"}`,
		`{"type":"message","role":"system","content":[{"type":"input_text","text":"answer in French"}]}`,
		`{"role":"assistant","content":"let me look"}`,
	}
	for k, extra := range odd {
		elems := input.Elems(6)
		// The odd item early, then enough rounds that a session reuses it.
		elems = append(append(append([]string{}, elems[:3]...), extra), elems[3:]...)
		for n := 4; n <= len(elems); n += 3 {
			body := input.Body(input.Head, elems[:n], fmt.Sprintf(`,"metadata":{"case":"%d"}`, k))
			bodies = append(bodies, string(resumetest.Padded([]byte(body))))
		}
	}
	env := &rules.Env{Options: rules.DefaultOptions()}
	sessions := session.NewStore(session.DefaultLimits())
	reused := 0
	for i, body := range bodies {
		for _, inSession := range []bool{false, true} {
			x := exchangeIn(sessions.Get(fmt.Sprintf("alone-%d", i)))
			if inSession {
				x = exchangeIn(sessions.Get("loop"))
				reused += len(inputKept.Begin(x.Session, []byte(body)).Reused)
			}
			req, err := decodeInSession(x, []byte(body))
			if err != nil {
				continue
			}
			w := walked(req)
			if got, want := rules.Run(set.Rules(), req, env), rules.Run(set.Rules(), w, env); !reflect.DeepEqual(got, want) {
				t.Fatalf("body %d (session %v): with the facts %+v\nwalking %+v\n%s", i, inSession, got, want, body)
			}
			// The conversation decoding built (from the turns the session
			// kept, in the loop) is the one built from scratch.
			if fresh := w.conversation(); !reflect.DeepEqual(req.built, fresh) {
				t.Fatalf("body %d (session %v): conversation %+v\nfrom scratch %+v\n%s", i, inSession, req.built, fresh, body)
			}
			if req.hasReferences() != w.hasReferences() || !reflect.DeepEqual(req.additionalTools, w.additionalTools) {
				t.Fatalf("body %d (session %v): references %v / %v, additional tools %d / %d", i, inSession, req.hasReferences(), w.hasReferences(), len(req.additionalTools), len(w.additionalTools))
			}
		}
	}
	if reused == 0 {
		t.Fatal("no request reused an item: the kept facts were not read")
	}
}

func rawStrings[T ~[]byte](rs []T) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

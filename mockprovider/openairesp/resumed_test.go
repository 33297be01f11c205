package openairesp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

type outcome struct {
	Req        *Request
	Err        *wire.APIError
	Violations []rules.Violation
	Conv       *conv.Conversation
	Reply      *model.Reply
	ModelErr   error
}

func exchangeIn(s *session.Session) *dialect.Exchange {
	return &dialect.Exchange{Session: s, R: httptest.NewRequest(http.MethodPost, Path, nil), Env: &rules.Env{Options: rules.DefaultOptions()}}
}

// outcomeOf is everything decoding decides; madeNow builds the
// conversation as if no item had kept what it says (saidBy), so the
// checks compare the kept parts with parts made from scratch.
func outcomeOf(req *Request, err *wire.APIError, madeNow bool) any {
	out := outcome{Req: req, Err: err}
	if err == nil {
		out.Violations = rules.Run(set.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
		// The conversation decoding built: in a session, from the turns
		// it kept where it reused items.
		out.Conv = req.built
		if madeNow {
			out.Conv = saying(req, nil).conversation()
		}
		out.Reply, out.ModelErr = (&model.Engine{}).Next(out.Conv, "")
		// Read-back twins are made only for a request the session keeps:
		// TestStoredItemsReadAsDecoded checks them.
		bare := *req
		bare.built = nil
		bare.Items = make([]*Item, len(req.Items))
		for i, it := range req.Items {
			cp := *it
			cp.readBack = nil
			cp.turnsAt = turnsAt{} // noted only when a session keeps the item
			bare.Items[i] = &cp
		}
		out.Req = &bare
	}
	return out
}

var resumed = resumetest.Dialect{
	InSession: func(s *session.Session, body []byte) any {
		req, err := decodeInSession(exchangeIn(s), body)
		return outcomeOf(req, err, false)
	},
	Alone: func(body []byte) any {
		req, err := decodeRequest(exchangeIn(session.NewStore(session.DefaultLimits()).Get("k")), body)
		return outcomeOf(req, err, true)
	},
	Reused: func(s *session.Session, body []byte) int { return len(inputKept.Begin(s, body).Reused) },
}

// saying is a copy of req whose input items say what say gives each
// (nil: made when the conversation is built). The items may be the
// session's kept ones, read only: they are copied.
func saying(req *Request, say func(i int, it *Item) []conv.Part) *Request {
	out := *req
	out.Items = make([]*Item, len(req.Items))
	for i, it := range req.Items {
		cp := *it
		cp.said = nil
		if say != nil {
			cp.said = say(i, it)
		}
		out.Items[i] = &cp
	}
	return &out
}

func responsesRound(i int) []string {
	return []string{
		fmt.Sprintf(`{"type":"function_call","call_id":"call_%d","name":"get_weather","arguments":"{\"city\":\"Paris %d\"}"}`, i, i),
		fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"sunny %d"}`, i, i),
	}
}

var input = resumetest.Conversation{
	Head:  `"model":"gpt-4.1","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],`,
	Array: "input", First: `{"role":"user","content":"weather?"}`, Round: responsesRound,
}

func TestResumedMatchesFullDecode(t *testing.T) {
	base := input.Elems(resumetest.Rounds)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	next := with(responsesRound(resumetest.Rounds)...)
	h, body := input.Head, input.Body
	resumed.Run(t, body(h, base, ``), append(input.Cases(),
		resumetest.C("instructions after the array", body(h, next, `,"instructions":"be brief","stream":true`), true),
		resumetest.C("unknown member after the array", body(h, next, `,"inptu":[]`), true),
		resumetest.C("input again after the array", body(h, next, `,"input":"hi"`), true),
		resumetest.C("model again after the array", body(h, next, `,"model":"gpt-5"`), true),
		resumetest.C("different model", body(strings.Replace(h, "gpt-4.1", "gpt-5", 1), next, ``), false),
		resumetest.C("wrong type in the new item", body(h, with(`{"role":"user","content":5}`), ``), true),
		resumetest.C("unknown member in the new item", body(h, with(`{"role":"user","content":"x","idx":"m"}`), ``), true),
		resumetest.C("unknown type of the new item", body(h, with(`{"type":"nonsense"}`), ``), true),
		resumetest.C("unpaired output", body(h, with(`{"type":"function_call_output","call_id":"call_x","output":"?"}`), ``), true),
		resumetest.C("reference to an unknown item", body(h, with(`{"type":"item_reference","id":"fc_nope"}`), ``), true),
		resumetest.C("duplicate member in the new item", body(h, with(`{"role":"user","content":"x","content":"y"}`), ``), true),
		resumetest.C("earlier item changed", body(h, append(append(input.Elems(2), `{"role":"assistant","content":"no"}`), base[6:]...), ``), true),
		resumetest.C("last item's end changed", body(h, append(append([]string{}, base[:len(base)-1]...), `{"type":"function_call_output","call_id":"call_4","output":"sunny 44"}`), ``), true),
		resumetest.C("input a string", `{`+h+`"input":"hi"}`, false),
	))
}

func TestResumedLoop(t *testing.T) {
	resumed.Loop(t, input.LoopBodies(`,"store":false`), func(i int) int { return max(0, 2*i-1) })
}

func FuzzResumed(f *testing.F) {
	input.Seed(f, RuleCases())
	f.Fuzz(func(t *testing.T, prev, next []byte) { resumed.Check(t, prev, next) })
}

// TestResumedConversationShared: a resent item's call arguments and
// result are the ones made when the session first read it (shared: a
// conversation is read only), and the conversation is what making them
// again gives.
func TestResumedConversationShared(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(input.Body(input.Head, input.Elems(3), ``)))
	if _, err := decodeInSession(exchangeIn(s), body); err != nil {
		t.Fatal(err)
	}
	req, err := decodeInSession(exchangeIn(s), body)
	if err != nil {
		t.Fatal(err)
	}
	kept := req.conversation()
	if call := kept.Turns[1].Parts[0].Call; call == nil || call != req.Items[1].said[0].Call {
		t.Fatalf("the conversation's call %+v is not the kept one", call)
	}
	if result := kept.Turns[2].Parts[0].Result; result == nil || result != req.Items[2].said[0].Result {
		t.Fatalf("the conversation's result %+v is not the kept one", result)
	}
	if now := saying(req, nil).conversation(); !reflect.DeepEqual(kept, now) {
		t.Fatalf("conversation from kept parts\n%+v\ndiffers from\n%+v", kept, now)
	}
}

// TestResultNamedAsMadeNow: a result whose kept part named its call
// otherwise than the effective conversation does (the call far back,
// answered twice, given by a reference or by previous_response_id) is
// named as the conversation made from scratch names it.
func TestResultNamedAsMadeNow(t *testing.T) {
	call := func(callID, name string) string {
		return `{"type":"function_call","call_id":"` + callID + `","name":"` + name + `","arguments":"{}"}`
	}
	output := func(callID string) string {
		return `{"type":"function_call_output","call_id":"` + callID + `","output":"ok"}`
	}
	user := `{"role":"user","content":"go on"}`
	far := []string{user, call("c1", "far")}
	for range callLookBack + 2 {
		far = append(far, user)
	}
	far = append(far, output("c1"), call("c2", "near"), output("c2"), output("c1"))
	bodies := map[string][]string{
		"call far back":     far,
		"one id twice":      {user, call("c1", "first"), call("c1", "second"), output("c1"), output("c1")},
		"no call id":        {user, `{"type":"function_call","name":"anon","arguments":"{}"}`, `{"type":"function_call_output","output":"ok"}`},
		"output first":      {user, output("c1"), call("c1", "late")},
		"call by reference": {user, `{"type":"function_call","id":"fc_1","call_id":"c1","name":"referenced","arguments":"{}"}`, user, `{"type":"item_reference","id":"fc_1"}`, output("c1")},
	}
	s := session.NewStore(session.DefaultLimits()).Get("k")
	putResponses(s, &StoredResponse{ID: "resp_prior", Body: []byte(`{}`), rest: []json.RawMessage{json.RawMessage(call("c9", "stored"))}})
	for name, items := range bodies {
		for _, prior := range []string{``, `"previous_response_id":"resp_prior",`} {
			body := `{"model":"gpt-4.1",` + prior + `"input":[` + strings.Join(items, ",") + `]}`
			if prior != "" {
				body = strings.Replace(body, output("c1"), output("c9"), 1)
			}
			req, err := decodeRequest(exchangeIn(s), []byte(body))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := saying(req, nil).conversation()
			if got, named := resultNames(want), callNamesInOrder(req.Effective()); !slices.Equal(got, named) {
				t.Errorf("%s %s: results named %q, want %q", name, prior, got, named)
			}
			if got := req.conversation(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: conversation from the parts made with the input\n%+v\nwant\n%+v", name, prior, got, want)
			}
			misnamed := saying(req, func(i int, it *Item) []conv.Part {
				said := slices.Clone(it.said)
				if len(said) == 1 && said[0].Result != nil {
					result := *said[0].Result
					result.Name = "misnamed"
					said[0].Result = &result
				}
				return said
			})
			if got := misnamed.conversation(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: conversation from misnamed kept results\n%+v\nwant\n%+v", name, prior, got, want)
			}
		}
	}
}

// resultNames are the names of the conversation's results, in order.
func resultNames(c *conv.Conversation) []string {
	var out []string
	for _, turn := range c.Turns {
		for _, p := range turn.Parts {
			if p.Result != nil {
				out = append(out, p.Result.Name)
			}
		}
	}
	return out
}

// callNamesInOrder names each function_call_output after the latest
// function_call before it with its call id, read in order with one map.
func callNamesInOrder(items []*Item) []string {
	names := map[string]string{}
	var out []string
	for _, it := range items {
		switch it.Type {
		case "function_call":
			names[str(it.CallID)] = str(it.Name)
		case "function_call_output":
			out = append(out, names[str(it.CallID)])
		}
	}
	return out
}

// TestResolvingLeavesKeptItemsAlone: resolving item references marks or
// replaces copies, never the items the session keeps for its next
// request (shared read only, by concurrent requests too).
func TestResolvingLeavesKeptItemsAlone(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(`{"model":"gpt-4.1","store":false,"input":[{"role":"user","content":"hi"},` +
		`{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"},` +
		`{"type":"item_reference","id":"fc_1"},{"type":"item_reference","id":"fc_unknown"}]}`))
	for range 2 {
		req, err := decodeInSession(exchangeIn(s), body)
		if err != nil {
			t.Fatal(err)
		}
		if got := req.Items[3]; got.Type != "function_call" || !got.FromReference || got.Index != 3 {
			t.Fatalf("the reference to an input item reads %+v", got)
		}
		if got := req.Items[4]; !got.Unresolved || !got.NotPersisted {
			t.Fatalf("the reference to no item reads %+v", got)
		}
		kept := inputKept.Begin(s, body).Reused
		if len(kept) != 5 {
			t.Fatalf("%d items kept", len(kept))
		}
		for _, i := range []int{3, 4} {
			if it := kept[i]; it.Type != "item_reference" || it.FromReference || it.Unresolved || it.NotPersisted || it.Index != i {
				t.Fatalf("kept item %d changed by resolving: %+v", i, it)
			}
		}
	}
}

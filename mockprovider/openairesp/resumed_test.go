package openairesp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
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

func outcomeOf(req *Request, err *wire.APIError) any {
	out := outcome{Req: req, Err: err}
	if err == nil {
		out.Violations = rules.Run(set.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
		out.Conv = req.conversation()
		out.Reply, out.ModelErr = (&model.Engine{}).Next(out.Conv, "")
		// A call's arguments are parsed ahead only for a request the
		// session keeps; they are compared through the conversation.
		bare := *req
		bare.Items = withoutParsedArgs(req.Items)
		out.Req = &bare
	}
	return out
}

var resumed = resumetest.Dialect{
	InSession: func(s *session.Session, body []byte) any { return outcomeOf(decodeInSession(exchangeIn(s), body)) },
	Alone: func(body []byte) any {
		return outcomeOf(decodeRequest(exchangeIn(session.NewStore(session.DefaultLimits()).Get("k")), body))
	},
	Reused: func(s *session.Session, body []byte) int { return len(inputKept.Begin(s, body).Reused) },
}

// withoutParsedArgs are copies of items without their parsed arguments
// (the items may be the session's kept ones, read only).
func withoutParsedArgs(items []*Item) []*Item {
	out := make([]*Item, len(items))
	for i, it := range items {
		bare := *it
		bare.parsedArgs = nil
		out[i] = &bare
	}
	return out
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

// TestResumedCallArguments: the conversation reads the arguments parsed
// when the call was first decoded (shared: a conversation is read only),
// and gets what parsing them again gives.
func TestResumedCallArguments(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(input.Body(input.Head, input.Elems(3), ``)))
	if _, err := decodeInSession(exchangeIn(s), body); err != nil {
		t.Fatal(err)
	}
	req, err := decodeInSession(exchangeIn(s), body)
	if err != nil {
		t.Fatal(err)
	}
	if req.Items[1].parsedArgs == nil {
		t.Fatal("a reused call has no parsed arguments")
	}
	kept := req.conversation()
	if args := kept.Turns[1].Parts[0].Call.Arguments; reflect.ValueOf(args).UnsafePointer() != reflect.ValueOf(req.Items[1].parsedArgs).UnsafePointer() {
		t.Fatalf("the conversation's arguments %v are not the kept ones", args)
	}
	req.Items = withoutParsedArgs(req.Items)
	if parsed := req.conversation(); !reflect.DeepEqual(kept, parsed) {
		t.Fatalf("conversation from kept arguments\n%+v\ndiffers from\n%+v", kept, parsed)
	}
}

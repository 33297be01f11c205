package gemini

import (
	"fmt"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
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

func outcomeOf(req *Request, err *wire.APIError) any {
	out := outcome{Req: req, Err: err}
	if err == nil {
		req.Model, req.Method = "gemini-2.5-flash", methodGenerate
		out.Violations = rules.Run(ruleSet.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
		out.Conv = toConversation(req)
		out.Reply, out.ModelErr = (&model.Engine{}).Next(out.Conv, "")
	}
	return out
}

var resumed = resumetest.Dialect{
	InSession: func(s *session.Session, body []byte) any { return outcomeOf(decodeInSession(s, body, false)) },
	Alone:     func(body []byte) any { return outcomeOf(decodeBody(body, false)) },
	Reused:    func(s *session.Session, body []byte) int { return len(contentsKept.Begin(s, body).Reused) },
}

func geminiRound(i int) []string {
	return []string{
		fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris %d"}}}]}`, i),
		fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"result":"sunny %d"}}}]}`, i),
	}
}

var contents = resumetest.Conversation{
	Head:  `"tools":[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}],`,
	Array: "contents", First: `{"role":"user","parts":[{"text":"weather?"}]}`, Round: geminiRound,
}

func TestResumedMatchesFullDecode(t *testing.T) {
	base := contents.Elems(resumetest.Rounds)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	next := with(geminiRound(resumetest.Rounds)...)
	h, body := contents.Head, contents.Body
	resumed.Run(t, body(h, base, ``), append(contents.Cases(),
		resumetest.C("config after the array", body(h, next, `,"generationConfig":{"temperature":0.5}`), true),
		resumetest.C("unknown member after the array", body(h, next, `,"contentz":[]`), true),
		resumetest.C("contents again after the array", body(h, next, `,"contents":[]`), true),
		resumetest.C("contents again, other case", body(h, next, `,"Contents":[]`), true),
		resumetest.C("contents again, snake", body(h, next, `,"con_tents":[]`), true),
		resumetest.C("tools again after the array", body(h, next, `,"tools":[]`), true),
		resumetest.C("wrong type in the new content", body(h, with(`{"role":"user","parts":5}`), ``), true),
		resumetest.C("single part for the repeated parts", body(h, with(`{"role":"user","parts":{"text":"x"}}`), ``), true),
		resumetest.C("unknown member in the new content", body(h, with(`{"role":"user","parts":[{"text":"x"}],"id":"m"}`), ``), true),
		resumetest.C("bad role in the new content", body(h, with(`{"role":"tool","parts":[{"text":"x"}]}`), ``), true),
		resumetest.C("unanswered call", body(h, with(geminiRound(resumetest.Rounds)[0]), ``), true),
		resumetest.C("duplicate member in the new content", body(h, with(`{"role":"user","role":"user","parts":[{"text":"x"}]}`), ``), true),
		resumetest.C("earlier content changed", body(h, append(append(contents.Elems(2), `{"role":"model","parts":[{"text":"no"}]}`), base[6:]...), ``), true),
		resumetest.C("last content's end changed", body(h, append(append([]string{}, base[:len(base)-1]...), `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"result":"sunny 44"}}}]}`), ``), true),
		resumetest.C("empty body", ``, false),
	))
}

// TestResumedDerivedShared: a resumed request reads what was derived of
// its contents when they were first decoded (their turns, Struct values
// included, shared: a conversation is read only) instead of making it
// again.
func TestResumedDerivedShared(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(contents.Body(contents.Head, contents.Elems(3), ``)))
	first, err := decodeInSession(s, body, false)
	if err != nil {
		t.Fatal(err)
	}
	again, err := decodeInSession(s, body, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.turns) != len(again.Contents) || len(again.shapes) != len(again.Contents) {
		t.Fatalf("%d turns and %d shapes for %d contents", len(again.turns), len(again.shapes), len(again.Contents))
	}
	was, is := toConversation(first).Turns[1].Parts, toConversation(again).Turns[1].Parts
	if is[0].Call.Arguments["city"] != "Paris 0" || &was[0] != &is[0] {
		t.Fatalf("the resumed conversation's turn %+v is not the one made when its content was decoded", is[0].Call)
	}
}

func TestResumedLoop(t *testing.T) {
	resumed.Loop(t, contents.LoopBodies(`,"generationConfig":{"temperature":0.5}`), func(i int) int { return max(0, 2*i-1) })
}

func FuzzResumed(f *testing.F) {
	contents.Seed(f, RuleCases())
	f.Fuzz(func(t *testing.T, prev, next []byte) { resumed.Check(t, prev, next) })
}

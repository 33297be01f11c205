package gemini

import (
	"fmt"
	"strings"
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
		// What the session kept to build the conversation is compared
		// through the conversation.
		req.structs = nil
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

func geminiContents(rounds int) []string {
	msgs := []string{`{"role":"user","parts":[{"text":"weather?"}]}`}
	for i := range rounds {
		msgs = append(msgs, geminiRound(i)...)
	}
	return msgs
}

const geminiHead = `"tools":[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}],`

func geminiBody(head string, contents []string, tail string) string {
	return `{` + head + `"contents":[` + strings.Join(contents, ",") + `]` + tail + `}`
}

func TestResumedMatchesFullDecode(t *testing.T) {
	base := geminiContents(5)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	next := with(geminiRound(5)...)
	h := geminiHead
	resumed.Run(t, geminiBody(h, base, ``), []resumetest.Case{
		resumetest.C("identical", geminiBody(h, base, ``), true),
		resumetest.C("next round", geminiBody(h, next, ``), true),
		resumetest.C("config after the array", geminiBody(h, next, `,"generationConfig":{"temperature":0.5}`), true),
		resumetest.C("unknown member after the array", geminiBody(h, next, `,"contentz":[]`), true),
		resumetest.C("contents again after the array", geminiBody(h, next, `,"contents":[]`), true),
		resumetest.C("contents again, other case", geminiBody(h, next, `,"Contents":[]`), true),
		resumetest.C("contents again, snake", geminiBody(h, next, `,"con_tents":[]`), true),
		resumetest.C("tools again after the array", geminiBody(h, next, `,"tools":[]`), true),
		resumetest.C("wrong type in the new content", geminiBody(h, with(`{"role":"user","parts":5}`), ``), true),
		resumetest.C("single part for the repeated parts", geminiBody(h, with(`{"role":"user","parts":{"text":"x"}}`), ``), true),
		resumetest.C("unknown member in the new content", geminiBody(h, with(`{"role":"user","parts":[{"text":"x"}],"id":"m"}`), ``), true),
		resumetest.C("bad role in the new content", geminiBody(h, with(`{"role":"tool","parts":[{"text":"x"}]}`), ``), true),
		resumetest.C("unanswered call", geminiBody(h, with(geminiRound(5)[0]), ``), true),
		resumetest.C("duplicate member in the new content", geminiBody(h, with(`{"role":"user","role":"user","parts":[{"text":"x"}]}`), ``), true),
		resumetest.C("trailing comma", `{`+h+`"contents":[`+strings.Join(base, ",")+`,]}`, false),
		resumetest.C("truncated", geminiBody(h, next, ``)[:len(geminiBody(h, base, ``))+30], true),
		resumetest.C("earlier content changed", geminiBody(h, append(append(geminiContents(2), `{"role":"model","parts":[{"text":"no"}]}`), base[6:]...), ``), true),
		resumetest.C("last content's end changed", geminiBody(h, append(append([]string{}, base[:len(base)-1]...), `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"result":"sunny 44"}}}]}`), ``), true),
		resumetest.C("contents removed", geminiBody(h, base[:4], ``), true),
		resumetest.C("first content removed", geminiBody(h, base[1:], ``), false),
		resumetest.C("reordered keys", `{"contents":[`+strings.Join(next, ",")+`],`+strings.TrimSuffix(h, ",")+`}`, false),
		resumetest.C("empty array", geminiBody(h, nil, ``), false),
		resumetest.C("empty body", ``, false),
		resumetest.C("not an object", `[1]`, false),
	})
}

// TestResumedStructs: the conversation of a resumed request reads the
// Struct values parsed when their contents were first decoded, as copies.
func TestResumedStructs(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(geminiBody(geminiHead, geminiContents(3), ``)))
	first, err := decodeInSession(s, body, false)
	if err != nil {
		t.Fatal(err)
	}
	again, err := decodeInSession(s, body, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.structs) != len(again.Contents) || again.structs[1][0] == nil {
		t.Fatalf("structs %v", again.structs)
	}
	c := toConversation(again)
	c.Turns[1].Parts[0].Call.Arguments["city"] = "changed"
	if first.structs[1][0]["city"] != "Paris 0" || toConversation(again).Turns[1].Parts[0].Call.Arguments["city"] != "Paris 0" {
		t.Fatal("a conversation shares the kept Struct values")
	}
}

func TestResumedLoop(t *testing.T) {
	var bodies [][]byte
	for rounds := range 10 {
		bodies = append(bodies, []byte(geminiBody(geminiHead, geminiContents(rounds), `,"generationConfig":{"temperature":0.5}`)))
	}
	resumed.Loop(t, bodies, func(i int) int { return max(0, 2*i-1) })
}

func FuzzResumed(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Good), []byte(c.Bad))
		f.Add([]byte(c.Bad), []byte(c.Good))
	}
	base := geminiContents(3)
	f.Add([]byte(geminiBody(geminiHead, base, ``)), []byte(geminiBody(geminiHead, append(base, geminiRound(3)...), ``)))
	f.Fuzz(func(t *testing.T, prev, next []byte) { resumed.Check(t, prev, next) })
}

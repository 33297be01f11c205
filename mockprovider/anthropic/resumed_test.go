package anthropic

import (
	"fmt"
	"reflect"
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
	PromptSize int
	// Segments and ColdUsage are the prompt cache's view of the request:
	// its blocks with their sizes, ttls and prefix hashes, and the usage
	// a session that has cached nothing yet answers.
	Segments  []cacheSegment
	ColdUsage usage
}

func outcomeOf(req *Request, err *wire.APIError) any {
	out := outcome{Req: req, Err: err}
	if err == nil {
		out.Violations = rules.Run(ruleSet.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
		out.Conv = req.conversation()
		out.Reply, out.ModelErr = (&model.Engine{}).Next(out.Conv, "")
		out.PromptSize = req.promptSize()
		if req.cache != nil {
			out.Segments = req.cacheSegments()
			cold := session.NewStore(session.DefaultLimits()).Get("cold")
			out.ColdUsage = fullUsage(tokens(out.PromptSize), 0, req.useCache(cold))
		}
	}
	return out
}

var resumed = resumetest.Dialect{
	InSession: func(s *session.Session, body []byte) any {
		return outcomeOf(decodeInSession(s, body, false, false))
	},
	Alone:  func(body []byte) any { return outcomeOf(decodeRequest(body, false, false)) },
	Reused: func(s *session.Session, body []byte) int { return len(messagesKept.Begin(s, body).Reused) },
}

func anthropicRound(i int) []string {
	return []string{
		fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"checking"},{"type":"tool_use","id":"toolu_%d","name":"get_weather","input":{"city":"Paris %d"}}]}`, i, i),
		fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"sunny %d"}]}`, i, i),
	}
}

var messages = resumetest.Conversation{
	Head:  `"model":"claude-sonnet-4-5","max_tokens":1024,"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],`,
	Array: "messages", First: `{"role":"user","content":"weather?"}`, Round: anthropicRound,
}

func TestResumedMatchesFullDecode(t *testing.T) {
	base := messages.Elems(resumetest.Rounds)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	next := with(anthropicRound(resumetest.Rounds)...)
	h, body := messages.Head, messages.Body
	resumed.Run(t, body(h, base, ``), append(messages.Cases(),
		resumetest.C("next round, stream after the array", body(h, next, `,"stream":true`), true),
		resumetest.C("different model", body(strings.Replace(h, "claude-sonnet-4-5", "claude-opus-4-1", 1), next, ``), false),
		resumetest.C("unknown member after the array", body(h, next, `,"modle":"x"`), true),
		resumetest.C("model again after the array", body(h, next, `,"model":"claude-opus-4-1"`), true),
		resumetest.C("messages again after the array", body(h, next, `,"messages":[]`), true),
		resumetest.C("wrong type in the new message", body(h, with(`{"role":"user","content":5}`), ``), true),
		resumetest.C("unknown member in the new message", body(h, with(`{"role":"user","content":"x","id":"m"}`), ``), true),
		resumetest.C("bad role in the new message", body(h, with(`{"role":"tool","content":"x"}`), ``), true),
		resumetest.C("unpaired tool_use", body(h, with(anthropicRound(resumetest.Rounds)[0]), ``), true),
		resumetest.C("duplicate member in the new message", body(h, with(`{"role":"user","content":"x","content":"y"}`), ``), true),
		resumetest.C("cache_control in the new message", body(h, with(`{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}`), ``), false),
		resumetest.C("top-level cache_control after the array", body(h, next, `,"cache_control":{"type":"ephemeral"}`), true),
		resumetest.C("new user message merged into the last turn", body(h, with(`{"role":"user","content":"and Rome?"}`), ``), true),
		resumetest.C("system message between turns", body(h, with(`{"role":"system","content":"Be brief."}`, anthropicRound(resumetest.Rounds)[1]), ``), true),
		resumetest.C("earlier message changed", body(h, append(append(messages.Elems(2), `{"role":"assistant","content":"no"}`), base[6:]...), ``), true),
		resumetest.C("last message's end changed", body(h, append(append([]string{}, base[:len(base)-1]...), `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_4","content":"sunny 44"}]}`), ``), true),
	))
}

// TestResumedResultOfKeptCall: a result in a new message is named after
// its call in a message the session kept.
func TestResumedResultOfKeptCall(t *testing.T) {
	base := messages.Elems(resumetest.Rounds)
	call := anthropicRound(resumetest.Rounds)
	h, body := messages.Head, messages.Body
	prev := append(append([]string{}, base...), call[0])
	resumed.Run(t, body(h, prev, ``), []resumetest.Case{
		resumetest.C("result of the kept call", body(h, append(prev, call[1]), ``), true),
		resumetest.C("result of the kept call after a system message", body(h, append(prev, `{"role":"system","content":"x"}`, call[1]), ``), true),
	})
}

func TestResumedLoop(t *testing.T) {
	resumed.Loop(t, messages.LoopBodies(`,"stream":false`), func(i int) int { return max(0, 2*i-1) })
}

func FuzzResumed(f *testing.F) {
	messages.Seed(f, RuleCases())
	f.Fuzz(func(t *testing.T, prev, next []byte) { resumed.Check(t, prev, next) })
}

// TestResumedParts: a resent message (its facts for the rules, its own
// turn) and its parts (a tool_use's parsed input, a result named after
// its call) are those made when the session first decoded it, shared by
// the next request and its conversation (read only), and equal to what
// decoding the body alone makes.
func TestResumedParts(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(messages.Body(messages.Head, messages.Elems(3), ``)))
	first, err := decodeInSession(s, body, false, false)
	if err != nil {
		t.Fatal(err)
	}
	req, err := decodeInSession(s, body, false, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range req.Messages {
		if m != first.Messages[i] || req.Groups[i] != first.Groups[i] {
			t.Fatalf("message %d was made again", i)
		}
	}
	kept := req.conversation()
	call, result := kept.Turns[1].Parts[1].Call, kept.Turns[2].Parts[0].Result
	if call != first.conversation().Turns[1].Parts[1].Call || result != first.conversation().Turns[2].Parts[0].Result {
		t.Fatal("the resent messages' parts were made again")
	}
	if result.Name != "get_weather" {
		t.Fatalf("the kept result is named %q", result.Name)
	}
	alone, err := decodeRequest(body, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if parsed := alone.conversation(); !reflect.DeepEqual(kept, parsed) {
		t.Fatalf("conversation from kept parts\n%+v\ndiffers from\n%+v", kept, parsed)
	}
}

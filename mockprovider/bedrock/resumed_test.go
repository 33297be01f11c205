package bedrock

import (
	"fmt"
	"reflect"
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
		req.Model = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
		out.Violations = rules.Run(ruleSet.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
		out.Conv = toConversation(req)
		out.Reply, out.ModelErr = (&model.Engine{}).Next(out.Conv, "")
		// The messages the session kept are compared through the
		// conversation.
		req.kept = nil
	}
	return out
}

var resumed = resumetest.Dialect{
	InSession: func(s *session.Session, body []byte) any { return outcomeOf(decodeInSession(s, body)) },
	Alone:     func(body []byte) any { return outcomeOf(decodeLenient(body)) },
	Reused:    func(s *session.Session, body []byte) int { return len(messagesKept.Begin(s, body).Reused) },
}

func bedrockRound(i int) []string {
	return []string{
		fmt.Sprintf(`{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_%d","name":"get_weather","input":{"city":"Paris %d"}}}]}`, i, i),
		fmt.Sprintf(`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_%d","content":[{"json":{"temperature":%d}},{"text":"sunny"}]}}]}`, i, i),
	}
}

var messages = resumetest.Conversation{
	Head:  `"toolConfig":{"tools":[` + weatherTool + `]},`,
	Array: "messages", First: askWeather, Round: bedrockRound,
}

func TestResumedMatchesFullDecode(t *testing.T) {
	base := messages.Elems(resumetest.Rounds)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	next := with(bedrockRound(resumetest.Rounds)...)
	h, body := messages.Head, messages.Body
	withUnknown := append(append([]string{}, base[:3]...), `{"role":"assistant","content":[{"text":"x"}],"id":"m"}`)
	resumed.Run(t, body(h, base, ``), append(messages.Cases(),
		resumetest.C("config after the array", body(h, next, `,"inferenceConfig":{"maxTokens":512}`), true),
		resumetest.C("unknown member after the array", body(h, next, `,"messagez":[]`), true),
		resumetest.C("messages again after the array", body(h, next, `,"messages":[]`), true),
		resumetest.C("messages again, other case", body(h, next, `,"Messages":[]`), true),
		resumetest.C("toolConfig again after the array", body(h, next, `,"toolConfig":{}`), true),
		resumetest.C("wrong type in the new message", body(h, with(`{"role":"user","content":5}`), ``), true),
		resumetest.C("unknown member in the new message", body(h, with(`{"role":"user","content":[{"text":"x"}],"id":"m"}`), ``), true),
		resumetest.C("unknown members in the new message and after", body(h, with(`{"role":"user","content":[{"text":"x","b":1,"a":2}]}`), `,"z":1,"y":2`), true),
		resumetest.C("unknown block in the new message", body(h, with(`{"role":"user","content":[{"unknownBlock":{}}]}`), ``), true),
		resumetest.C("bad role in the new message", body(h, with(`{"role":"tool","content":[{"text":"x"}]}`), ``), true),
		resumetest.C("unanswered call", body(h, with(bedrockRound(resumetest.Rounds)[0]), ``), true),
		resumetest.C("bad tool use id in the new message", body(h, with(`{"role":"assistant","content":[{"toolUse":{"toolUseId":"a/b","name":"get_weather","input":{}}}]}`), ``), true),
		resumetest.C("tool input not an object", body(h, with(`{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"get_weather","input":[1]}}]}`), ``), true),
		resumetest.C("duplicate member in the new message", body(h, with(`{"role":"user","role":"user","content":[{"text":"x"}]}`), ``), true),
		resumetest.C("invalid UTF-8 in the new message", body(h, with("{\"role\":\"user\",\"content\":[{\"text\":\"\xff\"}]}"), ``), true),
		resumetest.C("earlier message changed", body(h, append(append(messages.Elems(2), `{"role":"assistant","content":[{"text":"no"}]}`), base[6:]...), ``), true),
		resumetest.C("earlier message gains an unknown member", body(h, append(withUnknown, base[4:]...), ``), true),
		resumetest.C("last message's end changed", body(h, append(append([]string{}, base[:len(base)-1]...), `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_4","content":[{"json":{"temperature":44}}]}}]}`), ``), true),
		resumetest.C("empty body", ``, false),
		resumetest.C("whitespace only", `   `, false),
	))
}

// TestResumedBreaches: the violations of the rules that check one message
// at a time, kept with the messages that break them, are those a full
// decode finds, for the reused messages and the new ones.
func TestResumedBreaches(t *testing.T) {
	broken := []string{
		askWeather,
		// tool-use-id-pattern, and roles-alternate after it.
		`{"role":"assistant","content":[{"toolUse":{"toolUseId":"a/b","name":"get_weather","input":{}}}]}`,
		// tool-results-alone, tool-uses-answered.
		`{"role":"user","content":[{"toolResult":{"toolUseId":"x","content":[{"text":"t"}]}},{"text":"and?"}]}`,
		`{"role":"assistant","content":[{"text":"ok"}]}`,
		// tool-result-count, error-result-content, json-result-object.
		`{"role":"user","content":[{"toolResult":{"toolUseId":"y","status":"error","content":[]}},{"toolResult":{"toolUseId":"z","content":[{"json":[1]}]}}]}`,
	}
	h, body := messages.Head, messages.Body
	with := func(extra ...string) []string { return append(append([]string{}, broken...), extra...) }
	want := map[string]bool{}
	req, aerr := decodeInSession(nil, resumetest.Padded([]byte(body(h, broken, ``))))
	if aerr != nil {
		t.Fatal(aerr)
	}
	for _, v := range outcomeOf(req, nil).(outcome).Violations {
		want[v.Rule] = true
	}
	for _, id := range []string{"bedrock.tool-use-id-pattern", "bedrock.tool-results-alone", "bedrock.tool-uses-answered",
		"bedrock.tool-result-count", "bedrock.error-result-content", "bedrock.json-result-object"} {
		if !want[id] {
			t.Fatalf("the broken conversation does not break %s", id)
		}
	}
	resumed.Run(t, body(h, broken, ``), []resumetest.Case{
		resumetest.C("identical", body(h, broken, ``), true),
		resumetest.C("next round", body(h, with(bedrockRound(0)...), ``), true),
		resumetest.C("a breach in the new message", body(h, with(`{"role":"assistant","content":[{"toolUse":{"toolUseId":"","name":"get_weather","input":{}}}]}`), ``), true),
		resumetest.C("the answer to a kept call", body(h, append(append([]string{}, broken[:2]...), `{"role":"user","content":[{"toolResult":{"toolUseId":"a/b","content":[{"text":"t"}]}}]}`), ``), true),
		resumetest.C("breaches mended", body(h, append([]string{broken[0]}, bedrockRound(0)...), ``), true),
	})
}

// TestResumedAfterUnknownMembers: a request with unknown members is not
// kept (the lenient decode lists them over the whole body), so the next
// one, which resends them, lists them too.
func TestResumedAfterUnknownMembers(t *testing.T) {
	elems := messages.Elems(resumetest.Rounds)
	elems[1] = `{"role":"assistant","content":[{"text":"x","extra":1}]}`
	prev := messages.Body(messages.Head, elems, ``)
	next := messages.Body(messages.Head, append(elems, bedrockRound(resumetest.Rounds)...), ``)
	if reused := resumed.Check(t, []byte(prev), []byte(next)); reused != 0 {
		t.Fatalf("%d messages reused from a request with unknown members", reused)
	}
	req, err := decodeInSession(nil, []byte(next))
	if err != nil || len(req.Unknown) != 1 {
		t.Fatalf("unknown %v, err %v", req.Unknown, err)
	}
}

// TestResumedTurns: the conversation of a resumed request reads the turns
// made when its messages were first decoded (shared: a conversation is
// read only) instead of converting them again.
func TestResumedTurns(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	body := resumetest.Padded([]byte(messages.Body(messages.Head, messages.Elems(3), ``)))
	first, err := decodeInSession(s, body)
	if err != nil {
		t.Fatal(err)
	}
	again, err := decodeInSession(s, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.kept) != len(again.Messages) {
		t.Fatalf("%d messages kept of %d", len(again.kept), len(again.Messages))
	}
	was, now := toConversation(first).Turns[1].Parts[0].Call, toConversation(again).Turns[1].Parts[0].Call
	if now.Arguments["city"] != "Paris 0" || now != was {
		t.Fatalf("the resumed conversation's call %+v is not the kept one %+v", now, was)
	}
}

func TestResumedLoop(t *testing.T) {
	resumed.Loop(t, messages.LoopBodies(`,"inferenceConfig":{"maxTokens":512}`), func(i int) int { return max(0, 2*i-1) })
}

func FuzzResumed(f *testing.F) {
	messages.Seed(f, RuleCases())
	f.Fuzz(func(t *testing.T, prev, next []byte) { resumed.Check(t, prev, next) })
}

// FuzzDecodeStrictFirst: decoding strictly first, and leniently only a
// body the strict decode refuses, decides what the lenient decode alone
// decides (the decode before sessions resumed it).
func FuzzDecodeStrictFirst(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"text":"x","z":1,"a":{"b":2}}]}],"y":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gotErr := decodeInSession(nil, body)
		want, wantErr := decodeLenient(body)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("body %q\ngot  %+v %v\nwant %+v %v", body, got, gotErr, want, wantErr)
		}
	})
}

package openaichat

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// outcome is everything a request's decoding decides: the checks' view,
// the error, the violations, the conversation and the model's answer.
type outcome struct {
	Req        *Request
	Err        *wire.APIError
	Violations []rules.Violation
	Conv       *conv.Conversation
	Reply      *model.Reply
	ModelErr   error
	// Prompt is the prompt text from the lines the request's messages
	// made, PromptEncoded the one rendered from the conversation.
	Prompt, PromptEncoded string
	// AsReference: the conversation's turns and system text are those
	// referenceTurns reads from the messages.
	AsReference bool
}

func outcomeOf(req *Request, err *wire.APIError) outcome {
	out := outcome{Req: req, Err: err}
	if err != nil {
		return out
	}
	out.Violations = rules.Run(set.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
	out.Conv = toConversation(req)
	pieces, _ := requestPrompt(req, out.Conv)
	out.Prompt = string(bytes.Join(pieces, nil))
	out.PromptEncoded = string(promptText(nil, out.Conv))
	turns, system := referenceTurns(req)
	out.AsReference = reflect.DeepEqual(turns, out.Conv.Turns) && system == out.Conv.System
	// The messages' turns carry prompt lines only when a session keeps
	// them: they are compared through Conv and Prompt.
	bare := *req
	bare.turns, bare.turnPrompts, bare.conv = nil, false, nil
	out.Req = &bare
	out.Reply, out.ModelErr = (&model.Engine{}).Next(out.Conv, "")
	return out
}

// referenceTurns are the conversation's turns and system text read from
// every message again, results named from a map of the calls before
// them: what toConversation made before messages kept their turns.
func referenceTurns(r *Request) ([]conv.Turn, string) {
	names := map[string]string{}
	turns := []conv.Turn{}
	var system []string
	inRun := false
	for _, m := range r.Messages {
		switch m.Role {
		case "system", "developer":
			if s := textOf(*m); s != "" {
				system = append(system, s)
			}
			inRun = false
		case "user":
			turns = append(turns, conv.Turn{Role: conv.User, Parts: userParts(*m)})
			inRun = false
		case "assistant":
			parts := assistantParts(*m)
			for _, p := range parts {
				if p.Kind == conv.KindCall {
					names[p.Call.ID] = p.Call.Name
				}
			}
			turns = append(turns, conv.Turn{Role: conv.Assistant, Parts: parts})
			inRun = false
		case "tool":
			part := conv.Part{Kind: conv.KindResult, Result: &conv.Result{CallID: m.ToolCallID, Name: names[m.ToolCallID], Content: resultContent(*m)}}
			if inRun {
				last := &turns[len(turns)-1]
				last.Parts = append(last.Parts, part)
			} else {
				turns = append(turns, conv.Turn{Role: conv.User, Parts: []conv.Part{part}})
				inRun = true
			}
		}
	}
	return turns, strings.Join(system, "\n")
}

// checkResumed decodes prev then next in one session and next alone, and
// fails unless both decodings of next decide the same. It returns how
// many messages of next were reused.
func checkResumed(t testing.TB, prevText, nextText string) int {
	t.Helper()
	prev, next := resumetest.Padded([]byte(prevText)), resumetest.Padded([]byte(nextText))
	s := session.NewStore(session.DefaultLimits()).Get("k")
	_, _ = decodeInSession(s, prev, false)
	reused := len(messagesKept.Begin(s, next).Reused)
	got := outcomeOf(decodeInSession(s, next, false))
	want := outcomeOf(decodeRequest(next, false))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed decoding differs (reused %d)\nprev %s\nnext %s\ngot  %+v %+v %+v\nwant %+v %+v %+v",
			reused, prev, next, got.Err, got.Req, got.Violations, want.Err, want.Req, want.Violations)
	}
	if got.Err == nil && !got.AsReference {
		t.Fatalf("conversation %+v differs from the messages' reading\nnext %s", got.Conv, next)
	}
	if got.Prompt != got.PromptEncoded {
		t.Fatalf("prompt text from the messages' lines\n%s\ndiffers from\n%s", got.Prompt, got.PromptEncoded)
	}
	// What the session kept after next decodes a third request as a
	// fresh decode does.
	again := outcomeOf(decodeInSession(s, next, false))
	if !reflect.DeepEqual(again, want) {
		t.Fatalf("decoding next again differs\nnext %s", next)
	}
	return reused
}

// chatRound is one tool round: the assistant's call and its result.
func chatRound(i int) []string {
	return []string{
		fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris %d\"}"}}]}`, i, i),
		fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":"sunny %d"}`, i, i),
	}
}

func chatMessages(rounds int) []string {
	msgs := []string{`{"role":"system","content":"be brief"}`, `{"role":"user","content":[{"type":"text","text":"weather?"}],"name":"u"}`}
	for i := range rounds {
		msgs = append(msgs, chatRound(i)...)
	}
	return msgs
}

const chatTools = `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`

func chatBody(head string, msgs []string, tail string) string {
	return `{` + head + `"messages":[` + strings.Join(msgs, ",") + `]` + tail + `}`
}

func TestResumedMatchesFullDecode(t *testing.T) {
	head := `"model":"gpt-4o",`
	tail := `,"tools":` + chatTools + `,"tool_choice":"auto"`
	base := chatMessages(6)
	prev := chatBody(head, base, tail)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := []struct {
		name   string
		next   string
		reuses bool // some messages must be reused
	}{
		{"identical", prev, true},
		{"next round", chatBody(head, with(chatRound(6)...), tail), true},
		{"next round, spaced", chatBody(head, with(chatRound(6)...), tail)[:0] + `{` + head + `"messages":[` + strings.Join(with(chatRound(6)...), " ,\n ") + ` ]` + tail + `}`, false},
		{"different model", chatBody(`"model":"gpt-4.1",`, with(chatRound(6)...), tail), false},
		{"unknown model member after the array", chatBody(head, with(chatRound(6)...), tail+`,"modle":"x"`), true},
		{"model again after the array", chatBody(head, with(chatRound(6)...), tail+`,"model":"gpt-4.1"`), true},
		{"messages again after the array", chatBody(head, with(chatRound(6)...), tail+`,"messages":[]`), true},
		{"no tools", chatBody(head, with(chatRound(6)...), ``), true},
		{"wrong type in the new message", chatBody(head, with(`{"role":"user","content":5}`), tail), true},
		{"unknown member in the new message", chatBody(head, with(`{"role":"user","content":"x","id":"m1"}`), tail), true},
		{"role's extra member in the new message", chatBody(head, with(`{"role":"user","content":"x","refusal":"no"}`), tail), true},
		{"unpaired result in the new message", chatBody(head, with(`{"role":"tool","tool_call_id":"call_x","content":"?"}`), tail), true},
		{"bad tool_calls type in the new message", chatBody(head, with(`{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"a":1}}}]}`), tail), true},
		{"duplicate member in the new message", chatBody(head, with(`{"role":"user","content":"x","content":"y"}`), tail), true},
		{"trailing comma", `{` + head + `"messages":[` + strings.Join(base, ",") + `,]` + tail + `}`, false},
		{"syntax error in the tail", chatBody(head, with(`{"role":"user","content":"x"`), tail), true},
		{"invalid UTF-8 in the tail", chatBody(head, with("{\"role\":\"user\",\"content\":\"\xff\"}"), tail), true},
		{"truncated body", chatBody(head, with(chatRound(6)...), tail)[:len(prev)+20], true},
		{"earlier message changed", chatBody(head, append(append(chatMessages(3), `{"role":"tool","tool_call_id":"call_2","content":"rain"}`), base[8:]...), tail), true},
		{"messages removed", chatBody(head, base[:5], tail), true},
		{"first messages removed", chatBody(head, base[2:], tail), false},
		{"last message's end changed", chatBody(head, append(append([]string{}, base[:len(base)-1]...), `{"role":"tool","tool_call_id":"call_5","content":"sunny 55"}`), tail), true},
		{"result of a reused call", chatBody(head, append(append([]string{}, base[:len(base)-1]...), chatRound(6)[1], `{"role":"tool","tool_call_id":"call_5","content":"sunny"}`), tail), true},
		{"call id of a reused call again", chatBody(head, with(`{"role":"assistant","tool_calls":[{"id":"call_5","type":"function","function":{"name":"get_time","arguments":"{}"}}]}`, `{"role":"tool","tool_call_id":"call_5","content":"noon"}`), tail), true},
		{"call id again without a name", chatBody(head, with(`{"role":"assistant","tool_calls":[{"id":"call_5","type":"function","function":{"arguments":"{}"}}]}`, `{"role":"tool","tool_call_id":"call_5","content":"noon"}`), tail), true},
		{"run of results continued", chatBody(head, with(`{"role":"tool","tool_call_id":"call_4","content":"again"}`, `{"role":"function","name":"f","content":"x"}`, `{"role":"tool","tool_call_id":"call_3","content":"late"}`), tail), true},
		{"system message added", chatBody(head, with(`{"role":"developer","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, `{"role":"user","content":"go on"}`), tail), true},
		{"reordered keys", `{"tools":` + chatTools + `,"messages":[` + strings.Join(with(chatRound(6)...), ",") + `],"model":"gpt-4o"}`, false},
		{"empty array", chatBody(head, nil, tail), false},
		{"messages null", `{"model":"gpt-4o","messages":null}`, false},
		{"not an object", `[1]`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reused := checkResumed(t, prev, c.next)
			if c.reuses && reused == 0 {
				t.Fatalf("nothing reused: the case does not test resuming")
			}
		})
	}
}

// TestResumedMessageExtras: the members a role does not define are kept
// with their messages and journaled in the order a full decode gives.
func TestResumedMessageExtras(t *testing.T) {
	msgs := append(chatMessages(2), `{"role":"user","content":"x","tool_call_id":"t"}`)
	prev := chatBody(`"model":"gpt-4o",`, msgs, ``)
	next := chatBody(`"model":"gpt-4o",`, append(msgs, `{"role":"system","content":"y","refusal":"r"}`), ``)
	if reused := checkResumed(t, prev, next); reused != len(msgs) {
		t.Fatalf("reused %d messages, want %d", reused, len(msgs))
	}
	req, _ := decodeRequest([]byte(next), false)
	if len(req.MessageExtras) != 2 {
		t.Fatalf("extras %+v, want two", req.MessageExtras)
	}
}

// TestResumedLoop follows an agent loop: each request resends the last
// with one more round and reuses every message the last one held.
func TestResumedLoop(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	tail := `,"tools":` + chatTools
	for rounds := range 12 {
		body := resumetest.Padded([]byte(chatBody(`"model":"gpt-4o",`, chatMessages(rounds), tail)))
		reused := messagesKept.Begin(s, body).Reused
		if got, want := len(reused), max(0, 2+2*rounds-2); rounds > 0 && got != want {
			t.Fatalf("round %d reused %d messages, want %d", rounds, got, want)
		}
		req, err := decodeInSession(s, body, false)
		got := outcomeOf(req, err)
		want := outcomeOf(decodeRequest(body, false))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: resumed decoding differs", rounds)
		}
		if !req.turnPrompts {
			t.Fatalf("round %d: the kept messages' prompt lines were not made", rounds)
		}
		for i, m := range reused {
			if req.turns[i] != &m.turn {
				t.Fatalf("round %d: message %d's turn made again instead of reused", rounds, i)
			}
		}
	}
}

// TestResumedConcurrent: requests of one session decoded at once share
// what the session kept read only (go test -race).
func TestResumedConcurrent(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	tail := `,"tools":` + chatTools
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rounds := range 10 {
				body := resumetest.Padded([]byte(chatBody(`"model":"gpt-4o",`, chatMessages(rounds+w%2), tail)))
				got := outcomeOf(decodeInSession(s, body, false))
				want := outcomeOf(decodeRequest(body, false))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("worker %d round %d: resumed decoding differs", w, rounds)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// FuzzResumed: whatever two bodies a session receives one after the
// other, the second decodes as it would alone.
func FuzzResumed(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Good), []byte(c.Bad))
		f.Add([]byte(c.Bad), []byte(c.Good))
		f.Add([]byte(c.Good), []byte(c.Good))
	}
	base := chatMessages(3)
	prev := chatBody(`"model":"gpt-4o",`, base, `,"tools":`+chatTools)
	f.Add([]byte(prev), []byte(chatBody(`"model":"gpt-4o",`, append(base, chatRound(3)...), `,"tools":`+chatTools)))
	f.Fuzz(func(t *testing.T, prev, next []byte) {
		checkResumed(t, string(prev), string(next))
	})
}

package openairesp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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

func responsesRound(i int) []string {
	return []string{
		fmt.Sprintf(`{"type":"function_call","call_id":"call_%d","name":"get_weather","arguments":"{\"city\":\"Paris %d\"}"}`, i, i),
		fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"sunny %d"}`, i, i),
	}
}

func responsesInput(rounds int) []string {
	items := []string{`{"role":"user","content":"weather?"}`}
	for i := range rounds {
		items = append(items, responsesRound(i)...)
	}
	return items
}

const responsesHead = `"model":"gpt-4.1","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],`

func responsesBody(head string, items []string, tail string) string {
	return `{` + head + `"input":[` + strings.Join(items, ",") + `]` + tail + `}`
}

func TestResumedMatchesFullDecode(t *testing.T) {
	base := responsesInput(5)
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	next := with(responsesRound(5)...)
	h := responsesHead
	resumed.Run(t, responsesBody(h, base, ``), []resumetest.Case{
		{"identical", responsesBody(h, base, ``), true},
		{"next round", responsesBody(h, next, ``), true},
		{"instructions after the array", responsesBody(h, next, `,"instructions":"be brief","stream":true`), true},
		{"unknown member after the array", responsesBody(h, next, `,"inptu":[]`), true},
		{"input again after the array", responsesBody(h, next, `,"input":"hi"`), true},
		{"model again after the array", responsesBody(h, next, `,"model":"gpt-5"`), true},
		{"different model", responsesBody(strings.Replace(h, "gpt-4.1", "gpt-5", 1), next, ``), false},
		{"wrong type in the new item", responsesBody(h, with(`{"role":"user","content":5}`), ``), true},
		{"unknown member in the new item", responsesBody(h, with(`{"role":"user","content":"x","idx":"m"}`), ``), true},
		{"unknown type of the new item", responsesBody(h, with(`{"type":"nonsense"}`), ``), true},
		{"unpaired output", responsesBody(h, with(`{"type":"function_call_output","call_id":"call_x","output":"?"}`), ``), true},
		{"reference to an unknown item", responsesBody(h, with(`{"type":"item_reference","id":"fc_nope"}`), ``), true},
		{"duplicate member in the new item", responsesBody(h, with(`{"role":"user","content":"x","content":"y"}`), ``), true},
		{"trailing comma", `{` + h + `"input":[` + strings.Join(base, ",") + `,]}`, false},
		{"truncated", responsesBody(h, next, ``)[:len(responsesBody(h, base, ``))+30], true},
		{"earlier item changed", responsesBody(h, append(append(responsesInput(2), `{"role":"assistant","content":"no"}`), base[6:]...), ``), true},
		{"last item's end changed", responsesBody(h, append(append([]string{}, base[:len(base)-1]...), `{"type":"function_call_output","call_id":"call_4","output":"sunny 44"}`), ``), true},
		{"items removed", responsesBody(h, base[:4], ``), true},
		{"first item removed", responsesBody(h, base[1:], ``), false},
		{"input a string", `{` + h + `"input":"hi"}`, false},
		{"reordered keys", `{"input":[` + strings.Join(next, ",") + `],` + strings.TrimSuffix(h, ",") + `}`, false},
		{"empty array", responsesBody(h, nil, ``), false},
		{"not an object", `[1]`, false},
	})
}

func TestResumedLoop(t *testing.T) {
	var bodies [][]byte
	for rounds := range 10 {
		bodies = append(bodies, []byte(responsesBody(responsesHead, responsesInput(rounds), `,"store":false`)))
	}
	resumed.Loop(t, bodies, func(i int) int { return max(0, 2*i-1) })
}

func FuzzResumed(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Good), []byte(c.Bad))
		f.Add([]byte(c.Bad), []byte(c.Good))
	}
	base := responsesInput(3)
	f.Add([]byte(responsesBody(responsesHead, base, ``)), []byte(responsesBody(responsesHead, append(base, responsesRound(3)...), ``)))
	f.Fuzz(func(t *testing.T, prev, next []byte) { resumed.Check(t, prev, next) })
}

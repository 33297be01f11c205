package openaichat

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// memoBase reaches every kind of message, part and call, and a tool.
const memoBase = `{"model":"gpt-4o-mini","temperature":0.5,"stop":["END"],"tool_choice":"auto",
 "messages":[{"role":"system","content":"Be brief."},
  {"role":"user","content":[{"type":"text","text":"Weather?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}}]},
  {"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"days\":2}"}},
   {"id":"call_2","type":"function","function":{"name":"get_weather","arguments":{"city":"Rome","n":1.5,"list":[1,{"x":2}]}}}]},
  {"role":"tool","tool_call_id":"call_1","content":"22"},
  {"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"rain"}]}],
 "tools":[{"type":"function","function":{"name":"get_weather","description":"d","strict":false,"parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`

// memoEdits turn memoBase into bodies that break it inside a remembered
// value in every way decoding can fail or a rule can fire: the error a
// warm memo gives must be the one a fresh decode gives, path and all.
var memoEdits = []struct{ old, new string }{
	{"", ""},
	{`{"role":"system","content":"Be brief."}`, `{"role":"system","content":"Be brief.","foo":1}`},
	{`{"role":"system","content":"Be brief."}`, `{"role":"system","content":"Be brief.","refusal":"no"}`},
	{`{"role":"system","content":"Be brief."}`, `{"role":"sys","content":"Be brief."}`},
	{`{"role":"system","content":"Be brief."}`, `{"role":"system","content":5}`},
	{`{"role":"system","content":"Be brief."}`, `{"role":"system","content":5,"name":"a","name":"b"}`},
	{`{"role":"system","content":"Be brief."}`, `{"role":"system","content":5,"name":}`},
	{`{"role":"system","content":"Be brief."}`, `{"role":"system","content":"a","content":"b"}`},
	{`{"role":"system","content":"Be brief."}`, `{"content":"Be brief."}`},
	{`{"role":"system","content":"Be brief."}`, `null`},
	{`{"role":"system","content":"Be brief."}`, `7`},
	{`{"type":"text","text":"Weather?"}`, `{"type":"text","text":"Weather?","image_url":{"url":"x"}}`},
	{`{"type":"text","text":"Weather?"}`, `{"type":"txt","text":"Weather?"}`},
	{`{"type":"text","text":"Weather?"}`, `{"text":"Weather?"}`},
	{`"type":"function","function":{"name":"get_weather","arguments":"{`, `"type":"function","custom":{"name":"x","input":""},"function":{"name":"get_weather","arguments":"{`},
	{`{"id":"call_1","type":"function",`, `{"type":"function",`},
	{`"arguments":"{\"city\":\"Paris\",\"days\":2}"`, `"arguments":"not json"`},
	{`"arguments":"{\"city\":\"Paris\",\"days\":2}"`, `"arguments":null`},
	{`"arguments":"{\"city\":\"Paris\",\"days\":2}"`, `"arguments":12`},
	{`"tool_call_id":"call_1"`, `"tool_call_id":"call_9"`},
	{`"description":"d",`, `"description":"d","foo":1,`},
	{`{"type":"function","function":{"name":"get_weather","description"`, `{"type":"function","custom":{"name":"x"},"function":{"name":"get_weather","description"`},
	{`"strict":false`, `"strict":"no"`},
	{`"model":"gpt-4o-mini"`, `"model":4`},
}

// memoBodies are every body the rule cases send and memoBase's edits.
func memoBodies() []string {
	var out []string
	for _, c := range RuleCases() {
		for _, b := range c.Setup {
			out = append(out, string(b))
		}
		out = append(out, string(c.Bad), string(c.Good))
	}
	for _, e := range memoEdits {
		out = append(out, strings.Replace(memoBase, e.old, e.new, 1))
	}
	return out
}

// decoded is everything a decode decides: the checks' view or the error,
// the conversation, and the rules' verdicts.
type decoded struct {
	req   *Request
	err   wire.APIError
	convo any
	found []rules.Violation
}

func decodeAll(memos memoOptions, body string, lenient bool) decoded {
	req, err := decodeThrough(memos, []byte(body), lenient)
	if err != nil {
		return decoded{err: *err}
	}
	env := &rules.Env{Options: rules.DefaultOptions(), Model: req.Model}
	env.Options.Lenient = lenient
	return decoded{req: req, convo: toConversation(req), found: rules.Run(catalog(), req, env)}
}

func freshMemos() *wirejson.Memos {
	return wirejson.NewMemos(&wirejson.Memo[toolList]{}, &wirejson.Memo[message]{})
}

// TestMemoDecodesAsFresh: for every body, a decode through a warm memo
// (every other body decoded through it first, then this one twice) gives
// exactly what a decode without the messages' memo gives (through the
// tools' alone, as before messages were remembered): the request, the
// error with its path, the conversation and the rule verdicts, strict and
// lenient.
func TestMemoDecodesAsFresh(t *testing.T) {
	bodies := memoBodies()
	for _, lenient := range []bool{false, true} {
		memos := freshMemos()
		for _, b := range bodies {
			decodeAll(memos, b, lenient)
		}
		for i, b := range bodies {
			want := decodeAll(&toolsMemo, b, lenient)
			decodeAll(memos, b, lenient)
			got := decodeAll(memos, b, lenient)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("lenient=%v body %d: through the memo\n%+v\nafresh\n%+v\nbody %s", lenient, i, got, want, b)
			}
		}
	}
}

// TestMemoIsHit: the second request sending the same messages and tools
// gets the values the first one read (the same backing arrays), and a
// changed message is read afresh.
func TestMemoIsHit(t *testing.T) {
	memos := freshMemos()
	first, err := decodeThrough(memos, []byte(memoBase), false)
	if err != nil {
		t.Fatal(err)
	}
	// The same messages and tools in another request: other members,
	// other spacing between them, one more message.
	again := strings.Replace(memoBase, `"temperature":0.5,`, `"temperature":0.7, `, 1)
	again = strings.Replace(again, `"content":[{"type":"text","text":"rain"}]}]`, `"content":[{"type":"text","text":"rain"}]},{"role":"user","content":[{"type":"text","text":"Thanks"}]}]`, 1)
	second, err := decodeThrough(memos, []byte(again), false)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range first.Messages {
		n := second.Messages[i]
		if len(m.Parts) > 0 && &m.Parts[0] != &n.Parts[0] || len(m.ToolCalls) > 0 && &m.ToolCalls[0] != &n.ToolCalls[0] {
			t.Errorf("message %d was decoded again", i)
		}
	}
	if &first.Tools[0] != &second.Tools[0] {
		t.Error("tools were decoded again")
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Index != 5 || last.Parts[0].Text != "Thanks" || &last.Parts[0] == &first.Messages[4].Parts[0] {
		t.Errorf("the new message: %+v", last)
	}
}

// FuzzMemoDecodesAsFresh: any body, JSON or not, decoded through a warm
// group of memos (twice, so the second finds what the first kept) gives
// exactly what decoding it without any memo gives: the request, the error
// with its path, the conversation and the rule verdicts, strict and
// lenient. The memos are shared by every input a fuzz process runs, so a
// value one body put there is found by the next.
func FuzzMemoDecodesAsFresh(f *testing.F) {
	for _, b := range memoBodies() {
		f.Add([]byte(b), false)
		f.Add([]byte(b), true)
	}
	memos := freshMemos()
	f.Fuzz(func(t *testing.T, body []byte, lenient bool) {
		fresh := decodeAll(nil, string(body), lenient)
		for i := range 2 {
			if memo := decodeAll(memos, string(body), lenient); !reflect.DeepEqual(memo, fresh) {
				t.Fatalf("body %q (lenient %v), decode %d through the memos:\n%s\nafresh:\n%s", body, lenient, i+1, memo.show(), fresh.show())
			}
		}
	})
}

// show spells out a decode for a failure message: what the pointers
// point at, not their addresses.
func (d decoded) show() string {
	var req any = d.req
	if d.req != nil {
		req = *d.req
	}
	var convo any = d.convo
	if c, ok := d.convo.(*conv.Conversation); ok && c != nil {
		convo = *c
	}
	return fmt.Sprintf("request %+v\nerror %+v\nconversation %+v\nviolations %+v", req, d.err, convo, d.found)
}

package gemini

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// memoBase reaches every kind of part the conversation reads, a system
// instruction and both schema forms of a declaration.
const memoBase = `{"systemInstruction":{"parts":[{"text":"Be brief."}]},
 "contents":[{"role":"user","parts":[{"text":"Weather?"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/f.pdf"}}]},
  {"role":"model","parts":[{"text":"thinking","thought":true},{"functionCall":{"id":"c1","name":"get_weather","args":{"city":"Paris","n":1.5}},"thoughtSignature":"CiQBDDnWx8Q="},{"functionCall":{"name":"get_time","args":{}}}]},
  {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"get_weather","response":{"error":"down"}}},{"functionResponse":{"name":"get_time","response":{"output":"noon"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo=","displayName":"a.png"}}]}}]}],
 "tools":[{"functionDeclarations":[{"name":"get_weather","description":"d","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING","enum":["Paris"]}},"required":["city"]}},
   {"name":"get_time","parametersJsonSchema":{"type":"object"}}]}],
 "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}},
 "generationConfig":{"maxOutputTokens":64,"stopSequences":["END"]}}`

// memoEdits break memoBase inside a remembered value in every way
// decoding can fail or a rule can fire.
var memoEdits = []struct{ old, new string }{
	{"", ""},
	{`{"text":"Weather?"}`, `{"text":"Weather?","foo":1}`},
	{`{"text":"Weather?"}`, `{"text":5}`},
	{`{"text":"Weather?"}`, `{"text":5,"thought":true,"thought":false}`},
	{`{"text":"Weather?"}`, `{"text":5,"thought":}`},
	{`{"text":"Weather?"}`, `{"text":"a","text":"b"}`},
	{`{"role":"user","parts":[{"text":"Weather?"}`, `{"role":"tool","parts":[{"text":"Weather?"}`},
	{`{"role":"user","parts":[{"text":"Weather?"}`, `{"Role":"user","PARTS":[{"text":"Weather?"}`},
	{`"thoughtSignature":"CiQBDDnWx8Q="`, `"thoughtSignature":"not base64!"`},
	{`"args":{"city":"Paris","n":1.5}`, `"args":"{\"city\":\"Paris\"}"`},
	{`"response":{"error":"down"}`, `"response":["down"]`},
	{`"response":{"error":"down"}`, `"response":{"output":"up"}`},
	{`{"role":"model","parts":[{"text":"thinking","thought":true},`, `{"role":"model","parts":[`},
	{`"type":"STRING","enum"`, `"type":["STRING","NULL"],"enum"`},
	{`"type":"STRING","enum"`, `"type":"STRING","additionalProperties":false,"enum"`},
	{`"required":["city"]`, `"required":["town"]`},
	{`"parametersJsonSchema":{"type":"object"}`, `"parametersJsonSchema":{"type":"object"},"parameters":{"type":"OBJECT"}`},
	{`{"parts":[{"text":"Be brief."}]}`, `{"parts":[{"text":"Be brief.","foo":1}]}`},
	{`{"parts":[{"text":"Be brief."}]}`, `null`},
	{`"mode":"ANY"`, `"mode":"SOMETIMES"`},
}

type memoBody struct{ path, body string }

// memoBodies are every body the rule cases send and memoBase's edits, on
// generateContent and, as a bare request and wrapped, on countTokens.
func memoBodies() []memoBody {
	var out []memoBody
	for _, c := range RuleCases() {
		for _, b := range c.Setup {
			out = append(out, memoBody{c.Path, string(b)})
		}
		out = append(out, memoBody{c.Path, string(c.Bad)}, memoBody{c.Path, string(c.Good)})
	}
	for _, e := range memoEdits {
		b := strings.Replace(memoBase, e.old, e.new, 1)
		out = append(out, memoBody{path3, b}, memoBody{path25, b},
			memoBody{"/v1beta/models/gemini-2.5-flash:countTokens", b},
			memoBody{"/v1beta/models/gemini-2.5-flash:countTokens", `{"generateContentRequest":` + b + `}`})
	}
	return out
}

// decoded is everything a decode decides: the request or the error, the
// conversation, and the rules' verdicts.
type decoded struct {
	req   *Request
	err   wire.APIError
	convo any
	found []rules.Violation
}

func decodeAll(memos *wirejson.Memos, b memoBody, lenient bool) decoded {
	action := b.path[strings.LastIndex(b.path, "/")+1:]
	model, method, _ := cutLast(action, ":")
	decode := decodeBodyThrough
	if method == methodCount {
		decode = decodeCountTokensThrough
	}
	req, err := decode(memos, []byte(b.body), lenient)
	if err != nil {
		return decoded{err: *err}
	}
	req.Model, req.Method = model, method
	env := &rules.Env{Options: rules.DefaultOptions(), Model: model}
	env.Options.Lenient = lenient
	return decoded{req: req, convo: toConversation(req), found: rules.Run(catalog(), req, env)}
}

func freshMemos() *wirejson.Memos {
	return wirejson.NewMemos(&wirejson.Memo[[]Tool]{}, &wirejson.Memo[Content]{})
}

// TestMemoDecodesAsFresh: for every body, a decode through a warm memo
// (every other body decoded through it first, then this one twice) gives
// exactly what a decode without any memo gives: the request, the error,
// the conversation and the rule verdicts, strict and lenient.
func TestMemoDecodesAsFresh(t *testing.T) {
	bodies := memoBodies()
	for _, lenient := range []bool{false, true} {
		memos := freshMemos()
		for _, b := range bodies {
			decodeAll(memos, b, lenient)
		}
		for i, b := range bodies {
			want := decodeAll(nil, b, lenient)
			decodeAll(memos, b, lenient)
			got := decodeAll(memos, b, lenient)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("lenient=%v body %d (%s): through the memo\n%+v\nafresh\n%+v\nbody %s", lenient, i, b.path, got, want, b.body)
			}
		}
	}
}

// TestMemoIsHit: the second request sending the same contents and tools
// gets the values the first one decoded (the same backing arrays), and a
// changed content is decoded afresh.
func TestMemoIsHit(t *testing.T) {
	memos := freshMemos()
	first, err := decodeBodyThrough(memos, []byte(memoBase), false)
	if err != nil {
		t.Fatal(err)
	}
	again := strings.Replace(memoBase, `"maxOutputTokens":64`, `"maxOutputTokens":65`, 1)
	again = strings.Replace(again, `"contents":[`, `"contents":[{"role":"user","parts":[{"text":"Hello"}]}, `, 1)
	second, err := decodeBodyThrough(memos, []byte(again), false)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range first.Contents {
		if &c.Parts[0] != &second.Contents[i+1].Parts[0] {
			t.Errorf("content %d was decoded again", i)
		}
	}
	if &first.SystemInstruction.Parts[0] != &second.SystemInstruction.Parts[0] {
		t.Error("the system instruction was decoded again")
	}
	if &first.Tools[0] != &second.Tools[0] {
		t.Error("tools were decoded again")
	}
	if c := second.Contents[0]; *c.Parts[0].Text != "Hello" {
		t.Errorf("the new content: %+v", c)
	}
}

// fuzzMemoPaths are the endpoints a fuzz input is decoded for (chosen by
// a byte): generateContent and countTokens, for a Gemini 2.5 and a
// Gemini 3 model (the rules read the model).
var fuzzMemoPaths = []string{
	path25, path3,
	"/v1beta/models/gemini-2.5-flash:countTokens",
	"/v1beta/models/gemini-3-flash-preview:countTokens",
}

// FuzzMemoDecodesAsFresh: any body, JSON or not, decoded through a warm
// group of memos (twice, so the second finds what the first kept) gives
// exactly what decoding it without any memo gives: the request, the
// error, the conversation and the rule verdicts, for generateContent and
// countTokens, strict and lenient. The memos are shared by every input a
// fuzz process runs, so a value one body put there is found by the next.
func FuzzMemoDecodesAsFresh(f *testing.F) {
	for _, b := range memoBodies() {
		which := uint8(max(0, slices.Index(fuzzMemoPaths, b.path)))
		f.Add(which, []byte(b.body), false)
		f.Add(which, []byte(b.body), true)
	}
	memos := freshMemos()
	f.Fuzz(func(t *testing.T, which uint8, body []byte, lenient bool) {
		b := memoBody{fuzzMemoPaths[int(which)%len(fuzzMemoPaths)], string(body)}
		fresh := decodeAll(nil, b, lenient)
		for i := range 2 {
			if memo := decodeAll(memos, b, lenient); !reflect.DeepEqual(memo, fresh) {
				t.Fatalf("body %q at %s (lenient %v), decode %d through the memos:\n%s\nafresh:\n%s", body, b.path, lenient, i+1, memo.show(), fresh.show())
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

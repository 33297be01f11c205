package openairesp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Decode must give exactly what it gave before the input array was copied
// once and the conversation built in one pass (decode_ref_test.go): the
// same Request, the same neutral conversation, the same error, and the
// same rule verdicts.

// decodeSeedBodies add to the rendering seeds the shapes the conversation
// builder and the argument decoder distinguish.
func decodeSeedBodies(tb testing.TB) [][]byte {
	out := renderSeedBodies(tb)
	for _, s := range []string{
		`{"model":"gpt-5","previous_response_id":"resp_prev","input":[{"type":"function_call_output","call_id":"call_a","output":"ok"},{"type":"item_reference","id":"msg_prev"},{"type":"item_reference","id":"nope"}]}`,
		`{"model":"gpt-5","previous_response_id":"resp_gone","input":"again"}`,
		`{"model":"gpt-5","input":[{"role":"system","content":"s1"},{"role":"developer","content":[{"type":"input_text","text":"d1"},{"type":"input_text","text":""}]},{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:image/png;base64,AAA"},{"type":"input_file","file_id":"file_1","filename":"f.pdf"},{"type":"input_file","file_data":"data:application/pdf;base64,BBB"},{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"input_image","file_id":"file_2"}]},{"role":"assistant","content":[{"type":"output_text","text":"b"},{"type":"refusal","refusal":"no"}]},{"role":"assistant","content":[]},{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"x"},{"text":"y"}],"encrypted_content":"gAAA"},{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{\"a\":[1,2.5,-0,1e400,{\"b\":null}],\"a\":{\"c\":true},\"d\":\"\\u00e9\\ud800\"}"},{"type":"function_call","call_id":"c2","name":"g","arguments":"null"},{"type":"function_call","call_id":"c3","name":"g","arguments":"[1]"},{"type":"function_call","call_id":"c4","name":"g","arguments":"{bad"},{"type":"function_call","call_id":"c5","name":"g","arguments":{"obj":1}},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"r"},{"type":"input_image","image_url":"https://i"}]},{"type":"function_call_output","call_id":"c2","output":"plain"},{"role":"user","content":"u"}]}`,
		`{"model":"m","input":[{"type":"message","role":"tool","content":"x"},{},{"type":"function_call","name":"f"},{"type":"reasoning"},{"type":"item_reference"}],"tool_choice":{"type":"allowed_tools","mode":"required"}}`,
		`{"model":"m","input":[1]}`, `{"model":"m","input":[{"role":1}]}`, `{"model":"m","input":{"role":"user"}}`, `{"model":"m","input":[]}`,
		`{"model":"m","input":"x","tool_choice":"none"}`, `{"model":"m","input":"x","tool_choice":{"Type":"function","NAME":"f"}}`, `{"model":"m","input":"x","tool_choice":7}`,
		`{"model":"m","input":"x","tools":[{"type":"function"},{"type":"function","name":"f","strict":"yes"}]}`,
		`{"model":"m","input":"x","tools":[{"type":"web_search"},{"name":"n"}]}`,
		`{"MODEL":"m","Input":"x"}`, `[]`, `null`, `{"model":"m","input":"x"} trailing`,
		"{\"model\":\"m\",\"input\":\"caf\xc3\xa9 \xff <&> \\u2028\"}",
		`{"model":"m","input":[{"typ\u0065":"function_call_output","call_id":"c","output":"o"}]}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// storedItems are what previous_response_id brings in: a message and a
// call with ids, an item json.Unmarshal refuses (skipped), one with an
// escaped key.
var storedItems = []string{
	`{"role":"user","content":"earlier"}`,
	`{"id":"msg_prev","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"hi"}],"phase":"final_answer","role":"assistant"}`,
	`{"id":"rs_prev","type":"reasoning","summary":[]}`,
	`{"id":"fc_prev","type":"function_call","status":"completed","arguments":"{\"x\":1}","call_id":"call_a","name":"f"}`,
	`{"type":1}`,
	`{"t\u0079pe":"function_call","call_id":"call_b","name":"g","arguments":"{}"}`,
}

func equivSession(items [][]byte) *session.Session {
	sess := session.NewStore(session.Limits{}).Get("sk-equiv")
	raws := make([]json.RawMessage, len(items))
	for i, it := range items {
		raws[i] = it
	}
	sess.PutResponse(&session.StoredResponse{ID: "resp_prev", Body: []byte(`{}`), Items: raws})
	sess.NoteReasoning("fc_prev", "rs_prev")
	return sess
}

func checkDecode(t *testing.T, body []byte, sess *session.Session) {
	t.Helper()
	var x *dialect.Exchange
	var env *rules.Env
	if sess != nil {
		x = &dialect.Exchange{Session: sess}
		env = &rules.Env{IssuedReasoning: sess.IssuedReasoning}
	}
	gotReq, gotConv, gotErr := New().Decode(x, body)
	wantReq, wantConv, wantErr := refDecode(x, body)
	if !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("Decode(%q) error %+v, want %+v", body, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if !reflect.DeepEqual(gotReq, wantReq) {
		t.Fatalf("Decode(%q) request\n got %+v\nwant %+v", body, gotReq, wantReq)
	}
	if !reflect.DeepEqual(gotConv, wantConv) {
		t.Fatalf("Decode(%q) conversation\n got %#v\nwant %#v", body, gotConv, wantConv)
	}
	set := New().Rules()
	if got, want := rules.Run(set, gotReq, env), rules.Run(set, wantReq, env); !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) verdicts\n got %+v\nwant %+v", body, got, want)
	}
}

func TestDecodeEquivalence(t *testing.T) {
	var stored [][]byte
	for _, s := range storedItems {
		stored = append(stored, []byte(s))
	}
	for _, body := range decodeSeedBodies(t) {
		checkDecode(t, body, nil)
		checkDecode(t, body, equivSession(stored))
	}
}

// FuzzDecodeEquivalence holds Decode to the reference on arbitrary bodies
// and stored items (a JSON array of them, when valid).
func FuzzDecodeEquivalence(f *testing.F) {
	var storedArray []json.RawMessage
	for _, s := range storedItems {
		storedArray = append(storedArray, json.RawMessage(s))
	}
	storedSeed, _ := json.Marshal(storedArray)
	for _, body := range decodeSeedBodies(f) {
		f.Add(body, storedSeed)
	}
	f.Fuzz(func(t *testing.T, body, stored []byte) {
		checkDecode(t, body, nil)
		var items [][]byte
		if jsonscan.Valid(stored) {
			items, _ = jsonscan.ParseArray(stored)
		}
		checkDecode(t, body, equivSession(items))
	})
}

// FuzzCallArguments holds callArguments to the json.Unmarshal it replaced.
func FuzzCallArguments(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `null`, `[1]`, `"s"`, `{bad`, ``, ` {"a":[1e400,-0,2.5e-3],"a":{"b":"\u00e9\ud800"},"c":null} `, "{\"\xff\":\"\xfe\"}", `{"n":1e-400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		want := map[string]any{}
		_ = json.Unmarshal([]byte(args), &want)
		if want == nil {
			want = map[string]any{}
		}
		if got := callArguments(args); !reflect.DeepEqual(got, want) {
			t.Fatalf("callArguments(%q) = %#v, want %#v", args, got, want)
		}
	})
}

// FuzzToString holds toString to jsonscan.ToString (itself held to
// json.Unmarshal) on every valid JSON value.
func FuzzToString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\u00e9\ud800\ud83d\ude00"`, "\"caf\xc3\xa9 \xff\"", ` "x" `, `null`, `1`, `{"a":"b"}`, `"{\"temperature\":18}"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) {
			return
		}
		got, gotOK := toString(v)
		want, wantOK := jsonscan.ToString(v)
		if got != want || gotOK != wantOK {
			t.Fatalf("toString(%q) = %q %v, want %q %v", v, got, gotOK, want, wantOK)
		}
	})
}

package openaichat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// FuzzDecodeMatchesReference checks decodeRequest, which walks tools on
// the bytes and caches the rendering of their parameters, against the
// generic-map decoder it replaced: same request, same error.
func FuzzDecodeMatchesReference(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	f.Add([]byte(`{"tools":[{"type":"function","function":{"name":"f","parameters":{"b":1,"a":"<&>","a":[1.50,null]},"strict":true}}]}`))
	f.Add([]byte(`{"tools":null}`))
	f.Add([]byte(`{"tools":[null,1]}`))
	f.Add([]byte(`{"tools":[{"function":[]}],"tools":[{"type":"custom","function":{"parameters":"x","strict":1}}]}`))
	f.Add([]byte(`{"tools":{"a":1}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, b := range benchBodies(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for range 2 { // the second pass is served from the cache
			got, gotErr := decodeRequest(body)
			want, wantErr := referenceDecodeRequest(body)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("decodeRequest(%q)\n got %+v %+v\nwant %+v %+v", body, got, gotErr, want, wantErr)
			}
		}
	})
}

// benchBodies are the load benchmark's Chat bodies, the request shapes the
// fast paths are for.
func benchBodies(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, turn := range []string{"call", "result"} {
		b, err := os.ReadFile(filepath.Join("..", "benchmarks", "testdata", "openai-chat."+turn+".json"))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// decodeSeeds reach every field and every error of the span decoder:
// escaped and repeated keys, null members, each type and value error.
var decodeSeeds = []string{
	`{"m\u006fdel":"x","model":null,"model":"y","messages":[{"role":"us\u0065r","content":"a"},{"role":"assistant","content":null,"tool_calls":[]}],"stream":true,"stream":false}`,
	`{"model":1.5}`, `{"model":7}`, `{"model":"m","messages":{}}`, `{"messages":[null]}`, `{"messages":[1]}`, `{"messages":[{"role":5}]}`,
	`{"messages":[{"role":"robot"}]}`, `{"messages":[{"role":""}]}`, `{"messages":[{"content":true}]}`, `{"messages":[{"content":[]}]}`,
	`{"messages":[{"content":[null]}]}`, `{"messages":[{"content":[{"type":1}]}]}`, `{"messages":[{"content":[{"type":"video"}]}]}`,
	`{"messages":[{"content":[{"type":"text","text":2}]}]}`, `{"messages":[{"content":[{"refusal":{}}]}]}`,
	`{"messages":[{"content":[{"type":"image_url","image_url":"http://x"}]}]}`, `{"messages":[{"content":[{"type":"image_url","image_url":{"url":1}}]}]}`,
	`{"messages":[{"content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","url":"u2"}}]}]}`,
	`{"messages":[{"content":[{"type":"input_audio","input_audio":{"data":"QQ==","format":"wav"}},{"type":"input_audio","input_audio":[1]}]}]}`,
	`{"messages":[{"content":[{"type":"input_audio","input_audio":{"data":"QQ==","format":3}}]}]}`,
	`{"messages":[{"content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,QQ==","file_id":"f","filename":"a.pdf"}}]}]}`,
	`{"messages":[{"content":[{"type":"file","file":{"file_id":null,"filename":false}}]}]}`, `{"messages":[{"content":[{"type":"file","file":"x"}]}]}`,
	`{"messages":[{"role":"user","refusal":1}]}`, `{"messages":[{"role":"user","name":[]}]}`, `{"messages":[{"role":"tool","tool_call_id":2}]}`,
	`{"messages":[{"role":"tool","tool_call_id":null,"content":"x"}]}`, `{"messages":[{"role":"assistant","tool_calls":{}}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[null]}]}`, `{"messages":[{"role":"assistant","tool_calls":[{"id":1}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"web"}]}]}`, `{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":5}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":"f"}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":3}}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"custom","function":null},{"id":"b","type":"function","function":{"name":"f","arguments":null}}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"x":1.5,"y":[1,{"z":null}]}}}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":12}}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"big\":1e400}"}}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":" null "}}]}]}`,
	`{"tools":[{"type":7}]}`, `{"tools":[{"type":"web"}]}`, `{"tools":[{"type":"function","function":"f"}]}`, `{"tools":[{"type":"function","function":{"name":1}}]}`,
	`{"tools":[{"type":"function","function":{"name":"f","description":{}}}]}`, `{"tools":[{"type":"function","function":{"name":"f","strict":"yes"}}]}`,
	`{"tools":[{"type":"function","function":{"name":"f","parameters":null,"strict":null}}]}`, `{"tools":"x"}`,
	`{"tool_choice":"auto"}`, `{"tool_choice":"sometimes"}`, `{"tool_choice":{"type":"function","function":{"name":"f"}}}`, `{"tool_choice":{"type":"function"}}`,
	`{"tool_choice":{"type":"allowed_tools"}}`, `{"tool_choice":{}}`, `{"tool_choice":{"type":"x"}}`, `{"tool_choice":3}`, `{"tool_choice":null}`,
	`{"parallel_tool_calls":false}`, `{"parallel_tool_calls":"no"}`, `{"parallel_tool_calls":null}`, `{"stream":1}`,
	`{"stream_options":{"include_usage":true}}`, `{"stream_options":{"include_usage":"y"}}`, `{"stream_options":[]}`, `{"stream_options":{"include_usage":null}}`,
	"{\"messages\":[{\"role\":\"user\",\"content\":\"caf\xc3\xa9 \xff\",\"n\xffame\":1}]}",
	` { "model" : "m" , "messages" : [ { "role" : "user" , "content" : [ { "type" : "text" , "text" : "hi" } ] } ] } `,
}

// referenceDecodeRequest and referenceDecodeTool are the decoder as it was
// before tools were walked on the bytes.
func referenceDecodeRequest(body []byte) (*Request, *wire.APIError) {
	// One JSON value and nothing after it but space, as a json.Decoder
	// followed by io.EOF would demand; then decoded with UseNumber
	// semantics in one walk.
	if !json.Valid(body) {
		return nil, openaiwire.InvalidJSON()
	}
	obj, ok := jsonscan.AnyNumber(body).(map[string]any)
	if !ok {
		return nil, openaiwire.InvalidJSON()
	}
	req := &Request{}
	if v, ok := obj["model"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, invalidType("model", "a string", v)
		}
		req.Model, req.HasModel = s, s != ""
	}
	if v, ok := obj["messages"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidType("messages", "an array", v)
		}
		req.HasMessages = true
		req.Messages = make([]Message, 0, len(arr))
		for i, raw := range arr {
			m, err := refDecodeMessage(i, raw)
			if err != nil {
				return nil, err
			}
			req.Messages = append(req.Messages, m)
		}
	}
	if v, ok := obj["tools"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidType("tools", "an array", v)
		}
		for i, raw := range arr {
			t, err := referenceDecodeTool(i, raw)
			if err != nil {
				return nil, err
			}
			req.Tools = append(req.Tools, t)
		}
	}
	if v, ok := obj["tool_choice"]; ok && v != nil {
		tc, err := decodeToolChoice(v)
		if err != nil {
			return nil, err
		}
		req.ToolChoice = tc
	}
	if v, ok := obj["parallel_tool_calls"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, invalidType("parallel_tool_calls", "a boolean", v)
		}
		req.ParallelToolCalls = &b
	}
	if v, ok := obj["stream"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, invalidType("stream", "a boolean", v)
		}
		req.Stream = b
	}
	if v, ok := obj["stream_options"]; ok && v != nil {
		so, ok := v.(map[string]any)
		if !ok {
			return nil, invalidType("stream_options", "an object", v)
		}
		req.StreamOptionsSent = true
		if u, ok := so["include_usage"]; ok && u != nil {
			b, ok := u.(bool)
			if !ok {
				return nil, invalidType("stream_options.include_usage", "a boolean", u)
			}
			req.IncludeUsage = b
		}
	}
	return req, nil
}

func referenceDecodeTool(i int, raw any) (Tool, *wire.APIError) {
	path := "tools[" + strconv.Itoa(i) + "]"
	t := Tool{Index: i}
	obj, ok := raw.(map[string]any)
	if !ok {
		return t, invalidType(path, "an object", raw)
	}
	var err *wire.APIError
	if t.Type, t.HasType, err = refOptString(obj, "type", path, ""); err != nil {
		return t, err
	}
	if t.HasType && t.Type != "function" && t.Type != "custom" {
		return t, invalidValue(path+".type", t.Type, []string{"function", "custom"})
	}
	fn, ok := obj["function"]
	if !ok || fn == nil {
		return t, nil
	}
	f, ok := fn.(map[string]any)
	if !ok {
		return t, invalidType(path+".function", "an object", fn)
	}
	t.HasFunction = true
	if t.Name, t.HasName, err = refOptString(f, "name", path, ".function"); err != nil {
		return t, err
	}
	if t.Description, _, err = refOptString(f, "description", path, ".function"); err != nil {
		return t, err
	}
	if p, ok := f["parameters"]; ok && p != nil {
		// Kept as JSON even when it is not an object: the schema rule
		// reports that in the API's words.
		b, _ := json.Marshal(p)
		t.Parameters = b
	}
	if s, ok := f["strict"]; ok && s != nil {
		b, ok := s.(bool)
		if !ok {
			return t, invalidType(path+".function.strict", "a boolean", s)
		}
		t.Strict = b
	}
	return t, nil
}

// FuzzConversationMatchesReference holds the whole of Decode (the span
// decoder, then toConversation with its call-name index and argument fast
// path) to the reference decoder and mapping: the same conversation, and
// the same request after it (the mapping normalizes object arguments in
// place).
func FuzzConversationMatchesReference(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, b := range benchBodies(f) {
		f.Add(b)
	}
	f.Add([]byte(manyCallsBody(20)))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"a","function":{"name":"g","arguments":"[1]"}}]},{"role":"tool","tool_call_id":"a","content":"x"},{"role":"function","content":"y"},{"role":"tool","tool_call_id":"z","content":[{"type":"text","text":"t"},{"type":"image_url","image_url":{"url":"http://i"}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"system","content":"a"},{"role":"developer","content":[{"type":"text","text":"b"},{"type":"text","text":"c"}]},{"role":"system","content":""},{"role":"assistant","content":[{"type":"refusal","refusal":"no"},{"type":"text","text":"t"}],"refusal":"r"},{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"QQ==","format":"mp3"}},{"type":"file","file":{"file_data":"QQ==","filename":"f"}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"n\":1e400}"}},{"id":"b","type":"function","function":{"name":"f","arguments":"\u00a0"}},{"id":"c","type":"function","function":{"name":"f","arguments":{"n":1e400,"m":[2]}}},{"id":"d","type":"function","function":{"name":"f","arguments":[true]}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gotErr := decodeRequest(body)
		want, wantErr := referenceDecodeRequest(body)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("decodeRequest(%q)\n got %+v %+v\nwant %+v %+v", body, got, gotErr, want, wantErr)
		}
		if gotErr != nil {
			return
		}
		gotConv, wantConv := toConversation(got), refToConversation(want)
		if !reflect.DeepEqual(gotConv, wantConv) {
			t.Fatalf("toConversation(%q)\n got %+v\nwant %+v", body, gotConv, wantConv)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("request after toConversation(%q)\n got %+v\nwant %+v", body, got, want)
		}
	})
}

// manyCallsBody is an assistant message with n calls and their n results:
// past the call-name index's in-place capacity.
func manyCallsBody(n int) string {
	var calls, results []string
	for i := range n {
		id := "call_" + strconv.Itoa(i%(n-2)) // a few ids repeat
		calls = append(calls, `{"id":"`+id+`","type":"function","function":{"name":"f`+strconv.Itoa(i)+`","arguments":"{\"i\":`+strconv.Itoa(i)+`}"}}`)
		results = append(results, `{"role":"tool","tool_call_id":"`+id+`","content":"r`+strconv.Itoa(i)+`"}`)
	}
	return `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[` + strings.Join(calls, ",") + `]},` + strings.Join(results, ",") + `]}`
}

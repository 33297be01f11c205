package openairesp

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The direct writers (appendResponse, appendItem, the stream's events,
// jsonscan.AppendCompact) must give exactly the bytes of the tree encoder they
// replaced (render_ref_test.go), through json.Marshal where the old code
// went through it.

// renderSeedBodies are request bodies whose fragments reach the response
// verbatim: the rule cases, the load benchmark's bodies (pretty-printed,
// so whitespace to compact), and bodies with HTML characters, U+2028 and
// escapes inside echoed fragments.
func renderSeedBodies(tb testing.TB) [][]byte {
	var out [][]byte
	for _, rc := range RuleCases() {
		out = append(out, []byte(rc.Bad), []byte(rc.Good))
		for _, s := range rc.Setup {
			out = append(out, []byte(s))
		}
	}
	for _, turn := range []string{"call", "result"} {
		b, err := os.ReadFile(filepath.Join("..", "benchmarks", "testdata", "openai-responses."+turn+".json"))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	out = append(out,
		[]byte("{\"model\":\"o3 <b>&amp;</b>\",\"instructions\":\"be <brief> & \u2028 kind\\u2029\",\"metadata\": {\"k\" : \"<v>\"},\n"+
			"\"reasoning\":{ \"effort\":\"low\" },\"text\":{\"format\":{\"type\":\"json_schema\", \"name\":\"x&y\"}},\"tool_choice\": {\"type\":\"function\",\"name\":\"f\"},"+
			"\"max_output_tokens\": 100,\"store\":false,\"parallel_tool_calls\":false,\"previous_response_id\":\"resp_<1>\",\"include\":[\"reasoning.encrypted_content\"],"+
			"\"tools\":[{\"type\":\"web_search\", \"note\":\"a > b\"},{\"type\":\"function\",\"name\":\"f\",\"description\":\"d\\u003c\\\"q\\\"\",\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"],\"additionalProperties\":false}},"+
			"{\"type\":\"function\",\"name\":\"g\",\"parameters\":null,\"strict\":true},{\"type\":\"function\",\"name\":\"h\",\"parameters\":{\"type\":\"object\"}}],"+
			"\"input\":\"hi \\ud83d\\ude00 \\\\ \\\" \\t\"}"),
		[]byte(`{"model":"gpt-4.1","input":[],"tool_choice":"required","reasoning":"high","text":[1],"metadata":null,"instructions":null,"max_output_tokens":null}`),
		[]byte(`{"model":"","input":"x","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"p":{"type":"array"}}}}]}`),
		[]byte("\t{ \"model\" : \"gpt-5\" , \"input\" : [ { \"role\" : \"user\" , \"content\" : \"a\\u2028b\" } ] , \"metadata\" : { \"a\" : [ 1 , 2.50 , -0 , 1e3 , true , null ] } }\r\n"),
	)
	return out
}

// renderSeedItems are output item sets covering every item kind and form.
func renderSeedItems() [][]planned {
	odd := "ünïcødé 東京 🌍 <tag> & \u2028 \u2029 \"q\" \\ \n\t\x01 bad \xff\xfe end"
	return [][]planned{
		nil,
		{{kind: "message", id: "msg_1", text: "The weather in Paris is 18°C.", phase: "final_answer"}},
		{{kind: "function_call", id: "fc_1", callID: "call_1", name: "get_weather", args: `{"city":"Paris","units":"celsius"}`}},
		{
			{kind: "reasoning", id: "rs_1", summary: "Thinking about <it> & more", encrypted: "gAAAAAxyz=="},
			{kind: "message", id: "msg_2", text: odd, phase: "commentary"},
			{kind: "function_call", id: "fc_2", callID: "call_2", name: "f", args: `{"a":"<b>"}`},
			{kind: "function_call", id: "fc_3", callID: "call_3", name: "g", args: `not json {`},
		},
		{{kind: "reasoning", id: "rs_2"}, {kind: "message", id: "msg_3", text: "no", refusal: true, phase: "final_answer"}},
		{{kind: "message", id: "msg_4", text: "", phase: "final_answer"}, {kind: "message", id: "msg_5", text: odd, refusal: true, phase: "final_answer"}},
		{{kind: "function_call", id: "fc_4", callID: "call_4", name: "h", args: ""}},
	}
}

func pointers(items []planned) []*planned {
	out := make([]*planned, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// checkRender compares every rendering of one request and item set.
func checkRender(t *testing.T, req *Request, items []planned) {
	t.Helper()
	ptrs := pointers(items)
	const id, created = "resp_0123<&>", int64(1767225600)
	// usage
	u := usageFor(req, items)
	got := appendUsage(nil, &u)
	want, err := refUsageFor(req, ptrs).MarshalJSON()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("usage:\n got %s\nwant %s (%v)", got, want, err)
	}
	// the Response object in each form
	errObj := object{{"code", "server_error"}, {"message", "boom <&>"}}
	errJSON, _ := errObj.MarshalJSON()
	for _, status := range []string{"completed", "in_progress", "failed"} {
		for _, withUsage := range []bool{false, true} {
			for _, withErr := range []bool{false, true} {
				var gu *usage
				var wu, we any
				var ge []byte
				if withUsage {
					gu, wu = &u, refUsageFor(req, ptrs)
				}
				if withErr {
					ge, we = errJSON, errObj
				}
				spans := make([]span, len(items))
				got := appendResponse(nil, req, id, created, items, form{status: status, usage: gu, errJSON: ge, spans: spans})
				wantObj := refResponseObject(req, id, created, ptrs, status, wu, we)
				want, err := wantObj.MarshalJSON()
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("response %s usage=%v err=%v:\n got %s\nwant %s (%v)", status, withUsage, withErr, got, want, err)
				}
				// the compact form is what json.Marshal makes of it
				compact := appendResponse(nil, req, id, created, items, form{status: status, usage: gu, errJSON: ge, compact: true})
				if want, err := json.Marshal(wantObj); err != nil || !bytes.Equal(compact, want) {
					t.Fatalf("compact response %s usage=%v err=%v:\n got %s\nwant %s (%v)", status, withUsage, withErr, compact, want, err)
				}
				if status == "completed" {
					for i, s := range spans {
						want, _ := refItem(ptrs[i], true).MarshalJSON()
						if !bytes.Equal(got[s.start:s.end], want) {
							t.Fatalf("item %d span %s, want %s", i, got[s.start:s.end], want)
						}
					}
				}
			}
		}
	}
	// the completed response as Encode renders it, and its stored items
	done := completedResponse(req, id, created, items)
	wantDone, _ := refResponseObject(req, id, created, ptrs, "completed", refUsageFor(req, ptrs), nil).MarshalJSON()
	if !bytes.Equal(done.body, wantDone) {
		t.Fatalf("completed:\n got %s\nwant %s", done.body, wantDone)
	}
	for i := range items {
		want, _ := refItem(ptrs[i], true).MarshalJSON()
		if got := done.item(i); !bytes.Equal(got, want) || cap(got) != len(got) {
			t.Fatalf("stored item %d = %s (cap %d), want %s", i, got, cap(got), want)
		}
		for _, done := range []bool{false, true} {
			want, _ := refItem(ptrs[i], done).MarshalJSON()
			if got := appendItem(nil, &items[i], done); !bytes.Equal(got, want) {
				t.Fatalf("item %d done=%v = %s, want %s", i, done, got, want)
			}
		}
	}
	// the stream, at several fragment sizes
	for _, size := range []int{0, 1, 3, 12, 1000} {
		newRec, refRec := httptest.NewRecorder(), httptest.NewRecorder()
		var newEvents, refEvents []string
		ns, rs := wire.NewSSE(newRec, wire.StreamConfig{}, ""), wire.NewSSE(refRec, wire.StreamConfig{}, "")
		ns.Transcript = func(ev string, data []byte) { newEvents = append(newEvents, ev+" "+string(data)) }
		rs.Transcript = func(ev string, data []byte) { refEvents = append(refEvents, ev+" "+string(data)) }
		called := false
		if err := writeEvents(ns, req, id, created, items, done, size, func() { called = true }); err != nil {
			t.Fatal(err)
		}
		refStream(rs, req, id, created, ptrs, refResponseObject(req, id, created, ptrs, "completed", refUsageFor(req, ptrs), nil), size)
		if !called {
			t.Fatal("beforeCompleted not called")
		}
		if newRec.Body.String() != refRec.Body.String() {
			t.Fatalf("stream (size %d) differs:\n got %s\nwant %s", size, newRec.Body, refRec.Body)
		}
		if !slices.Equal(newEvents, refEvents) {
			t.Fatalf("stream transcript (size %d) differs", size)
		}
		// an injected failure after it
		st := &streamState{req: req, id: id, created: created}
		d := New()
		d.streams.Store(ns, st)
		for _, e := range []*wire.APIError{
			{Type: "server_error", Message: "The server had an error <&>."},
			{Type: "invalid_request_error", Code: "rate_limit_exceeded", Param: "input", Message: "x"},
		} {
			d.StreamError(ns, e)
			refStreamError(rs, st, e)
		}
		if newRec.Body.String() != refRec.Body.String() {
			t.Fatalf("stream error (size %d) differs:\n got %s\nwant %s", size, newRec.Body, refRec.Body)
		}
	}
}

// decodeOffline decodes a body as the server would, without a session.
func decodeOffline(body []byte) (*Request, bool) {
	reqAny, _, aerr := New().Decode(nil, body)
	if aerr != nil {
		return nil, false
	}
	return reqAny.(*Request), true
}

func TestRenderEquivalence(t *testing.T) {
	n := 0
	for _, body := range renderSeedBodies(t) {
		req, ok := decodeOffline(body)
		if !ok {
			continue
		}
		for _, items := range renderSeedItems() {
			checkRender(t, req, items)
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d combinations decoded", n)
	}
}

// FuzzRenderEquivalence holds the direct writers to the tree encoder on
// arbitrary request bodies and output texts.
func FuzzRenderEquivalence(f *testing.F) {
	for i, body := range renderSeedBodies(f) {
		f.Add(body, "Hello <world> & \u2028 \xff", "sum", `{"a":1}`, uint8(i))
	}
	f.Fuzz(func(t *testing.T, body []byte, text, summary, args string, flags uint8) {
		req, ok := decodeOffline(body)
		if !ok {
			return
		}
		var items []planned
		if flags&1 != 0 {
			items = append(items, planned{kind: "reasoning", id: "rs_" + summary, summary: summary, encrypted: text})
		}
		if flags&2 != 0 {
			items = append(items, planned{kind: "message", id: "msg_" + text, text: text, refusal: flags&4 != 0, phase: summary})
		}
		if flags&8 != 0 {
			items = append(items, planned{kind: "function_call", id: "fc_1", callID: args, name: text, args: args})
		}
		if flags&16 != 0 {
			items = append(items, planned{kind: "function_call", id: "fc_2", callID: "c", name: "n", args: text})
		}
		checkRender(t, req, items)
	})
}

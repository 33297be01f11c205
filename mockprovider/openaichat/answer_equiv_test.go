package openaichat

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// FuzzAnswerMatchesReference runs a body through the dialect's whole half
// of the pipeline twice, as it is and as it was (reference decoder,
// mapping, rule checks and encoder): the same verdicts, and the same
// status, headers and bytes answered, streamed or not. Rule-breaking
// bodies are answered too, as in lenient mode.
func FuzzAnswerMatchesReference(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, b := range benchBodies(f) {
		f.Add(b)
		f.Add(bytes.Replace(b, []byte(`"stream": false`), []byte(`"stream": true, "stream_options": {"include_usage": true}`), 1))
	}
	f.Add([]byte(manyCallsBody(20)))
	f.Add([]byte(`{"model":"gpt-4o","stream":true,"tool_choice":"required","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string","enum":["a<b"]}}}}}],"messages":[{"role":"user","content":"call f"}]}`))
	f.Add([]byte(`{"model":"o3","tool_choice":{"type":"function","function":{"name":"g"}},"tools":[{"type":"function","function":{"name":"f"}},{"type":"function","function":{"name":"g","parameters":{"type":"object","properties":{"x":{"type":"array","items":{"type":"number"}}}}}}],"messages":[{"role":"user","content":"hi"}]}`))
	engine := &model.Engine{}
	catalogNow, catalogThen := catalog(), refCatalog()
	f.Fuzz(func(t *testing.T, body []byte) {
		type answer struct {
			code   int
			header http.Header
			body   []byte
			events any
		}
		// run answers the body as it is now (then false) or as it was;
		// ok is false when it does not decode (FuzzDecodeMatchesReference
		// compares those errors).
		run := func(then bool) (a answer, verdicts []rules.Violation, ok bool) {
			decode, toConv, set := decodeRequest, toConversation, catalogNow
			if then {
				decode, toConv, set = referenceDecodeRequest, refToConversation, catalogThen
			}
			req, _ := decode(body)
			if req == nil {
				return a, nil, false
			}
			c := toConv(req)
			env := &rules.Env{Options: rules.DefaultOptions()}
			verdicts = rules.Run(set, req, env)
			reply, err := engine.Next(c, "")
			if err != nil {
				t.Fatalf("model: %v", err)
			}
			rec := httptest.NewRecorder()
			x := &dialect.Exchange{W: rec, R: httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil), Env: env}
			if then {
				refEncode(x, req, c, reply)
			} else {
				New().Encode(x, req, c, reply)
			}
			_, _, events := x.Result()
			return answer{rec.Code, rec.Header(), rec.Body.Bytes(), events}, verdicts, true
		}
		// created is the clock's second: run again if it ticked between.
		for try := 0; ; try++ {
			got, gotVerdicts, ok := run(false)
			want, wantVerdicts, _ := run(true)
			if !ok {
				return
			}
			if !reflect.DeepEqual(gotVerdicts, wantVerdicts) {
				t.Fatalf("verdicts on %q\n got %+v\nwant %+v", body, gotVerdicts, wantVerdicts)
			}
			if reflect.DeepEqual(got, want) {
				return
			}
			if try == 2 {
				t.Fatalf("answer to %q\n got %d %v %s\nwant %d %v %s", body, got.code, got.header, got.body, want.code, want.header, want.body)
			}
		}
	})
}

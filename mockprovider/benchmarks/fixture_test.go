package benchmarks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// turns are the two halves of a tool-call loop: "call" (history ends in a
// user question, the model answers with a call) and "result" (history ends
// in the tool's result, the model answers with text).
var turns = []string{"call", "result"}

// route is where a dialect's request goes and how it authenticates.
type route struct {
	path       string // non-streaming endpoint
	streamPath string // streaming endpoint; "" = same path, stream in the body
	auth       func(h http.Header, key string)
}

var routes = map[conv.Dialect]route{
	conv.OpenAIChat:      {path: "/v1/chat/completions", auth: bearer},
	conv.OpenAIResponses: {path: "/v1/responses", auth: bearer},
	conv.Anthropic: {path: "/v1/messages", auth: func(h http.Header, key string) {
		h.Set("x-api-key", key)
		h.Set("anthropic-version", "2023-06-01")
	}},
	conv.Gemini: {
		path:       "/v1beta/models/gemini-2.5-flash:generateContent",
		streamPath: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		auth:       func(h http.Header, key string) { h.Set("x-goog-api-key", key) },
	},
	conv.Bedrock: {
		path:       "/model/us.anthropic.claude-haiku-4-5-20251001-v1:0/converse",
		streamPath: "/model/us.anthropic.claude-haiku-4-5-20251001-v1:0/converse-stream",
		auth:       bedrock.New().SetAuth,
	},
}

func bearer(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// body loads testdata/<dialect>.<turn>.json, compacted as an SDK sends it,
// with "stream" flipped on for streaming runs of the dialects that carry
// the flag in the body.
func body(tb testing.TB, d conv.Dialect, turn string, stream bool) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", string(d)+"."+turn+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		tb.Fatalf("%s.%s.json: %v", d, turn, err)
	}
	b := buf.Bytes()
	if stream && routes[d].streamPath == "" {
		flipped := bytes.Replace(b, []byte(`"stream":false`), []byte(`"stream":true`), 1)
		if bytes.Equal(flipped, b) {
			tb.Fatalf("%s.%s.json has no \"stream\":false to flip", d, turn)
		}
		b = flipped
	}
	return b
}

// newRequest builds a POST of b for dialect d with the session key.
func newRequest(d conv.Dialect, stream bool, key string, b []byte) *http.Request {
	rt := routes[d]
	path := rt.path
	if stream && rt.streamPath != "" {
		path = rt.streamPath
	}
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b))
	r.Header.Set("Content-Type", "application/json")
	rt.auth(r.Header, key)
	return r
}

// routed returns r as the dialect's handler sees it, with the path values
// of its route pattern set (Gemini reads the model and method from them),
// by passing it once through a mux holding the dialect's own routes.
func routed(tb testing.TB, d dialect.Dialect, r *http.Request) *http.Request {
	tb.Helper()
	var got *http.Request
	mux := http.NewServeMux()
	for _, p := range d.Routes() {
		mux.HandleFunc(p, func(_ http.ResponseWriter, r *http.Request) { got = r })
	}
	mux.ServeHTTP(httptest.NewRecorder(), r)
	if got == nil {
		tb.Fatalf("%s: no route matches %s %s", d.Name(), r.Method, r.URL)
	}
	return got
}

// stage holds one decoded request and its reply, ready for any stage.
type stage struct {
	srv   *mockprovider.Server
	d     dialect.Dialect
	r     *http.Request
	sess  *session.Session
	env   *rules.Env
	body  []byte
	req   any
	conv  *conv.Conversation
	reply *model.Reply
}

// newStage decodes one turn body of d and asks the model for its reply,
// failing if the body breaks any MUST rule: the benchmarks measure the
// success path a conforming client takes.
func newStage(tb testing.TB, srv *mockprovider.Server, name conv.Dialect, turn string, stream bool) *stage {
	tb.Helper()
	d, ok := srv.Dialect(name)
	if !ok {
		tb.Fatalf("no dialect %s", name)
	}
	st := &stage{srv: srv, d: d, body: body(tb, name, turn, stream)}
	st.r = routed(tb, d, newRequest(name, stream, "bench-"+string(name), st.body))
	st.sess = srv.Sessions().Get("bench-" + string(name))
	st.env = &rules.Env{Options: rules.DefaultOptions()} // Decode sets IssuedReasoning (Responses)
	req, c, aerr := d.Decode(st.exchange(httptest.NewRecorder()), st.body)
	if aerr != nil {
		tb.Fatalf("%s %s: decode: %v", name, turn, aerr)
	}
	st.req, st.conv = req, c
	st.env.Model = c.Model
	if v := rules.FirstMust(rules.Run(d.Rules(), req, st.env)); v != nil {
		tb.Fatalf("%s %s: the benchmark body breaks %s", name, turn, v)
	}
	if c.Stream != stream {
		tb.Fatalf("%s %s: decoded stream=%v, want %v", name, turn, c.Stream, stream)
	}
	engine := &model.Engine{Scenarios: srv.Scenarios()}
	if st.reply, _ = engine.Next(c, ""); st.reply == nil {
		tb.Fatalf("%s %s: no reply", name, turn)
	}
	return st
}

func (st *stage) exchange(w http.ResponseWriter) *dialect.Exchange {
	return &dialect.Exchange{W: w, R: st.r, Session: st.sess, Env: st.env}
}

// serve runs one whole request through the server and returns the recorder.
func serve(srv *mockprovider.Server, d conv.Dialect, stream bool, key string, b []byte) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, newRequest(d, stream, key, b))
	return rec
}

// TestBenchmarkBodiesAreAnsweredNormally guards the benchmarks: every body,
// streamed or not, must get a 200 with no violation journaled, or the
// numbers would measure an error path.
func TestBenchmarkBodiesAreAnsweredNormally(t *testing.T) {
	srv := mockprovider.New(mockprovider.Options{})
	for _, d := range conv.Dialects {
		for _, turn := range turns {
			for _, stream := range []bool{false, true} {
				key := "guard-" + string(d) + "-" + turn
				rec := serve(srv, d, stream, key, body(t, d, turn, stream))
				if rec.Code != http.StatusOK {
					t.Errorf("%s %s stream=%v: status %d: %s", d, turn, stream, rec.Code, rec.Body)
					continue
				}
				// Bedrock streams an AWS event stream, the others SSE.
				ct := rec.Header().Get("Content-Type")
				isSSE := strings.HasPrefix(ct, "text/event-stream") || ct == "application/vnd.amazon.eventstream"
				if isSSE != stream {
					t.Errorf("%s %s stream=%v: Content-Type %q", d, turn, stream, rec.Header().Get("Content-Type"))
				}
				sess, _ := srv.Sessions().Lookup(key)
				entries, _ := sess.Journal()
				for _, e := range entries {
					if len(e.Violations) > 0 {
						t.Errorf("%s %s stream=%v: violations %v", d, turn, stream, e.Violations)
					}
				}
			}
		}
	}
}

// TestStagesAgreeWithHandler checks the stage fixtures: decoding, checking
// and encoding through the interface yields the same status the whole
// handler gives.
func TestStagesAgreeWithHandler(t *testing.T) {
	srv := mockprovider.New(mockprovider.Options{})
	for _, d := range conv.Dialects {
		for _, turn := range turns {
			for _, stream := range []bool{false, true} {
				st := newStage(t, srv, d, turn, stream)
				rec := httptest.NewRecorder()
				st.d.Encode(st.exchange(rec), st.req, st.conv, st.reply)
				if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
					t.Errorf("%s %s stream=%v: encode gave %d, %d bytes", d, turn, stream, rec.Code, rec.Body.Len())
				}
			}
		}
	}
}

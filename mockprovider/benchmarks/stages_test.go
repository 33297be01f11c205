package benchmarks

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// streamName names the answer shape in sub-benchmark names.
func streamName(stream bool) string {
	if stream {
		return "stream"
	}
	return "json"
}

// BenchmarkDecode measures d.Decode: wire JSON to the dialect's request and
// the neutral conversation.
func BenchmarkDecode(b *testing.B) {
	srv := mockprovider.New(mockprovider.Options{})
	for _, d := range conv.Dialects {
		for _, turn := range turns {
			b.Run(string(d)+"/"+turn, func(b *testing.B) {
				st := newStage(b, srv, d, turn, false)
				x := st.exchange(httptest.NewRecorder())
				b.SetBytes(int64(len(st.body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, aerr := st.d.Decode(x, st.body); aerr != nil {
						b.Fatal(aerr)
					}
				}
			})
		}
	}
}

// BenchmarkValidate measures rules.Run over the dialect's whole catalog on
// a decoded request that breaks nothing (every check runs to the end).
func BenchmarkValidate(b *testing.B) {
	srv := mockprovider.New(mockprovider.Options{})
	for _, d := range conv.Dialects {
		for _, turn := range turns {
			b.Run(string(d)+"/"+turn, func(b *testing.B) {
				st := newStage(b, srv, d, turn, false)
				set := st.d.Rules()
				b.ReportAllocs()
				for b.Loop() {
					if v := rules.FirstMust(rules.Run(set, st.req, st.env)); v != nil {
						b.Fatal(v)
					}
				}
			})
		}
	}
}

// BenchmarkEncode measures d.Encode of the model's reply into a recorder:
// one JSON body, or the event stream (default pacing: no delays). The
// recorder's own allocations (3 per op) are included; see BenchmarkHarness.
func BenchmarkEncode(b *testing.B) {
	srv := mockprovider.New(mockprovider.Options{})
	for _, d := range conv.Dialects {
		for _, turn := range turns {
			for _, stream := range []bool{false, true} {
				b.Run(string(d)+"/"+turn+"/"+streamName(stream), func(b *testing.B) {
					st := newStage(b, srv, d, turn, stream)
					b.ReportAllocs()
					var rec *httptest.ResponseRecorder
					for b.Loop() {
						rec = httptest.NewRecorder()
						st.d.Encode(st.exchange(rec), st.req, st.conv, st.reply)
					}
					if rec.Code != http.StatusOK {
						b.Fatalf("status %d: %s", rec.Code, rec.Body)
					}
					b.ReportMetric(float64(rec.Body.Len()), "resp-bytes")
				})
			}
		}
	}
}

// BenchmarkHandler measures the whole pipeline, Server.ServeHTTP: routing,
// auth, session, bounded body, decode, rules, model, encode and journal, on
// one long-lived session (its journal full, as in a long CI run).
func BenchmarkHandler(b *testing.B) {
	for _, d := range conv.Dialects {
		for _, turn := range turns {
			for _, stream := range []bool{false, true} {
				b.Run(string(d)+"/"+turn+"/"+streamName(stream), func(b *testing.B) {
					srv := mockprovider.New(mockprovider.Options{})
					h := newHandlerLoop(b, srv, d, stream, "bench-handler", body(b, d, turn, stream))
					h.warm(b)
					b.SetBytes(int64(len(h.body)))
					b.ReportAllocs()
					for b.Loop() {
						h.once(b)
					}
				})
			}
		}
	}
}

// BenchmarkHarness is the cost of the benchmark's own plumbing (a fresh
// recorder and a rewound request body per op), to subtract from
// BenchmarkHandler and BenchmarkEncode.
func BenchmarkHarness(b *testing.B) {
	body := []byte(`{}`)
	rd := &rewindBody{Reader: bytes.NewReader(body)}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body = rd
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}

// rewindBody lets one *http.Request be served again and again: the
// handler reads its body to the end, the loop rewinds it.
type rewindBody struct{ *bytes.Reader }

func (rewindBody) Close() error { return nil }

// handlerLoop serves the same request repeatedly on one session.
type handlerLoop struct {
	srv  *mockprovider.Server
	r    *http.Request
	rd   *rewindBody
	body []byte
}

func newHandlerLoop(tb testing.TB, srv *mockprovider.Server, d conv.Dialect, stream bool, key string, b []byte) *handlerLoop {
	tb.Helper()
	h := &handlerLoop{srv: srv, body: b, rd: &rewindBody{Reader: bytes.NewReader(b)}}
	h.r = newRequest(d, stream, key, b)
	h.r.Body = h.rd
	return h
}

// once serves the request and fails on anything but a 200.
func (h *handlerLoop) once(tb testing.TB) {
	h.rd.Reset(h.body)
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, h.r)
	if rec.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

// warm fills the session's journal past its cap so every measured request
// takes the steady-state path (append and trim), not the filling one.
func (h *handlerLoop) warm(tb testing.TB) {
	tb.Helper()
	for range session.DefaultLimits().JournalEntries + 8 {
		h.once(tb)
	}
}

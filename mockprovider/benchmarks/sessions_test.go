package benchmarks

import (
	"fmt"
	"math"
	"net/http"
	"runtime"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// sessionDialect is the dialect the session-count measurements use: the
// store is shared by all dialects, so one is enough.
const sessionDialect = conv.OpenAIChat

// withSessions returns a server holding n live sessions, each with one
// journal entry (as after a CI run's first request), keyed sess-0…sess-(n-1).
func withSessions(tb testing.TB, n int) *mockprovider.Server {
	tb.Helper()
	srv := mockprovider.New(mockprovider.Options{})
	if max := session.DefaultLimits().MaxSessions; n > max {
		tb.Fatalf("%d sessions exceed the default cap %d: some would be evicted", n, max)
	}
	st := srv.Sessions()
	for i := range n {
		st.Get(sessionKey(i)).Record(session.Entry{Dialect: sessionDialect, Method: http.MethodPost, Path: "/v1/chat/completions", Status: http.StatusOK})
	}
	if st.Len() != n {
		tb.Fatalf("store holds %d sessions, want %d", st.Len(), n)
	}
	return srv
}

func sessionKey(i int) string { return fmt.Sprintf("sess-%d", i) }

func benchSessions(b *testing.B, n int) {
	srv := withSessions(b, n)
	h := newHandlerLoop(b, srv, sessionDialect, false, sessionKey(0), body(b, sessionDialect, "result", false))
	h.warm(b)
	b.ReportAllocs()
	for b.Loop() {
		h.once(b)
	}
	if got := srv.Sessions().Len(); got != n {
		b.Fatalf("store holds %d sessions after the run, want %d", got, n)
	}
}

// BenchmarkSessions1 and BenchmarkSessions10000 serve the same request on
// one warm session while 1 or 10,000 sessions are live: allocs/op must be
// the same (see TestAllocsDoNotGrowWithSessions).
func BenchmarkSessions1(b *testing.B)     { benchSessions(b, 1) }
func BenchmarkSessions10000(b *testing.B) { benchSessions(b, 10000) }

// TestAllocsDoNotGrowWithSessions counts allocations per request (not
// time) with 1 and with 10,000 live sessions: on one warm session, and
// spread round-robin over all of them. Any per-request work proportional to
// the number of sessions (a scan, a copy of the key set) would show up as
// extra allocations here.
func TestAllocsDoNotGrowWithSessions(t *testing.T) {
	const runs, trials = 300, 3
	measure := func(n int, spread bool) float64 {
		srv := withSessions(t, n)
		loops := make([]*handlerLoop, min(n, runs+1))
		for i := range loops {
			loops[i] = newHandlerLoop(t, srv, sessionDialect, false, sessionKey(i), body(t, sessionDialect, "result", false))
		}
		// Fill the measured sessions' journals past their cap, so both
		// sides take the same steady-state journal path.
		for _, l := range loops[:min(len(loops), 8)] {
			l.warm(t)
		}
		// The least of a few trials: growth with the session count would
		// show in every trial.
		i, least := 0, math.Inf(1)
		for range trials {
			least = min(least, testing.AllocsPerRun(runs, func() {
				l := loops[0]
				if spread {
					l = loops[i%len(loops)]
					i++
				}
				l.once(t)
			}))
		}
		return least
	}
	one := measure(1, false)
	hot := measure(10000, false)
	spread := measure(10000, true)
	t.Logf("allocs/request: 1 session %.0f; 10,000 sessions, one warm session %.0f; spread over them %.0f", one, hot, spread)
	margin := max(3, one/50) // 2 %: the journal trim varies by an allocation or two
	for name, got := range map[string]float64{"one warm session": hot, "spread": spread} {
		if got > one+margin {
			t.Errorf("10,000 sessions (%s): %.0f allocs/request, 1 session: %.0f (margin %.0f): per-request cost grows with the session count", name, got, one, margin)
		}
	}
	if one <= 0 {
		t.Fatal("measured no allocations: the request did not run")
	}
}

// BenchmarkJournal isolates the journal's share of a request: the same
// Anthropic turn on a session whose journal is full (every request trims
// the oldest entry) and on one whose cap is never reached.
func BenchmarkJournal(b *testing.B) {
	for _, c := range []struct {
		name string
		cap  int
	}{{"full-at-default-cap", session.DefaultLimits().JournalEntries}, {"never-full", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			limits := session.DefaultLimits()
			limits.JournalEntries = c.cap
			srv := mockprovider.New(mockprovider.Options{Limits: limits})
			h := newHandlerLoop(b, srv, conv.Anthropic, false, "journal", body(b, conv.Anthropic, "result", false))
			h.warm(b)
			b.ReportAllocs()
			for b.Loop() {
				h.once(b)
			}
		})
	}
}

// BenchmarkRetained reports the live heap one journaled request keeps
// (journal entry, stored Responses answer) per dialect: what a session costs
// as it fills, and so what the session and journal caps really bound.
func BenchmarkRetained(b *testing.B) {
	for _, d := range conv.Dialects {
		b.Run(string(d), func(b *testing.B) {
			limits := session.DefaultLimits()
			limits.JournalEntries, limits.StoredResponses = 1<<30, 1<<30
			srv := mockprovider.New(mockprovider.Options{Limits: limits})
			h := newHandlerLoop(b, srv, d, false, "retained", body(b, d, "result", false))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for b.Loop() {
				h.once(b)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "retained-B/req")
			// The raw request and response bodies are the part of an
			// entry that cannot shrink without losing the record.
			sess, _ := srv.Sessions().Lookup("retained")
			entries, _ := sess.Journal()
			last := entries[len(entries)-1]
			b.ReportMetric(float64(len(last.Request)+len(last.Response)), "bodies-B/req")
			runtime.KeepAlive(srv)
		})
	}
}

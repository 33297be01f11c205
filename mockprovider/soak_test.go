package mockprovider_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// TestSoakMemoryStaysFlat spreads full tool-call turns of every dialect
// over thousands of sessions through the handler and checks that what the
// server keeps stays within its limits: the journal budget holds, the
// session cap holds, and the live heap at the end is within 2× of the heap
// after the first tenth (`make soak` runs the same at 1,000,000 requests).
func TestSoakMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	const requests, sessions = 12000, 1200
	limits := session.DefaultLimits()
	limits.JournalBudget = 4 << 20
	limits.MaxSessions = 900 // fewer than the sessions used: eviction is exercised too
	srv := mockprovider.New(mockprovider.Options{Limits: limits})
	defer srv.Close()

	type body struct{ path, file string }
	turns := []body{
		{"/v1/chat/completions", "openai-chat"}, {"/v1/responses", "openai-responses"},
		{"/v1/messages", "anthropic"}, {"/v1beta/models/gemini-2.5-flash:generateContent", "gemini"},
	}
	payload := map[string][2]string{}
	for _, tb := range turns {
		var pair [2]string
		for i, kind := range []string{"call", "result"} {
			b, err := os.ReadFile(fmt.Sprintf("benchmarks/testdata/%s.%s.json", tb.file, kind))
			if err != nil {
				t.Fatal(err)
			}
			pair[i] = string(b)
		}
		payload[tb.file] = pair
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var start uint64
	for i := 0; i < requests; i++ {
		if i == requests/10 {
			start = heap()
		}
		tb := turns[i%len(turns)]
		key := fmt.Sprintf("soak-%d", i%sessions)
		req := httptest.NewRequest(http.MethodPost, tb.path, strings.NewReader(payload[tb.file][(i/len(turns))%2]))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("x-api-key", key)
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("x-goog-api-key", key)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d (%s): %d %s", i, tb.file, rec.Code, rec.Body)
		}
	}
	end := heap()
	st := srv.Sessions()
	if got := st.JournalBytes(); got > limits.JournalBudget {
		t.Errorf("journals and stored responses hold %d bytes, budget %d", got, limits.JournalBudget)
	}
	if st.Len() > limits.MaxSessions {
		t.Errorf("%d sessions kept, cap %d", st.Len(), limits.MaxSessions)
	}
	t.Logf("live heap %.1f MB after %d requests, %.1f MB after %d", float64(start)/(1<<20), requests/10, float64(end)/(1<<20), requests)
	if end > 2*start {
		t.Errorf("live heap grew from %d to %d bytes: more than 2×", start, end)
	}
}

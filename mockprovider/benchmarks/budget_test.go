package benchmarks

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
)

// TestBudgetCoversLongConversations: what the session store charges to
// its byte budgets for a long conversation's request (the journal entry,
// and what the session keeps to resume the next request) covers the live
// heap that request leaves behind, so the budgets bound memory as they
// claim to.
func TestBudgetCoversLongConversations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 400-round conversations")
	}
	const sessions = 6
	for _, d := range conv.Dialects {
		t.Run(string(d), func(t *testing.T) {
			srv := mockprovider.New(mockprovider.Options{})
			body := longBody(t, d, 400)
			loops := make([]*handlerLoop, sessions)
			for i := range loops {
				loops[i] = newHandlerLoop(t, srv, d, false, fmt.Sprintf("budget-%d", i), body)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for _, h := range loops {
				h.once(t)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			retained := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / sessions
			charged := (srv.Sessions().JournalBytes() + srv.Sessions().StateBytes()) / sessions
			t.Logf("%s: body %d B, retained %d B (%.1f× body), charged %d B (%.1f× body)", d, len(body),
				retained, float64(retained)/float64(len(body)), charged, float64(charged)/float64(len(body)))
			if charged < retained*9/10 {
				t.Errorf("charged %d B per session for %d B retained: the budgets undercount", charged, retained)
			}
			runtime.KeepAlive(loops)
			runtime.KeepAlive(srv)
		})
	}
}

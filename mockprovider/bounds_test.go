package mockprovider_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// gatedChat is Chat Completions whose decoding waits for the test: it
// counts decodes, and the most running at once.
type gatedChat struct {
	dialect.Dialect
	inside, most, decoded atomic.Int64
	release               chan struct{} // closed: decodes go on
	// untilClientGone makes a decode wait for its client to leave instead.
	untilClientGone bool
}

func newGatedChat() *gatedChat {
	return &gatedChat{Dialect: openaichat.New(), release: make(chan struct{})}
}

func (g *gatedChat) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	n := g.inside.Add(1)
	defer g.inside.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	g.decoded.Add(1)
	if g.untilClientGone {
		select {
		case <-x.R.Context().Done():
		case <-time.After(10 * time.Second): // hang guard
		}
	} else {
		<-g.release
	}
	return g.Dialect.Decode(x, body)
}

func decodeStats(t *testing.T, ts *mockprovider.TestServer) mockprovider.DecodeStats {
	t.Helper()
	var h struct {
		Decodes *mockprovider.DecodeStats `json:"decodes"`
	}
	if err := json.Unmarshal(getAdminJSON(t, ts, "/_toolwire/health"), &h); err != nil || h.Decodes == nil {
		t.Fatalf("health has no decodes: %v", err)
	}
	return *h.Decodes
}

// waitFor polls until cond holds; the timeout is a hang guard only.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// chatWith posts a Chat request under ctx; it returns 0 when the request
// failed on the client's side (cancelled).
func chatWith(ctx context.Context, ts *mockprovider.TestServer, key, body string) int {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func hangGuard() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// At most MaxConcurrentDecodes requests decode at once; the others wait
// for a slot and are then answered as usual.
func TestConcurrentDecodesAreBounded(t *testing.T) {
	g := newGatedChat()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{g}, MaxConcurrentDecodes: 2})
	ctx, cancel := hangGuard()
	defer cancel()
	codes := make([]int, 5)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = chatWith(ctx, ts, "sk-bounded", validChat)
		}()
	}
	waitFor(t, "two decoding and three waiting", func() bool {
		st := decodeStats(t, ts)
		return st.Running == 2 && st.Waiting == 3 && st.Max == 2
	})
	close(g.release)
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("request %d answered %d", i, code)
		}
	}
	if most := g.most.Load(); most != 2 {
		t.Errorf("%d decodes ran at once, bound 2", most)
	}
	if st := decodeStats(t, ts); st.Running != 0 || st.Waiting != 0 {
		t.Errorf("slots held after every request ended: %+v", st)
	}
}

// A request that waits for a slot past WorkTimeout gets the provider's
// overloaded answer, and its journal entry says why; so does the request
// whose decode ran past it, before the rules.
func TestWorkTimeoutAnswersOverloaded(t *testing.T) {
	g := newGatedChat()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{g}, MaxConcurrentDecodes: 1, WorkTimeout: 100 * time.Millisecond})
	ctx, cancel := hangGuard()
	defer cancel()
	first := make(chan int, 1)
	go func() { first <- chatWith(ctx, ts, "sk-first", validChat) }()
	waitFor(t, "the first request to decode", func() bool { return decodeStats(t, ts).Running == 1 })
	code, body := rawPost(t, ts.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer sk-late"}, validChat)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "overloaded") {
		t.Errorf("late request: %d %s", code, body)
	}
	close(g.release)
	if code := <-first; code != http.StatusServiceUnavailable {
		t.Errorf("first request, decoded past the deadline, answered %d", code)
	}
	if j := ts.Journal("sk-first"); len(j) != 1 || len(j[0].Violations) != 0 || len(j[0].Notes) != 1 || !strings.Contains(j[0].Notes[0], "after decoding") {
		t.Errorf("journal of the first request: %+v", j)
	}
	j := ts.Journal("sk-late")
	if len(j) != 1 || j[0].Status != http.StatusServiceUnavailable || len(j[0].Notes) != 1 || !strings.Contains(j[0].Notes[0], "waiting for a decode slot") || !strings.Contains(j[0].Notes[0], "--work-timeout") {
		t.Errorf("journal of the late request: %+v", j)
	}
	if n := g.decoded.Load(); n != 1 {
		t.Errorf("%d decodes, want only the first request's", n)
	}
}

// A client that leaves while its request waits for a slot stops it there:
// it is never decoded, and the journal says so.
func TestClientGoneWhileWaitingIsNeverDecoded(t *testing.T) {
	g := newGatedChat()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{g}, MaxConcurrentDecodes: 1})
	ctx, cancel := hangGuard()
	defer cancel()
	first := make(chan int, 1)
	go func() { first <- chatWith(ctx, ts, "sk-first", validChat) }()
	waitFor(t, "the first request to decode", func() bool { return decodeStats(t, ts).Running == 1 })
	leaving, leave := context.WithCancel(ctx)
	gone := make(chan int, 1)
	go func() { gone <- chatWith(leaving, ts, "sk-gone", validChat) }()
	waitFor(t, "the second request to wait", func() bool { return decodeStats(t, ts).Waiting == 1 })
	leave()
	<-gone
	waitFor(t, "the abandoned request's journal entry", func() bool {
		s, ok := ts.Mock.Sessions().Lookup("sk-gone")
		return ok && s.Info().Requests == 1
	})
	close(g.release)
	<-first
	j := ts.Journal("sk-gone")
	if len(j) != 1 || j[0].Status != 0 || j[0].Conversation != nil || len(j[0].Notes) != 1 || !strings.Contains(j[0].Notes[0], "waiting for a decode slot: the client went away") {
		t.Errorf("journal of the abandoned request: %+v", j)
	}
	if n := g.decoded.Load(); n != 1 {
		t.Errorf("%d decodes, want only the first request's", n)
	}
}

// A client that leaves while its request decodes stops it after the
// decode: the rules and the model never run on it.
func TestClientGoneDuringDecodeStopsBeforeTheRules(t *testing.T) {
	g := newGatedChat()
	g.untilClientGone = true
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{g}})
	ctx, cancel := hangGuard()
	defer cancel()
	leaving, leave := context.WithCancel(ctx)
	gone := make(chan int, 1)
	go func() { gone <- chatWith(leaving, ts, "sk-gone", orphanToolResult) }()
	waitFor(t, "the request to decode", func() bool { return g.decoded.Load() == 1 })
	leave()
	<-gone
	var j []session.Entry
	waitFor(t, "the abandoned request's journal entry", func() bool { j = ts.Journal("sk-gone"); return len(j) == 1 })
	if j[0].Status != 0 || j[0].Conversation == nil || len(j[0].Violations) != 0 || len(j[0].Notes) != 1 || !strings.Contains(j[0].Notes[0], "after decoding: the client went away") {
		t.Errorf("journal of the abandoned request: %+v", j[0])
	}
	if st := decodeStats(t, ts); st.Running != 0 {
		t.Errorf("the abandoned request kept its slot: %+v", st)
	}
}

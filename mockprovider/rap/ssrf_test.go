package rap_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// POST /_toolwire/rap/invoke is reachable by whoever reaches the admin
// API; these are the ways it was used to reach further (all on loopback:
// "internal" is a second local server the attacker wants to reach).

// internalService counts the requests it gets.
func internalService(t *testing.T) (*atomic.Int32, string) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return &hits, srv.URL
}

// manifestTool serves a manifest (possibly naming another origin's endpoint),
// or a redirect for discovery.
func manifestTool(t *testing.T, manifest func(self string) any, redirect string) string {
	t.Helper()
	var self string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if redirect != "" {
			http.Redirect(w, r, redirect, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(manifest(self))
	}))
	self = srv.URL
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestInvokeRefusesNonLoopbackTargets(t *testing.T) {
	h := newHarness(t, rap.Options{})
	for _, u := range []string{"http://192.0.2.10", "http://metadata.example.internal", "http://[2001:db8::1]:8080"} {
		st, out := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": u, "operation": "echo"})
		if st != 400 || !strings.Contains(out["error"].(string), "not an allowed target") {
			t.Errorf("%s: %d %v", u, st, out)
		}
	}
}

func TestInvokeFollowsNoRedirect(t *testing.T) {
	hits, internal := internalService(t)
	h := newHarness(t, rap.Options{})
	tool := manifestTool(t, nil, internal+"/admin/secrets")
	st, out := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": tool, "operation": "echo"})
	if st != http.StatusBadGateway || hits.Load() != 0 {
		t.Errorf("redirected discovery: %d %v; internal service hit %d times", st, out, hits.Load())
	}
}

func TestInvokeEndpointStaysOnTheToolsOrigin(t *testing.T) {
	hits, internal := internalService(t)
	h := newHarness(t, rap.Options{})
	tool := manifestTool(t, func(self string) any {
		m := reftool.Manifest(self)
		m["endpoint"] = internal + "/internal/api"
		return m
	}, "")
	st, out := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": tool, "operation": "echo", "arguments": map[string]any{"text": "x"}})
	if st != http.StatusBadGateway || !strings.Contains(out["error"].(string), "not on the tool's origin") || hits.Load() != 0 {
		t.Errorf("foreign endpoint: %d %v; internal service hit %d times", st, out, hits.Load())
	}

	// Allowed by name, the same endpoint is used.
	allow, err := rap.ParseAllow([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	h = newHarness(t, rap.Options{Targets: allow, Deadline: 200 * time.Millisecond})
	adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": tool, "operation": "echo", "arguments": map[string]any{"text": "x"}})
	if hits.Load() == 0 {
		t.Error("an allowed endpoint was not invoked")
	}
}

// Dial errors say nothing of the network: a closed port and a port that
// answers garbage read the same.
func TestInvokeErrorsAreGeneric(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	h := newHarness(t, rap.Options{})
	st, out := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": closed, "operation": "echo"})
	b, _ := json.Marshal(out)
	if st != http.StatusBadGateway || strings.Contains(string(b), "refused") || strings.Contains(string(b), "dial") || !strings.Contains(string(b), "could not be reached") {
		t.Errorf("closed port: %d %s", st, b)
	}
}

func TestInvokeDiscoveryTimesOut(t *testing.T) {
	stall := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stall); srv.Close() })
	h := newHarness(t, rap.Options{DiscoveryTimeout: 200 * time.Millisecond})
	start := time.Now()
	st, _ := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": srv.URL, "operation": "echo"})
	if took := time.Since(start); st != http.StatusBadGateway || took > 3*time.Second {
		t.Errorf("stalled discovery: %d after %v", st, took)
	}
}

func TestAllowList(t *testing.T) {
	if _, err := rap.ParseAllow([]string{"10.0.0.0/33"}); err == nil {
		t.Error("bad CIDR accepted")
	}
	if _, err := rap.ParseAllow([]string{"http://x"}); err == nil {
		t.Error("a URL accepted as a host")
	}
	if _, err := rap.ParseAllow([]string{"tools.internal,10.0.0.0/8", "*", "192.0.2.7"}); err != nil {
		t.Error(err)
	}
}

// The admin invoke journals no session key, and its outcome names the
// session by its hash.
func TestInvokeOutcomeHidesTheKey(t *testing.T) {
	h := newHarness(t, rap.Options{})
	_, url := startTool(t, "")
	const key = "sk-rap-secret"
	st, out := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", key, map[string]any{"tool_url": url, "operation": "echo", "arguments": map[string]any{"text": "x"}})
	if st != 200 || out["session"] != session.ID(key) {
		t.Fatalf("%d %v", st, out)
	}
	sess, _ := h.store.Lookup(key)
	entries, _ := sess.Journal()
	b, _ := json.Marshal(entries)
	if strings.Contains(string(b), key) {
		t.Error("the journal shows the session key")
	}
}

// A callback with invalid UTF-8 is refused (rap.callback-json), and the
// journal stays valid UTF-8.
func TestCallbackWithInvalidUTF8(t *testing.T) {
	h := newHarness(t, rap.Options{Deadline: 300 * time.Millisecond})
	tool, url := startTool(t, "")
	st, _ := adminPost(t, h.srv.URL+"/_toolwire/rap/invoke", "utf8", map[string]any{"tool_url": url, "operation": "echo", "arguments": map[string]any{"text": "x"}})
	if st != 200 {
		t.Fatal(st)
	}
	tool.Wait()
	inv := tool.Invocations()[0]
	body := `{"type":"tool_result","group_id":"` + inv.GroupID + `","id":"` + inv.ID + "\",\"text\":\"caf\xe9\"}"
	req, _ := http.NewRequest(http.MethodPost, inv.CallbackURL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := plainClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("invalid UTF-8 callback: %d", resp.StatusCode)
	}
	sess, _ := h.store.Lookup("utf8")
	entries, _ := sess.Journal()
	b, _ := json.Marshal(entries)
	if !utf8.Valid(b) {
		t.Error("journal holds invalid UTF-8")
	}
	found := false
	for _, e := range entries {
		for _, v := range e.Violations {
			found = found || v.Rule == rap.RuleCallbackJSON && strings.Contains(v.Message, "UTF-8")
		}
	}
	if !found {
		t.Error("no rap.callback-json violation for invalid UTF-8")
	}
}

package rap_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// harness is a runtime on a loopback test server, as the mock provider
// mounts it.
type harness struct {
	rt    *rap.Runtime
	srv   *httptest.Server
	store *session.Store
}

func newHarness(t *testing.T, opts rap.Options) *harness {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	if opts.BaseURL == "" {
		opts.BaseURL = srv.URL
	}
	if opts.Retry.Initial == 0 {
		opts.Retry.Initial = time.Millisecond
	}
	store := session.NewStore(session.DefaultLimits())
	rt := rap.New(store, opts)
	rt.Register(mux)
	t.Cleanup(func() {
		srv.Close()
		rt.Close()
	})
	return &harness{rt: rt, srv: srv, store: store}
}

// startTool runs the reference tool (or a broken variant) on loopback.
func startTool(t *testing.T, brk string) (*reftool.Tool, string) {
	t.Helper()
	tool, err := reftool.New(reftool.Options{Break: brk, CallbackBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tool)
	t.Cleanup(func() {
		tool.Close()
		srv.Close()
	})
	return tool, srv.URL
}

// plainClient never goes through http.DefaultTransport, which gock replaces.
func plainClient() *http.Client {
	return &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
}

func ptr(s string) *string { return &s }

func args(v any) json.RawMessage { b, _ := json.Marshal(v); return b }

func invoke(t *testing.T, rt *rap.Runtime, req rap.InvokeRequest) *rap.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := rt.Invoke(ctx, req)
	if err != nil {
		t.Fatalf("Invoke(%s): %v", req.Operation, err)
	}
	return out
}

func sortedIDs(o *rap.Outcome) []string {
	ids := o.RuleIDs()
	sort.Strings(ids)
	return ids
}

func sameRules(got []string, want ...string) bool {
	w := slices.Clone(want)
	sort.Strings(w)
	return slices.Equal(got, w)
}

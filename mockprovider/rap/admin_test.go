package rap_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/session"
)

func adminPost(t *testing.T, url, key string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := plainClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// POST /_toolwire/rap/invoke drives the runtime by hand; the callback base
// comes from the request's Host and the journal from its bearer key.
func TestAdminInvokeAndJournal(t *testing.T) {
	mux := http.NewServeMux()
	store := session.NewStore(session.DefaultLimits())
	rt := rap.New(store, rap.Options{}) // no BaseURL: taken from the admin request
	rt.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tool, url := startTool(t, "")

	st, out := adminPost(t, srv.URL+"/_toolwire/rap/invoke", "ci-key", map[string]any{"tool_url": url, "operation": "echo", "arguments": map[string]any{"text": "by hand"}, "call_id": "c-9"})
	if st != 200 || out["status"] != "completed" || out["result"].(map[string]any)["text"] != "by hand" || out["call_id"] != "c-9" {
		t.Fatalf("%d %v", st, out)
	}
	if vs := out["violations"].([]any); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
	tool.Wait()
	secret := strings.TrimPrefix(tool.Invocations()[0].CallbackURL, srv.URL+rap.CallbackPrefix)
	sess, ok := store.Lookup("ci-key")
	if !ok {
		t.Fatal("journal must use the bearer key's session")
	}
	entries, _ := sess.Journal()
	paths := []string{}
	for _, e := range entries {
		if e.Dialect != conv.RAP {
			t.Errorf("entry dialect %s", e.Dialect)
		}
		paths = append(paths, e.Method+" "+e.Path)
	}
	// The callback may land before the tool's 200 is read; the summary
	// entry is always last.
	sort.Strings(paths[:2])
	if strings.Join(paths, ",") != "POST /_toolwire/rap/cb/<secret>,POST /invoke,POST /_toolwire/rap/invoke" {
		t.Errorf("journal %v", paths)
	}
	b, _ := json.Marshal(entries)
	if strings.Contains(string(b), secret) {
		t.Error("the journal must not reveal the capability secret")
	}

	st, out = adminPost(t, srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool_url": url, "operation": "nope"})
	if st != 400 || !strings.Contains(out["error"].(string), "nope") {
		t.Errorf("unknown operation: %d %v", st, out)
	}
	st, _ = adminPost(t, srv.URL+"/_toolwire/rap/invoke", "", map[string]any{"tool": url})
	if st != 400 {
		t.Errorf("malformed admin request: %d", st)
	}
	st, _ = adminPost(t, srv.URL+"/_toolwire/rap/cancel", "", map[string]any{"group_id": "g", "tool_call_id": "nope"})
	if st != 404 {
		t.Errorf("cancel unknown: %d", st)
	}
}

package rap

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/session"
)

// FuzzCallback feeds arbitrary bodies to the callback parser of a pending
// call: it must never panic, must answer with a status the protocol's
// receivers use, and every violation it reports must carry a catalog rule.
func FuzzCallback(f *testing.F) {
	for _, seed := range []string{
		`{"type":"tool_result","group_id":"thread_1","id":"call_1","call_id":null,"text":"ok"}`,
		`{"type":"tool_result","group_id":"thread_1","id":"call_1","text":"Replaced","display_as":[{"type":"diff","content":{"path":"a.go","patch":"--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n"}},{"type":"text","content":"edit"}]}`,
		`{"type":"tool_result","group_id":"thread_1","id":"call_1","text":"subscribed","subscription":true}`,
		`{"type":"subscription_event","group_id":"thread_1","tool_call_id":"call_1","text":"{}","final":true}`,
		`{"type":"oauth","group_id":"thread_1","id":"call_1","url":"https://example.com/auth"}`,
		`{"type":"tool_result","group_id":"other","id":"call_9","text":"forged"}`,
		`{"type":"nope"}`, `[]`, `null`, `{`, ``, `{"type":"tool_result","display_as":[{"type":"diff","content":"x"}]}`,
	} {
		f.Add("application/json", []byte(seed))
	}
	f.Add("text/plain", []byte(`{"type":"tool_result"}`))
	f.Add("application/json", []byte("{\"type\":\"tool_result\",\"group_id\":\"thread_1\",\"id\":\"call_1\",\"text\":\"caf\xe9\"}"))
	known := map[string]bool{}
	for _, r := range Rules() {
		known[r.ID] = true
	}
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		store := session.NewStore(session.DefaultLimits())
		rt := New(store, Options{})
		c := &call{rt: rt, sess: store.Get("k"), secret: newSecret(), tool: &ToolDef{Name: "edit"}, settled: make(chan struct{}),
			inv: Invocation{Operation: "edit", Arguments: json.RawMessage(`{}`), ID: "call_1", GroupID: "thread_1"}}
		if err := rt.register(c); err != nil {
			t.Fatal(err)
		}
		status, _, vs := c.process(contentType, body)
		switch status {
		case 200, 400, 404, 409:
		default:
			t.Fatalf("status %d for %q", status, body)
		}
		for _, v := range vs {
			if !known[v.Rule] {
				t.Fatalf("violation with unknown rule %q: %+v", v.Rule, v)
			}
		}
		// Invalid UTF-8 is refused, and nothing the call keeps (what the
		// journal and the admin API show) carries invalid bytes.
		if !utf8.Valid(body) && status != 400 {
			t.Fatalf("status %d for invalid UTF-8 %q", status, body)
		}
		if b, err := json.Marshal(c.snapshot()); err != nil || !utf8.Valid(b) {
			t.Fatalf("outcome does not encode as UTF-8 JSON: %v", err)
		}
	})
}

package rap

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/session"
)

// One thread's messages never overlap, and messages that arrive one after
// another are processed in that order, while other threads proceed.
func TestGroupMessagesProcessedSerially(t *testing.T) {
	store := session.NewStore(session.DefaultLimits())
	rt := New(store, Options{})
	mux := http.NewServeMux()
	rt.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var active, overlap atomic.Int32
	rt.onSerial = func(string) {
		if active.Add(1) > 1 {
			overlap.Add(1)
		}
		time.Sleep(200 * time.Microsecond) // widen the window a second message could slip into
		active.Add(-1)
	}
	c := &call{rt: rt, sess: store.Get("k"), secret: newSecret(), tool: &ToolDef{Name: "subscribe"}, settled: make(chan struct{}),
		inv: Invocation{Operation: "subscribe", Arguments: json.RawMessage(`{}`), ID: "call_1", GroupID: "thread_1"}}
	if err := rt.register(c); err != nil {
		t.Fatal(err)
	}
	url := srv.URL + CallbackPrefix + c.secret
	client := &http.Client{Transport: &http.Transport{}}
	send := func(m map[string]any) {
		b, _ := json.Marshal(m)
		resp, err := client.Post(url, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
	}
	send(map[string]any{"type": "tool_result", "group_id": "thread_1", "id": "call_1", "text": "subscribed", "subscription": true})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			send(map[string]any{"type": "subscription_event", "group_id": "thread_1", "tool_call_id": "call_1", "text": string(rune('a' + i%26))})
		}()
	}
	wg.Wait()
	for i := range 5 { // sequential arrivals keep their order
		send(map[string]any{"type": "subscription_event", "group_id": "thread_1", "tool_call_id": "call_1", "text": "seq" + string(rune('0'+i)), "final": i == 4})
	}
	if overlap.Load() != 0 {
		t.Errorf("%d messages of one thread overlapped", overlap.Load())
	}
	o := c.snapshot()
	if len(o.Events) != 45 || o.SubscriptionActive {
		t.Fatalf("events %d active %v", len(o.Events), o.SubscriptionActive)
	}
	for i, e := range o.Events[40:] {
		if e.Text != "seq"+string(rune('0'+i)) {
			t.Errorf("event %d is %q", 40+i, e.Text)
		}
	}
}

func TestParseToolsetRejectsWhole(t *testing.T) {
	good := `{"name":"t","endpoint":"/invoke","tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}]}`
	if ts, vs := ParseToolset([]byte(good), "http://127.0.0.1:1/.well-known/rap-toolset"); len(vs) != 0 || ts.Endpoint != "http://127.0.0.1:1/invoke" {
		t.Fatalf("good manifest: %v %+v", vs, ts)
	}
	tool := func(extra string) string {
		return `{"name":"t","endpoint":"http://x.test/invoke","tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}` + extra + `}]}`
	}
	cases := map[string]struct{ body, rule string }{
		"not json":           {`[`, RuleToolsetManifest},
		"no name":            {`{"endpoint":"http://x.test/i","tools":[{"name":"a","description":"d","inputSchema":{}}]}`, RuleToolsetManifest},
		"long name":          {`{"name":"` + string(bytes.Repeat([]byte("n"), 129)) + `","endpoint":"http://x.test/i","tools":[{"name":"a","description":"d","inputSchema":{}}]}`, RuleToolsetManifest},
		"no endpoint":        {`{"name":"t","tools":[{"name":"a","description":"d","inputSchema":{}}]}`, RuleToolsetManifest},
		"ftp endpoint":       {`{"name":"t","endpoint":"ftp://x.test/i","tools":[{"name":"a","description":"d","inputSchema":{}}]}`, RuleToolsetManifest},
		"no tools":           {`{"name":"t","endpoint":"http://x.test/i","tools":[]}`, RuleToolsetManifest},
		"bad tool name":      {`{"name":"t","endpoint":"http://x.test/i","tools":[{"name":"a b","description":"d","inputSchema":{}}]}`, RuleToolsetManifest},
		"no description":     {`{"name":"t","endpoint":"http://x.test/i","tools":[{"name":"a","inputSchema":{}}]}`, RuleToolsetManifest},
		"schema not object":  {`{"name":"t","endpoint":"http://x.test/i","tools":[{"name":"a","description":"d","inputSchema":true}]}`, RuleToolsetManifest},
		"invalid schema":     {`{"name":"t","endpoint":"http://x.test/i","tools":[{"name":"a","description":"d","inputSchema":{"type":12}}]}`, RuleToolsetManifest},
		"remote ref":         {`{"name":"t","endpoint":"http://x.test/i","tools":[{"name":"a","description":"d","inputSchema":{"$ref":"http://schemas.test/x.json"}}]}`, RuleToolsetManifest},
		"annotation type":    {tool(`,"annotations":{"readOnly":"yes"}`), RuleToolsetManifest},
		"annotations array":  {tool(`,"annotations":[]`), RuleToolsetManifest},
		"duplicate tool":     {`{"name":"t","endpoint":"http://x.test/i","tools":[{"name":"a","description":"d","inputSchema":{}},{"name":"a","description":"e","inputSchema":{}}]}`, RuleToolsetUnique},
		"migration not bool": {`{"name":"t","endpoint":"http://x.test/i","needsMigration":"yes","tools":[{"name":"a","description":"d","inputSchema":{}}]}`, RuleToolsetManifest},
	}
	for name, tc := range cases {
		ts, vs := ParseToolset([]byte(tc.body), "http://x.test/.well-known/rap-toolset")
		if ts != nil || len(vs) == 0 || vs[0].Rule != tc.rule {
			t.Errorf("%s: toolset %v violations %v, want %s", name, ts, vs, tc.rule)
		}
	}
	if _, vs := ParseToolset([]byte(tool(`,"annotations":{"readOnly":true,"requiresAuth":"github","x-acme-tier":3}`)), "http://x.test/"); len(vs) != 0 {
		t.Errorf("typed and namespaced annotations are fine: %v", vs)
	}
}

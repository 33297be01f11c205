package rap_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h2non/gock"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
)

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

type msg struct {
	ct   string // default application/json
	body any
}

// Each case plays the tool by hand: its messages break one rule (or none,
// for the fixed counterparts) and the outcome must name exactly the rules
// listed.
func TestCallbackRules(t *testing.T) {
	diff := map[string]any{"type": "diff", "content": map[string]any{"path": "a.go", "patch": "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n"}}
	text := map[string]any{"type": "text", "content": "edit a.go — 1 change"}
	ok := func(inv rap.Invocation) map[string]any { return result(inv, "done") }
	event := func(inv rap.Invocation, final bool) map[string]any {
		return map[string]any{"type": "subscription_event", "group_id": inv.GroupID, "tool_call_id": inv.ID, "text": `{"n":1}`, "final": final}
	}
	cases := []struct {
		name   string
		rev    rap.Revision
		callID *string
		expect bool
		msgs   func(inv rap.Invocation) []msg
		want   []string
		status rap.Status
	}{
		{name: "clean result", msgs: func(inv rap.Invocation) []msg { return []msg{{body: ok(inv)}} }},
		{name: "content-type not json", want: []string{rap.RuleCallbackJSON},
			msgs: func(inv rap.Invocation) []msg { return []msg{{ct: "text/plain", body: ok(inv)}} }},
		{name: "body not json", want: []string{rap.RuleCallbackJSON},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: "done"}, {body: ok(inv)}} }},
		{name: "missing text", want: []string{rap.RuleCallbackFields},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: with(ok(inv), "text", nil)}, {body: ok(inv)}} }},
		{name: "text not a string", want: []string{rap.RuleCallbackFields},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: with(ok(inv), "text", 5)}, {body: ok(inv)}} }},
		{name: "user_choice unknown in June revision", want: []string{rap.RuleCallbackType},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: map[string]any{"type": "user_choice", "group_id": inv.GroupID, "id": inv.ID, "prompt": "p", "choices": []string{"a"}, "response_url": fakeBase + "/choice"}}, {body: ok(inv)}}
			}},
		{name: "view_update unknown in June revision", want: []string{rap.RuleCallbackType},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: map[string]any{"type": "view_update", "group_id": inv.GroupID, "view_type": "diff", "content": map[string]any{}}}, {body: ok(inv)}}
			}},
		{name: "call_id echoed", callID: ptr("c-1"), msgs: func(inv rap.Invocation) []msg { return []msg{{body: ok(inv)}} }},
		{name: "call_id changed", callID: ptr("c-1"), want: []string{rap.RuleCallIDEcho},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: with(ok(inv), "call_id", "c-2")}} }},
		{name: "text segment content object", want: []string{rap.RuleDisplaySegment},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "display_as", []any{map[string]any{"type": "text", "content": map[string]any{"t": 1}}})}}
			}},
		{name: "diff segment content string", want: []string{rap.RuleDisplaySegment},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "display_as", []any{map[string]any{"type": "diff", "content": "--- a"}, text})}}
			}},
		{name: "diff then text", msgs: func(inv rap.Invocation) []msg { return []msg{{body: with(ok(inv), "display_as", []any{diff, text})}} }},
		{name: "diff without text fallback", want: []string{rap.RuleDisplayTextLast},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: with(ok(inv), "display_as", []any{text, diff})}} }},
		{name: "text segment two lines", want: []string{rap.RuleDisplayTextShort},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "display_as", []any{map[string]any{"type": "text", "content": "line one\nline two"}})}}
			}},
		{name: "image segment skipped in June revision",
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "display_as", []any{map[string]any{"type": "image", "content": 7}, text})}}
			}},
		{name: "error with prefix", expect: true, msgs: func(inv rap.Invocation) []msg {
			return []msg{{body: result(inv, "Error: quota exceeded. Retry after 60 seconds.")}}
		}},
		{name: "expected error without prefix", expect: true, want: []string{rap.RuleErrorPrefix},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: result(inv, "quota exceeded")}} }},
		{name: "error-like text without prefix", want: []string{rap.RuleErrorPrefix},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: result(inv, "FAILED: quota exceeded")}} }},
		{name: "stack trace", want: []string{rap.RuleNoStackTrace},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: result(inv, "Error: boom\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d")}}
			}},
		{name: "python trace", want: []string{rap.RuleNoStackTrace},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: result(inv, "Error: Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>")}}
			}},
		{name: "own callback secret leaked", want: []string{rap.RuleNoSecrets},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: result(inv, "posting to "+inv.CallbackURL)}} }},
		{name: "key-like string", want: []string{rap.RuleNoSecrets},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: result(inv, "using key sk-proj-abcdefghijklmnopqrstuvwxyz0123")}}
			}},
		{name: "identical duplicate", want: []string{rap.RuleDuplicateResult},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: ok(inv)}, {body: ok(inv)}} }},
		{name: "different second result", want: []string{rap.RuleSingleResult},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: ok(inv)}, {body: result(inv, "other")}} }},
		{name: "event without subscription", want: []string{rap.RuleSubscriptionEvent},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: ok(inv)}, {body: event(inv, true)}} }},
		{name: "event after final", want: []string{rap.RuleSubscriptionEvent},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "subscription", true)}, {body: event(inv, true)}, {body: event(inv, false)}}
			}},
		{name: "subscription then final", msgs: func(inv rap.Invocation) []msg {
			return []msg{{body: with(ok(inv), "subscription", true)}, {body: event(inv, false)}, {body: event(inv, true)}}
		}},
		{name: "oauth over http", want: []string{rap.RuleOAuthHTTPS}, callID: ptr("c-3"),
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: map[string]any{"type": "oauth", "group_id": inv.GroupID, "id": inv.ID, "call_id": "c-3", "auth_url": "http://idp.test/authorize"}}, {body: ok(inv)}}
			}},
		{name: "oauth defers the deadline", status: rap.StatusAuthPending,
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: map[string]any{"type": "oauth", "group_id": inv.GroupID, "id": inv.ID, "auth_url": "https://idp.test/authorize?state=s"}}}
			}},
		{name: "nothing at all", want: []string{rap.RuleNoSilentDrop}, status: rap.StatusTimeout,
			msgs: func(inv rap.Invocation) []msg { return nil }},
		// The newer revision.
		{name: "head: content with image", rev: rap.RevisionHead,
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "text", nil, "content", []any{map[string]any{"type": "text", "text": "chart:"}, map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mediaType": "image/png"}})}}
			}},
		{name: "head: neither text nor content", rev: rap.RevisionHead, want: []string{rap.RuleCallbackFields},
			msgs: func(inv rap.Invocation) []msg { return []msg{{body: with(ok(inv), "text", nil)}, {body: ok(inv)}} }},
		{name: "head: bad content item", rev: rap.RevisionHead, want: []string{rap.RuleCallbackFields},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "content", []any{map[string]any{"type": "audio"}})}, {body: ok(inv)}}
			}},
		{name: "head: image segment without data", rev: rap.RevisionHead, want: []string{rap.RuleDisplaySegment},
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: with(ok(inv), "display_as", []any{map[string]any{"type": "image", "content": map[string]any{"mediaType": "image/png"}}, text})}}
			}},
		{name: "head: view_update", rev: rap.RevisionHead,
			msgs: func(inv rap.Invocation) []msg {
				return []msg{{body: map[string]any{"type": "view_update", "group_id": inv.GroupID, "view_type": "diff", "content": map[string]any{"patch": "x"}}}, {body: ok(inv)}}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := gockRuntime(t, rap.Options{Revision: tc.rev, Deadline: 300 * time.Millisecond})
			ch := fakeTool(t)
			out := invokeManual(t, h, ch, rap.InvokeRequest{Operation: "echo", Arguments: args(map[string]any{"text": "x"}), CallID: tc.callID, ExpectError: tc.expect},
				func(inv rap.Invocation) {
					for _, m := range tc.msgs(inv) {
						ct := m.ct
						if ct == "" {
							ct = "application/json"
						}
						post(t, inv.CallbackURL, ct, m.body)
					}
				})
			if got := sortedIDs(out); !sameRules(got, tc.want...) {
				t.Errorf("rules %v, want %v\n%v", got, tc.want, out.Violations)
			}
			want := tc.status
			if want == "" {
				want = rap.StatusCompleted
			}
			if out.Status != want {
				t.Errorf("status %s, want %s", out.Status, want)
			}
			// Whatever was sent, the thread holds the call and at most one
			// result for it.
			c, _ := h.rt.Conversation(out.GroupID)
			results := 0
			for _, turn := range c.Turns {
				for _, r := range turn.Results() {
					if r.CallID == out.ID {
						results++
					}
				}
			}
			if results > 1 {
				t.Errorf("%d results delivered for one call", results)
			}
		})
	}
}

// A user_choice is answered with its default selection at response_url;
// the tool then sends the result.
func TestUserChoiceAnswered(t *testing.T) {
	h := gockRuntime(t, rap.Options{Revision: rap.RevisionHead})
	ch := fakeTool(t)
	answered := make(chan map[string]any, 1)
	gock.New(fakeBase).Post("/user_choice_response").AddMatcher(func(req *http.Request, _ *gock.Request) (bool, error) {
		var body map[string]any
		_ = json.NewDecoder(req.Body).Decode(&body)
		answered <- body
		return true, nil
	}).Reply(200)
	out := invokeManual(t, h, ch, rap.InvokeRequest{Operation: "echo", Arguments: args(map[string]any{"text": "x"})}, func(inv rap.Invocation) {
		post(t, inv.CallbackURL, "application/json", map[string]any{"type": "user_choice", "group_id": inv.GroupID, "id": inv.ID,
			"prompt": "Allow?", "choices": []string{"Yes", "No"}, "default": 1, "response_url": fakeBase + "/user_choice_response"})
		got := <-answered
		if got["id"] != inv.ID || got["selected"] != float64(1) {
			t.Errorf("answer %v", got)
		}
		post(t, inv.CallbackURL, "application/json", result(inv, "allowed: no"))
	})
	if out.Status != rap.StatusCompleted || len(out.UserChoices) != 1 || len(out.Violations) != 0 {
		t.Errorf("%+v", out)
	}
}

// Cancelling sends cancel_tool_call once and injects an interrupted
// result; a result arriving afterwards is acknowledged and ignored.
func TestCancelIgnoresLateResult(t *testing.T) {
	h := newHarness(t, rap.Options{})
	tool, url := startTool(t, "")
	done := make(chan *rap.Outcome, 1)
	go func() {
		done <- invoke(t, h.rt, rap.InvokeRequest{ToolURL: url, Operation: "slow", Arguments: args(map[string]any{"ms": 60000})})
	}()
	var inv = waitInvocation(t, tool)
	if err := h.rt.Cancel(t.Context(), inv.GroupID, inv.ID); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if out.Status != rap.StatusCancelled || !out.Result.Synthetic || !strings.Contains(out.Result.Text, "interrupted") {
		t.Fatalf("%+v", out)
	}
	if c := tool.Cancels(); len(c) != 1 || c[0].ThreadID != inv.GroupID || c[0].ToolCallID != inv.ID {
		t.Errorf("cancels %+v", c)
	}
	// The tool ignores the advisory cancel and answers anyway.
	late := map[string]any{"type": "tool_result", "group_id": inv.GroupID, "id": inv.ID, "call_id": nil, "text": "late answer"}
	if st := post(t, inv.CallbackURL, "application/json", late); st != http.StatusOK {
		t.Errorf("late result answered %d", st)
	}
	out, _ = h.rt.Snapshot(inv.GroupID, inv.ID)
	c, _ := h.rt.Conversation(inv.GroupID)
	if out.Ignored != 1 || len(out.Violations) != 0 || strings.Contains(c.Turns[len(c.Turns)-1].Results()[0].Text(), "late") {
		t.Errorf("late result leaked: %+v", out)
	}
	if err := h.rt.Cancel(t.Context(), inv.GroupID, inv.ID); err == nil {
		t.Error("a closed call cannot be cancelled twice")
	}
}

func waitInvocation(t *testing.T, tool *reftool.Tool) reftool.Invocation {
	t.Helper()
	for range 2000 {
		if invs := tool.Invocations(); len(invs) > 0 {
			return invs[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("tool never invoked")
	return reftool.Invocation{}
}

// Callbacks without a valid secret are refused and never journaled
// against a call.
func TestCallbackCapabilityRequired(t *testing.T) {
	h := newHarness(t, rap.Options{})
	for _, path := range []string{rap.CallbackPrefix, rap.CallbackPrefix + "not-a-secret", rap.CallbackPrefix + "a/b"} {
		if st := post(t, h.srv.URL+path, "application/json", map[string]any{"type": "tool_result"}); st != http.StatusNotFound {
			t.Errorf("%s: %d", path, st)
		}
	}
	if h.rt.Rejected() != 3 {
		t.Errorf("rejected %d", h.rt.Rejected())
	}
	if len(h.store.List()) != 0 {
		t.Error("a forged callback must not create a session")
	}
}

// Messages of one thread are processed one at a time: many calls in the
// same group answered concurrently all land, each exactly once.
func TestOneGroupManyConcurrentResults(t *testing.T) {
	h := newHarness(t, rap.Options{})
	tool, url := startTool(t, "")
	const n = 25
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := invoke(t, h.rt, rap.InvokeRequest{ToolURL: url, Operation: "echo", GroupID: "thread_shared",
				Arguments: args(map[string]any{"text": strings.Repeat("x", i+1)})})
			if out.Result == nil || len(out.Result.Text) != i+1 || len(out.Violations) != 0 {
				t.Errorf("call %d: %+v", i, out)
			}
		}()
	}
	wg.Wait()
	tool.Wait()
	c, _ := h.rt.Conversation("thread_shared")
	calls, results := 0, 0
	for _, turn := range c.Turns {
		calls += len(turn.Calls())
		results += len(turn.Results())
		if turn.Role == conv.User && len(turn.Results()) != 1 {
			t.Errorf("malformed turn %+v", turn)
		}
	}
	if calls != n || results != n {
		t.Errorf("calls %d results %d", calls, results)
	}
}

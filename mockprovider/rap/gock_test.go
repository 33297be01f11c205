package rap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/h2non/gock"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
)

// The fake tool lives at this host; gock answers for it on the runtime's
// outbound client, while callbacks go to the real loopback runtime.
const fakeBase = "http://tool.test"

// gockRuntime is a harness whose outbound client gock intercepts.
func gockRuntime(t *testing.T, opts rap.Options) *harness {
	t.Helper()
	client := &http.Client{}
	gock.InterceptClient(client)
	opts.Client = client
	t.Cleanup(func() {
		gock.RestoreClient(client)
		gock.Off()
		gock.CleanUnmatchedRequest()
	})
	return newHarness(t, opts)
}

// fakeTool mocks discovery (the reference manifest at fakeBase) and the
// invoke endpoint, answering statuses in turn (the last one persists); the
// received invocations arrive on the channel.
func fakeTool(t *testing.T, statuses ...int) <-chan rap.Invocation {
	t.Helper()
	gock.New(fakeBase).Get("/.well-known/rap-toolset").Persist().Reply(200).JSON(reftool.Manifest(fakeBase))
	if len(statuses) == 0 {
		statuses = []int{200}
	}
	ch := make(chan rap.Invocation, 16)
	capture := func(req *http.Request, _ *gock.Request) (bool, error) {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(b))
		var inv rap.Invocation
		if json.Unmarshal(b, &inv) == nil {
			select {
			case ch <- inv:
			default:
			}
		}
		return true, nil
	}
	for i, st := range statuses {
		m := gock.New(fakeBase).Post("/invoke").AddMatcher(capture)
		if i == len(statuses)-1 {
			m.Persist()
		}
		m.Reply(st)
	}
	return ch
}

// post sends a callback body to a URL as a tool would.
func post(t *testing.T, url, contentType string, body any) int {
	t.Helper()
	var b []byte
	if s, ok := body.(string); ok {
		b = []byte(s)
	} else {
		b, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", contentType)
	resp, err := plainClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func result(inv rap.Invocation, text string) map[string]any {
	return map[string]any{"type": "tool_result", "group_id": inv.GroupID, "id": inv.ID, "call_id": inv.CallID, "text": text}
}

// invokeManual invokes through the fake tool, lets send play the tool's
// part, then returns the call's final snapshot.
func invokeManual(t *testing.T, h *harness, ch <-chan rap.Invocation, req rap.InvokeRequest, send func(inv rap.Invocation)) *rap.Outcome {
	t.Helper()
	req.ToolURL = fakeBase
	type res struct {
		o   *rap.Outcome
		err error
	}
	done := make(chan res, 1)
	go func() {
		o, err := h.rt.Invoke(context.Background(), req)
		done <- res{o, err}
	}()
	var inv rap.Invocation
	var r res
	finished := false
	select {
	case inv = <-ch:
	case r = <-done:
		// Invoke may finish (a 4xx answer) in the same instant the
		// invocation was captured; select picks either then.
		select {
		case inv = <-ch:
			finished = true
		default:
			t.Fatalf("Invoke returned before invoking: %+v %v", r.o, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no invocation")
	}
	if send != nil {
		send(inv)
	}
	if !finished {
		r = <-done
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	o, _ := h.rt.Snapshot(r.o.GroupID, r.o.ID)
	return o
}

func TestInvocationWireShape(t *testing.T) {
	h := gockRuntime(t, rap.Options{})
	ch := fakeTool(t)
	for _, callID := range []*string{nil, ptr("model-call-9")} {
		var raw map[string]json.RawMessage
		out := invokeManual(t, h, ch, rap.InvokeRequest{Operation: "echo", Arguments: args(map[string]any{"text": "hi"}), CallID: callID,
			GroupID: "thread_child", ThreadAncestors: []string{"thread_root"}, UserID: "user_42"},
			func(inv rap.Invocation) {
				b, _ := json.Marshal(inv)
				_ = json.Unmarshal(b, &raw)
				if inv.Operation != "echo" || string(inv.Arguments) != `{"text":"hi"}` || inv.GroupID != "thread_child" ||
					inv.UserID != "user_42" || len(inv.ThreadAncestors) != 1 || !strings.HasPrefix(inv.ID, "call_") {
					t.Errorf("invocation %+v", inv)
				}
				if (callID == nil) != (inv.CallID == nil) || (callID != nil && *inv.CallID != *callID) {
					t.Errorf("call_id %v, want %v", inv.CallID, callID)
				}
				prefix := h.srv.URL + rap.CallbackPrefix
				secret := strings.TrimPrefix(inv.CallbackURL, prefix)
				if !strings.HasPrefix(inv.CallbackURL, prefix) || len(secret) < 40 {
					t.Errorf("callback_url %q carries no capability secret", inv.CallbackURL)
				}
				// Without the secret the same message is refused.
				if st := post(t, h.srv.URL+rap.CallbackPrefix, "application/json", result(inv, "forged")); st != http.StatusNotFound {
					t.Errorf("secretless callback answered %d", st)
				}
				if st := post(t, inv.CallbackURL, "application/json", result(inv, "hi")); st != http.StatusOK {
					t.Errorf("callback answered %d", st)
				}
			})
		if _, ok := raw["call_id"]; !ok {
			t.Error("call_id must be sent, as null when absent")
		}
		if out.Status != rap.StatusCompleted || out.Result.Text != "hi" || len(out.Violations) != 0 {
			t.Errorf("outcome %+v", out)
		}
	}
}

func TestInvocationRetries(t *testing.T) {
	t.Run("5xx retried then 200", func(t *testing.T) {
		h := gockRuntime(t, rap.Options{})
		ch := fakeTool(t, 503, 502, 200)
		out := invokeManual(t, h, ch, rap.InvokeRequest{Operation: "echo", Arguments: args(map[string]any{"text": "x"})}, func(inv rap.Invocation) {
			for range 2 { // the retried attempts arrived first
				<-ch
			}
			post(t, inv.CallbackURL, "application/json", result(inv, "x"))
		})
		if out.Attempts != 3 || len(out.Violations) != 0 || out.Status != rap.StatusCompleted {
			t.Errorf("attempts %d violations %v status %s", out.Attempts, out.Violations, out.Status)
		}
	})
	t.Run("4xx never retried", func(t *testing.T) {
		h := gockRuntime(t, rap.Options{})
		ch := fakeTool(t, 400)
		out := invokeManual(t, h, ch, rap.InvokeRequest{Operation: "echo", Arguments: args(map[string]any{"text": "x"})}, nil)
		if out.Attempts != 1 || out.Status != rap.StatusFailed || !sameRules(sortedIDs(out), rap.RuleInvocationAck) {
			t.Errorf("attempts %d status %s %v", out.Attempts, out.Status, out.Violations)
		}
		want := "RAP tool 'echo' failed: the server at http://tool.test/invoke responded with HTTP 400. No result will arrive for this call."
		if !out.Result.Synthetic || out.Result.Text != want {
			t.Errorf("synthetic result %q", out.Result.Text)
		}
	})
	t.Run("unreachable retried with backoff", func(t *testing.T) {
		h := gockRuntime(t, rap.Options{Retry: rap.Retry{Attempts: 3}})
		gock.New(fakeBase).Get("/.well-known/rap-toolset").Persist().Reply(200).JSON(reftool.Manifest(fakeBase))
		gock.New(fakeBase).Post("/invoke").Persist().ReplyError(errors.New("connection refused"))
		out := invoke(t, h.rt, rap.InvokeRequest{ToolURL: fakeBase, Operation: "echo", Arguments: args(map[string]any{"text": "x"})})
		if out.Attempts != 3 || out.Status != rap.StatusFailed || !sameRules(sortedIDs(out), rap.RuleInvocationAck) {
			t.Errorf("attempts %d status %s %v", out.Attempts, out.Status, out.Violations)
		}
	})
}

func TestDiscoveryRejectsBadToolsetsWhole(t *testing.T) {
	h := gockRuntime(t, rap.Options{})
	m := reftool.Manifest(fakeBase)
	tools := m["tools"].([]map[string]any)
	m["tools"] = append(tools, tools[0]) // echo twice
	gock.New(fakeBase).Get("/.well-known/rap-toolset").Reply(200).JSON(m)
	out, err := h.rt.Invoke(context.Background(), rap.InvokeRequest{ToolURL: fakeBase, Operation: "fail", Arguments: args(map[string]any{"message": "m"})})
	var te *rap.ToolsetError
	if !errors.As(err, &te) || out == nil || !sameRules(sortedIDs(out), rap.RuleToolsetUnique) {
		t.Fatalf("err %v outcome %+v", err, out)
	}
	if gock.HasUnmatchedRequest() {
		t.Error("nothing may be invoked from a rejected toolset")
	}

	gock.New(fakeBase).Get("/.well-known/rap-toolset").Reply(404)
	if _, err := h.rt.Invoke(context.Background(), rap.InvokeRequest{ToolURL: fakeBase, Operation: "echo"}); !errors.As(err, &te) {
		t.Errorf("404 discovery: %v", err)
	}
}

func TestArgumentsValidatedBeforeDispatch(t *testing.T) {
	h := gockRuntime(t, rap.Options{})
	gock.New(fakeBase).Get("/.well-known/rap-toolset").Persist().Reply(200).JSON(reftool.Manifest(fakeBase))
	for _, tc := range []struct{ op, args string }{
		{"echo", `{"text":5}`},
		{"echo", `{}`},
		{"subscribe", `{"count":0}`},
		{"nope", `{}`},
		{"echo", `[1]`},
	} {
		_, err := h.rt.Invoke(context.Background(), rap.InvokeRequest{ToolURL: fakeBase, Operation: tc.op, Arguments: json.RawMessage(tc.args)})
		var re *rap.RequestError
		if !errors.As(err, &re) {
			t.Errorf("%s %s: want RequestError, got %v", tc.op, tc.args, err)
		}
	}
	if gock.HasUnmatchedRequest() {
		t.Error("an invalid call must not be dispatched")
	}
}

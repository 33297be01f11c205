// Package reftool is the reference RAP tool: an honest HTTP server for the
// conformance toolset (echo, fail, edit, subscribe, slow), plus broken
// variants that each break one protocol rule, so the runtime's judgement
// can be tested against known-good and known-bad tools.
//
// It is written against the protocol text alone, independently of the
// runtime package, so the two check each other.
package reftool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Broken variants (--break NAME). Each breaks one rule the way a real tool
// might.
const (
	BreakWrongGroupID  = "wrong-group-id"     // results carry another group_id
	BreakNoCallIDEcho  = "no-call-id-echo"    // call_id never echoed
	BreakMalformedDiff = "malformed-diff"     // edit's diff patch is not a unified diff
	BreakNoResult      = "no-result"          // invocations acknowledged, never answered
	BreakDuplicate     = "duplicate-delivery" // every result sent twice
	BreakUnmatchedID   = "unmatched-id"       // results carry another id
	BreakNoErrorPrefix = "no-error-prefix"    // fail answers "error: …" instead of "Error: …"
	BreakNon200        = "non-200-invocation" // invocations answered 202 Accepted
	BreakUnknownType   = "unknown-type"       // results sent with type "tool_output"
)

// Breaks lists every variant name.
var Breaks = []string{BreakWrongGroupID, BreakNoCallIDEcho, BreakMalformedDiff, BreakNoResult, BreakDuplicate,
	BreakUnmatchedID, BreakNoErrorPrefix, BreakNon200, BreakUnknownType}

// Options configure a Tool.
type Options struct {
	// Break selects a broken variant ("" = honest).
	Break string
	// Client posts callbacks. Default: its own transport (never
	// http.DefaultTransport, which test doubles may replace).
	Client *http.Client
	// CallbackAttempts and CallbackBackoff govern callback retries on 5xx
	// and transport errors (never 4xx); defaults 4 and 50ms, doubling.
	CallbackAttempts int
	CallbackBackoff  time.Duration
}

// Invocation is what the tool received (wire names of https://infinity.hydro.run/docs/rap/spec/basic/tool-invocation).
type Invocation struct {
	Operation       string          `json:"operation"`
	Arguments       json.RawMessage `json:"arguments"`
	ID              string          `json:"id"`
	CallID          *string         `json:"call_id"`
	CallbackURL     string          `json:"callback_url"`
	GroupID         string          `json:"group_id"`
	ThreadAncestors []string        `json:"thread_ancestors,omitempty"`
	UserID          *string         `json:"user_id,omitempty"`
}

// Cancel is a received cancel_tool_call.
type Cancel struct {
	ThreadID   string `json:"thread_id"`
	ToolCallID string `json:"tool_call_id"`
}

// Tool is the reference tool; it is an http.Handler.
type Tool struct {
	opts Options
	mux  *http.ServeMux
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu          sync.Mutex
	invocations []Invocation
	cancels     []Cancel
	running     map[[2]string]context.CancelFunc
	sent        int
}

// New builds a tool; an unknown break name is an error.
func New(opts Options) (*Tool, error) {
	if opts.Break != "" && !slices.Contains(Breaks, opts.Break) {
		return nil, fmt.Errorf("unknown --break %q (want one of %s)", opts.Break, strings.Join(Breaks, ", "))
	}
	if opts.Client == nil {
		tr, ok := http.DefaultTransport.(*http.Transport)
		if ok {
			tr = tr.Clone()
		} else {
			tr = &http.Transport{}
		}
		opts.Client = &http.Client{Timeout: 10 * time.Second, Transport: tr}
	}
	if opts.CallbackAttempts <= 0 {
		opts.CallbackAttempts = 4
	}
	if opts.CallbackBackoff <= 0 {
		opts.CallbackBackoff = 50 * time.Millisecond
	}
	t := &Tool{opts: opts, mux: http.NewServeMux(), running: map[[2]string]context.CancelFunc{}}
	t.ctx, t.stop = context.WithCancel(context.Background())
	t.mux.HandleFunc("GET /.well-known/rap-toolset", t.manifest)
	t.mux.HandleFunc("POST /invoke", t.invoke)
	t.mux.HandleFunc("POST /cancel_tool_call", t.cancel)
	t.mux.HandleFunc("POST /close_thread", func(w http.ResponseWriter, r *http.Request) { ok(w) })
	return t, nil
}

func (t *Tool) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.mux.ServeHTTP(w, r) }

// Close stops pending work (slow sleeps, subscriptions) and waits for it.
func (t *Tool) Close() {
	t.stop()
	t.wg.Wait()
}

// Wait blocks until every accepted invocation has finished its callbacks.
func (t *Tool) Wait() { t.wg.Wait() }

// Invocations returns what the tool received, in order.
func (t *Tool) Invocations() []Invocation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.invocations)
}

// Cancels returns the cancel_tool_call requests received.
func (t *Tool) Cancels() []Cancel {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.cancels)
}

// Sent counts callbacks the runtime acknowledged with 200.
func (t *Tool) Sent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent
}

func ok(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"ok":true}`))
}

func obj(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","properties":` + props + `,"required":` + string(req) + `,"additionalProperties":false}`)
}

// Manifest is the toolset for a tool reachable at base.
func Manifest(base string) map[string]any {
	return map[string]any{
		"name":        "toolwire-reftool",
		"description": "The toolwire RAP conformance toolset.",
		"endpoint":    strings.TrimRight(base, "/") + "/invoke",
		"tools": []map[string]any{
			{"name": "echo", "description": "Returns text unchanged.", "inputSchema": obj(`{"text":{"type":"string"}}`, "text"),
				"annotations": map[string]any{"readOnly": true, "idempotent": true}},
			{"name": "fail", "description": "Fails with message, as an ordinary error result.", "inputSchema": obj(`{"message":{"type":"string"}}`, "message"),
				"annotations": map[string]any{"readOnly": true}},
			{"name": "edit", "description": "Pretends to edit the file at path; the result displays a diff.", "inputSchema": obj(`{"path":{"type":"string","minLength":1}}`, "path"),
				"annotations": map[string]any{"destructive": true}},
			{"name": "subscribe", "description": "Starts a subscription that delivers count events, the last one final.", "inputSchema": obj(`{"count":{"type":"integer","minimum":1,"maximum":1000}}`, "count"),
				"annotations": map[string]any{"longRunning": true}},
			{"name": "slow", "description": "Answers after ms milliseconds.", "inputSchema": obj(`{"ms":{"type":"integer","minimum":0,"maximum":3600000}}`, "ms"),
				"annotations": map[string]any{"longRunning": true, "readOnly": true}},
		},
	}
}

func (t *Tool) manifest(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	b, _ := json.Marshal(Manifest(scheme + "://" + r.Host))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (t *Tool) cancel(w http.ResponseWriter, r *http.Request) {
	var c Cancel
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&c)
	t.mu.Lock()
	t.cancels = append(t.cancels, c)
	if stop, ok := t.running[[2]string{c.ThreadID, c.ToolCallID}]; ok {
		stop()
	}
	t.mu.Unlock()
	ok(w) // always 200, even for unknown ids (https://infinity.hydro.run/docs/rap/spec/server/subscription-events)
}

// invoke acknowledges at once and works in the background. A malformed
// invocation with a usable callback still gets an error result.
func (t *Tool) invoke(w http.ResponseWriter, r *http.Request) {
	var inv Invocation
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&inv); err != nil || inv.CallbackURL == "" || inv.GroupID == "" || inv.ID == "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"not a RAP invocation"}`))
		return
	}
	t.mu.Lock()
	t.invocations = append(t.invocations, inv)
	t.mu.Unlock()
	if t.opts.Break == BreakNon200 {
		// A tool that fails on every invocation. (A tool that answered
		// non-200 and still worked would race its own result against the
		// runtime reading the status.)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"internal error"}`))
		return
	}
	ctx, stop := context.WithCancel(t.ctx)
	key := [2]string{inv.GroupID, inv.ID}
	t.mu.Lock()
	t.running[key] = stop
	t.mu.Unlock()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer func() {
			stop()
			t.mu.Lock()
			delete(t.running, key)
			t.mu.Unlock()
		}()
		t.work(ctx, inv)
	}()
	ok(w)
}

func (t *Tool) work(ctx context.Context, inv Invocation) {
	if t.opts.Break == BreakNoResult {
		return
	}
	var args map[string]any
	_ = json.Unmarshal(inv.Arguments, &args)
	str := func(k string) (string, bool) { s, ok := args[k].(string); return s, ok }
	num := func(k string) (int, bool) {
		f, ok := args[k].(float64)
		return int(f), ok && f == float64(int(f))
	}
	switch inv.Operation {
	case "echo":
		text, ok := str("text")
		if !ok {
			t.result(inv, t.errorText("echo needs a string text argument"), nil, false)
			return
		}
		t.result(inv, text, nil, false)
	case "fail":
		msg, _ := str("message")
		t.result(inv, t.errorText(msg), nil, false)
	case "edit":
		path, ok := str("path")
		if !ok || path == "" {
			t.result(inv, t.errorText("edit needs a non-empty path"), nil, false)
			return
		}
		patch := "--- a/" + path + "\n+++ b/" + path + "\n@@ -1,2 +1,3 @@\n line one\n+inserted by toolwire\n line two\n"
		if t.opts.Break == BreakMalformedDiff {
			patch = "edited " + path + ": one line inserted"
		}
		display := []map[string]any{
			{"type": "diff", "content": map[string]any{"path": path, "patch": patch}},
			{"type": "text", "content": "edit " + path + " — 1 insertion"},
		}
		t.result(inv, "Replaced text in "+path, display, false)
	case "subscribe":
		count, ok := num("count")
		if !ok || count < 1 {
			t.result(inv, t.errorText("subscribe needs an integer count of at least 1"), nil, false)
			return
		}
		if !t.result(inv, "Subscribed: sub_"+inv.ID+" will deliver "+fmt.Sprint(count)+" events", nil, true) {
			return
		}
		for i := 1; i <= count && ctx.Err() == nil; i++ {
			ev := map[string]any{"type": "subscription_event", "group_id": inv.GroupID, "tool_call_id": inv.ID,
				"text": fmt.Sprintf(`{"seq":%d,"of":%d}`, i, count)}
			if i == count {
				ev["final"] = true
			}
			if !t.send(inv.CallbackURL, ev) {
				return
			}
		}
	case "slow":
		ms, ok := num("ms")
		if !ok || ms < 0 {
			t.result(inv, t.errorText("slow needs an integer ms of at least 0"), nil, false)
			return
		}
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-ctx.Done():
			return // cancelled: the runtime already closed the call
		}
		t.result(inv, fmt.Sprintf("Slept %d ms", ms), nil, false)
	default:
		t.result(inv, t.errorText(fmt.Sprintf("unknown operation %q; this toolset has echo, fail, edit, subscribe and slow", inv.Operation)), nil, false)
	}
}

func (t *Tool) errorText(msg string) string {
	if t.opts.Break == BreakNoErrorPrefix {
		return "error: " + msg
	}
	return "Error: " + msg
}

// result sends a tool_result; it reports whether the runtime accepted it.
func (t *Tool) result(inv Invocation, text string, display []map[string]any, subscription bool) bool {
	msg := map[string]any{"type": "tool_result", "group_id": inv.GroupID, "id": inv.ID, "call_id": inv.CallID, "text": text}
	if display != nil {
		msg["display_as"] = display
	}
	if subscription {
		msg["subscription"] = true
	}
	switch t.opts.Break {
	case BreakWrongGroupID:
		msg["group_id"] = inv.GroupID + "-elsewhere"
	case BreakUnmatchedID:
		msg["id"] = inv.ID + "-unmatched"
	case BreakNoCallIDEcho:
		delete(msg, "call_id")
	case BreakUnknownType:
		msg["type"] = "tool_output"
	}
	accepted := t.send(inv.CallbackURL, msg)
	if t.opts.Break == BreakDuplicate {
		accepted = t.send(inv.CallbackURL, msg) && accepted
	}
	return accepted
}

// send POSTs one callback, retrying 5xx and transport errors with
// exponential backoff and never 4xx (https://infinity.hydro.run/docs/rap/spec/basic/transport).
func (t *Tool) send(callbackURL string, msg map[string]any) bool {
	body, _ := json.Marshal(msg)
	backoff := t.opts.CallbackBackoff
	for attempt := 0; attempt < t.opts.CallbackAttempts; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(backoff):
			case <-t.ctx.Done():
				return false
			}
			backoff *= 2
		}
		// Callbacks outlive a cancel of the work itself: a result already
		// decided is still delivered, so only Close stops them.
		req, err := http.NewRequestWithContext(t.ctx, http.MethodPost, callbackURL, bytes.NewReader(body))
		if err != nil {
			return false
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := t.opts.Client.Do(req)
		if err != nil {
			continue
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			t.mu.Lock()
			t.sent++
			t.mu.Unlock()
			return true
		case resp.StatusCode < 500:
			return false
		}
	}
	return false
}

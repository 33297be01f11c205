// Package rap is a mock Reactive Agent Protocol runtime: it discovers a
// tool's toolset, invokes operations with a per-invocation capability
// callback URL, receives the tool's callbacks on that URL and judges every
// message against the RAP rules in the catalog (Rules). See README.md for
// the conformance toolset contract.
package rap

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Options configure a Runtime. The zero value is usable once a callback
// base URL is known (Options.BaseURL or per request).
type Options struct {
	// BaseURL is where tools reach the runtime, e.g. "http://127.0.0.1:8080";
	// empty = taken from the admin request's Host (or InvokeRequest.CallbackBase).
	BaseURL string
	// Revision is the protocol text tools are held to (default RevisionJune2026).
	Revision Revision
	// Client sends invocations, discovery, cancellations and user-choice
	// answers. Default: a client whose transport is http.DefaultTransport.
	Client *http.Client
	// Deadline is how long an invocation may go without a tool_result (or
	// oauth) before rap.no-silent-drop is reported and a synthetic error
	// result injected (default 30s). The protocol sets no timeout; this is
	// the runtime's documented application-level one.
	Deadline time.Duration
	// AckTimeout bounds each invocation POST: the tool must answer at once
	// (default 10s).
	AckTimeout time.Duration
	// Retry governs invocation retries on 5xx and unreachable tools.
	Retry Retry
	// MaxCalls bounds the call records kept for routing, duplicate
	// detection and snapshots (default 10000; the oldest are forgotten).
	MaxCalls int
	// Logger receives discarded and rejected callbacks (default: discard).
	Logger *slog.Logger
	// Targets is what POST /_toolwire/rap/invoke may reach besides
	// loopback (nil: loopback only; see ParseAllow). Invoke called from Go
	// reaches whatever its caller names.
	Targets *Targets
	// DiscoveryTimeout bounds fetching a toolset (default 10s).
	DiscoveryTimeout time.Duration
}

// Retry is exponential backoff for invocations (https://infinity.hydro.run/docs/rap/spec/basic/lifecycle).
type Retry struct {
	Attempts int           // total attempts, default 4
	Initial  time.Duration // first backoff, default 100ms
	Max      time.Duration // backoff cap, default 2s
}

// DefaultSession is the session key used when a request names none.
const DefaultSession = "rap"

// CallbackPrefix is where callback URLs live; the path segment after it is
// the per-invocation secret.
const CallbackPrefix = "/_toolwire/rap/cb/"

// Status is how an invocation ended, as far as Invoke waited.
type Status string

const (
	StatusCompleted   Status = "completed"    // a tool_result was delivered
	StatusSubscribed  Status = "subscribed"   // result delivered, subscription still active at return
	StatusFailed      Status = "failed"       // the invocation was not acknowledged with 200
	StatusTimeout     Status = "timeout"      // nothing before the deadline (rap.no-silent-drop)
	StatusCancelled   Status = "cancelled"    // the runtime cancelled the call
	StatusAuthPending Status = "auth_pending" // oauth / user_choice received, result still pending
	StatusPending     Status = "pending"      // snapshot of a call still in flight
)

// InvokeRequest is one invocation to make. JSON names are those of
// POST /_toolwire/rap/invoke.
type InvokeRequest struct {
	ToolURL         string          `json:"tool_url"`
	Operation       string          `json:"operation"`
	Arguments       json.RawMessage `json:"arguments,omitempty"`
	CallID          *string         `json:"call_id,omitempty"`
	ID              string          `json:"id,omitempty"`       // default: minted call_…
	GroupID         string          `json:"group_id,omitempty"` // default: minted thread_…
	ThreadAncestors []string        `json:"thread_ancestors,omitempty"`
	UserID          string          `json:"user_id,omitempty"`
	// ExpectError says the caller expects an error result, so
	// rap.error-prefix is judged even when the text does not read like one.
	ExpectError bool `json:"expect_error,omitempty"`
	// DeadlineMS overrides Options.Deadline for this call.
	DeadlineMS int `json:"deadline_ms,omitempty"`
	// Session is the journal's session key (default "rap").
	Session string `json:"-"`
	// CallbackBase overrides Options.BaseURL for this call.
	CallbackBase string `json:"-"`
	// restricted: the request came through the admin API, so its targets
	// are held to Options.Targets and its errors say nothing of the
	// network behind them.
	restricted bool
}

// Outcome is what an invocation produced: the delivered result, events,
// other messages, counters and every violation, in arrival order.
type Outcome struct {
	Session          string              `json:"session"`
	ToolURL          string              `json:"tool_url"`
	Endpoint         string              `json:"endpoint,omitempty"`
	Operation        string              `json:"operation"`
	GroupID          string              `json:"group_id,omitempty"`
	ID               string              `json:"id,omitempty"`
	CallID           *string             `json:"call_id"`
	Status           Status              `json:"status"`
	InvocationStatus int                 `json:"invocation_status,omitempty"`
	Attempts         int                 `json:"attempts,omitempty"`
	Result           *ToolResult         `json:"result,omitempty"`
	Events           []SubscriptionEvent `json:"events,omitempty"`
	OAuth            []OAuthRequest      `json:"oauth,omitempty"`
	UserChoices      []UserChoice        `json:"user_choices,omitempty"`
	ViewUpdates      []ViewUpdate        `json:"view_updates,omitempty"`
	// SubscriptionActive: the result started a subscription that has not
	// ended (no final event, no cancel) yet.
	SubscriptionActive bool `json:"subscription_active,omitempty"`
	// Duplicates counts identical re-deliveries acknowledged but not delivered.
	Duplicates int `json:"duplicates,omitempty"`
	// Discarded counts messages on this call's URL that were rejected
	// (malformed, unmatched, conflicting).
	Discarded int `json:"discarded,omitempty"`
	// Ignored counts messages after the call was closed (cancel, deadline,
	// failed invocation), acknowledged and dropped.
	Ignored    int               `json:"ignored,omitempty"`
	Violations []rules.Violation `json:"violations"`
}

// MustViolations returns the MUST-level violations.
func (o *Outcome) MustViolations() []rules.Violation {
	var out []rules.Violation
	for _, v := range o.Violations {
		if v.Level == rules.MUST {
			out = append(out, v)
		}
	}
	return out
}

// RuleIDs lists the distinct violated rule IDs in first-seen order.
func (o *Outcome) RuleIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range o.Violations {
		if !seen[v.Rule] {
			seen[v.Rule] = true
			out = append(out, v.Rule)
		}
	}
	return out
}

// RequestError is a caller mistake (unknown operation, arguments that do
// not match the schema, missing fields): nothing was sent to the tool.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return "rap: " + e.Msg }

// ErrUnknownCall is returned by Cancel for a call the runtime does not track.
var ErrUnknownCall = errors.New("rap: no pending tool call or active subscription with that group_id and id")

// Runtime is the mock RAP runtime.
type Runtime struct {
	store *session.Store
	opts  Options

	mu       sync.Mutex
	bySecret map[string]*call
	byPair   map[pair]*call
	groups   map[string]*group
	order    []*call

	rejected atomic.Int64
	bg       sync.WaitGroup

	// guarded is the client for restricted invocations (see Targets).
	guarded *http.Client

	// onSerial, when set (tests), runs inside a thread's serial section.
	onSerial func(groupID string)
}

type pair struct{ group, id string }

// New builds a runtime journaling into store.
func New(store *session.Store, opts Options) *Runtime {
	if opts.Revision == "" {
		opts.Revision = RevisionJune2026
	}
	configured := opts.Client
	if opts.Client == nil {
		opts.Client = &http.Client{CheckRedirect: noRedirects}
	}
	if opts.Targets == nil {
		opts.Targets = &Targets{hosts: map[string]bool{}}
	}
	if opts.DiscoveryTimeout <= 0 {
		opts.DiscoveryTimeout = 10 * time.Second
	}
	if opts.Deadline <= 0 {
		opts.Deadline = 30 * time.Second
	}
	if opts.AckTimeout <= 0 {
		opts.AckTimeout = 10 * time.Second
	}
	if opts.Retry.Attempts <= 0 {
		opts.Retry.Attempts = 4
	}
	if opts.Retry.Initial <= 0 {
		opts.Retry.Initial = 100 * time.Millisecond
	}
	if opts.Retry.Max <= 0 {
		opts.Retry.Max = 2 * time.Second
	}
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = 10000
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runtime{store: store, opts: opts, guarded: opts.Targets.guardedClient(configured),
		bySecret: map[string]*call{}, byPair: map[pair]*call{}, groups: map[string]*group{}}
}

// Revision is the protocol revision the runtime enforces.
func (rt *Runtime) Revision() Revision { return rt.opts.Revision }

// Rejected counts callbacks refused because their URL carried no valid
// capability secret.
func (rt *Runtime) Rejected() int64 { return rt.rejected.Load() }

// Close waits for background work (user-choice answers) to finish.
func (rt *Runtime) Close() { rt.bg.Wait() }

// ParseRevision accepts a --rap-revision value ("" = default).
func ParseRevision(s string) (Revision, error) {
	if s == "" {
		return RevisionJune2026, nil
	}
	for _, r := range Revisions {
		if Revision(s) == r {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown RAP revision %q (want %s or %s)", s, RevisionJune2026, RevisionHead)
}

type callState int

const (
	stPending   callState = iota
	stDeferred            // oauth or user_choice received: result awaited without deadline
	stDone                // a tool_result was delivered
	stFailed              // invocation not acknowledged: synthetic result delivered
	stTimedOut            // deadline passed: synthetic result delivered
	stCancelled           // cancelled by the runtime
)

// closed states ignore any later message: the conversation already holds
// a synthetic result.
func (s callState) closed() bool { return s == stFailed || s == stTimedOut || s == stCancelled }

// call is one invocation's record. Mutations happen inside its group's
// serial section and under mu; snapshots take mu only.
type call struct {
	rt       *Runtime
	sess     *session.Session
	secret   string
	tool     *ToolDef
	req      InvokeRequest
	inv      Invocation
	group    *group
	deadline time.Duration
	client   *http.Client // the runtime's, or its guarded one (restricted)

	mu        sync.Mutex
	state     callState
	subActive bool
	resultKey string // canonical JSON of the delivered tool_result
	out       Outcome
	seq       int // callbacks received on this URL
	settled   chan struct{}
	isSettled bool
	// settleDue: a callback settled the call; settleIfDue wakes Invoke
	// once that callback is journaled.
	settleDue bool
}

func (c *call) violate(v rules.Violation) { c.out.Violations = append(c.out.Violations, v) }

// settle wakes Invoke once the call needs nothing more.
func (c *call) settle() {
	if !c.isSettled {
		c.isSettled = true
		close(c.settled)
	}
}

// settleIfDue settles the call if a callback has marked it due.
func (c *call) settleIfDue() {
	c.mu.Lock()
	if c.settleDue {
		c.settleDue = false
		c.settle()
	}
	c.mu.Unlock()
}

func (c *call) snapshot() *Outcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.out
	o.Events = append([]SubscriptionEvent(nil), o.Events...)
	o.OAuth = append([]OAuthRequest(nil), o.OAuth...)
	o.UserChoices = append([]UserChoice(nil), o.UserChoices...)
	o.ViewUpdates = append([]ViewUpdate(nil), o.ViewUpdates...)
	o.Violations = append([]rules.Violation{}, o.Violations...)
	if o.Result != nil {
		r := *o.Result
		o.Result = &r
	}
	o.SubscriptionActive = c.subActive
	o.Status = c.statusLocked()
	return &o
}

func (c *call) statusLocked() Status {
	switch c.state {
	case stDeferred:
		return StatusAuthPending
	case stDone:
		if c.subActive {
			return StatusSubscribed
		}
		return StatusCompleted
	case stFailed:
		return StatusFailed
	case stTimedOut:
		return StatusTimeout
	case stCancelled:
		return StatusCancelled
	}
	return StatusPending
}

// group is one conversation thread (group_id): its serial queue and the
// conversation the runtime delivered into it.
type group struct {
	id   string
	refs int // calls recorded in this group (guarded by Runtime.mu)

	qmu  sync.Mutex
	tail chan struct{}

	mu   sync.Mutex
	conv conv.Conversation
}

// enter waits for every earlier message of the thread to finish: a FIFO
// ticket queue, so one group's messages run one at a time in arrival order
// (https://infinity.hydro.run/docs/rap/spec/basic/lifecycle), while other groups proceed concurrently.
func (g *group) enter() (release func()) {
	g.qmu.Lock()
	prev, mine := g.tail, make(chan struct{})
	g.tail = mine
	g.qmu.Unlock()
	if prev != nil {
		<-prev
	}
	return func() { close(mine) }
}

func (g *group) appendTurns(turns ...conv.Turn) {
	g.mu.Lock()
	g.conv.Turns = append(g.conv.Turns, turns...)
	g.mu.Unlock()
}

func (g *group) addTool(d *ToolDef) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.conv.Tools {
		if t.Name == d.Name {
			return
		}
	}
	g.conv.Tools = append(g.conv.Tools, conv.Tool{Name: d.Name, Description: d.Description, Parameters: d.InputSchema})
}

func (g *group) snapshot() *conv.Conversation {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.conv
	c.Tools = append([]conv.Tool(nil), c.Tools...)
	c.Turns = append([]conv.Turn(nil), c.Turns...)
	return &c
}

// Conversation returns what the runtime delivered into a thread: each call
// as an assistant turn, each result (and each subscription event, as a
// synthetic receive_event__injected call) as a user turn.
func (rt *Runtime) Conversation(groupID string) (*conv.Conversation, bool) {
	rt.mu.Lock()
	g, ok := rt.groups[groupID]
	rt.mu.Unlock()
	if !ok {
		return nil, false
	}
	return g.snapshot(), true
}

// Groups lists the tracked thread ids.
func (rt *Runtime) Groups() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]string, 0, len(rt.groups))
	for id := range rt.groups {
		out = append(out, id)
	}
	return out
}

// Snapshot returns a call's outcome so far.
func (rt *Runtime) Snapshot(groupID, id string) (*Outcome, bool) {
	rt.mu.Lock()
	c, ok := rt.byPair[pair{groupID, id}]
	rt.mu.Unlock()
	if !ok {
		return nil, false
	}
	return c.snapshot(), true
}

func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// register records a call, minting ids when the request has none.
func (rt *Runtime) register(c *call) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	mintGroup, mintID := c.inv.GroupID == "", c.inv.ID == ""
	for {
		if mintGroup {
			c.inv.GroupID = c.sess.IDs.Next("thread_", 16)
		}
		if mintID {
			c.inv.ID = c.sess.IDs.Next("call_", 24)
		}
		if _, taken := rt.byPair[pair{c.inv.GroupID, c.inv.ID}]; !taken {
			break
		}
		if !mintGroup && !mintID {
			return &RequestError{Msg: fmt.Sprintf("tool call id %q is already used in group %q", c.inv.ID, c.inv.GroupID)}
		}
	}
	g, ok := rt.groups[c.inv.GroupID]
	if !ok {
		g = &group{id: c.inv.GroupID, conv: conv.Conversation{Dialect: conv.RAP}}
		rt.groups[c.inv.GroupID] = g
	}
	g.refs++
	c.group = g
	rt.bySecret[c.secret] = c
	rt.byPair[pair{c.inv.GroupID, c.inv.ID}] = c
	rt.order = append(rt.order, c)
	for len(rt.order) > rt.opts.MaxCalls {
		old := rt.order[0]
		rt.order = rt.order[1:]
		delete(rt.bySecret, old.secret)
		delete(rt.byPair, pair{old.inv.GroupID, old.inv.ID})
		if old.group.refs--; old.group.refs == 0 {
			delete(rt.groups, old.group.id)
		}
	}
	return nil
}

func (rt *Runtime) lookupSecret(secret string) *call {
	if secret == "" {
		return nil
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.bySecret[secret]
}

// Invoke discovers the tool's toolset, validates the operation and its
// arguments, sends the invocation (retrying 5xx and unreachable, never
// 4xx), then waits until the call settles: a result (and, for a
// subscription, its final event), a failure, a cancel, the deadline or
// ctx. A *RequestError means nothing was sent; a *ToolsetError comes with
// an Outcome holding the discovery violations.
func (rt *Runtime) Invoke(ctx context.Context, req InvokeRequest) (*Outcome, error) {
	if req.Session == "" {
		req.Session = DefaultSession
	}
	base := req.CallbackBase
	if base == "" {
		base = rt.opts.BaseURL
	}
	switch {
	case req.ToolURL == "":
		return nil, &RequestError{Msg: "tool_url is required"}
	case req.Operation == "":
		return nil, &RequestError{Msg: "operation is required"}
	case base == "":
		return nil, &RequestError{Msg: "no callback base URL (set Options.BaseURL or InvokeRequest.CallbackBase)"}
	}
	if u, err := url.Parse(req.ToolURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &RequestError{Msg: fmt.Sprintf("tool_url %q is not an http(s) URL", req.ToolURL)}
	}
	client := rt.opts.Client
	if req.restricted {
		client = rt.guarded
		if rt.opts.Targets.checkURL(req.ToolURL) != nil {
			return nil, &RequestError{Msg: "tool_url is not an allowed target: the admin API invokes loopback tools only (allow others with --rap-allow)"}
		}
	}
	if len(bytes.TrimSpace(req.Arguments)) == 0 || string(bytes.TrimSpace(req.Arguments)) == "null" {
		req.Arguments = json.RawMessage(`{}`)
	}
	sess := rt.store.Get(req.Session)
	out := &Outcome{Session: session.ID(req.Session), ToolURL: req.ToolURL, Operation: req.Operation, CallID: req.CallID, Violations: []rules.Violation{}}

	dctx, cancel := context.WithTimeout(ctx, rt.opts.DiscoveryTimeout)
	ts, err := Discover(dctx, client, req.ToolURL)
	cancel()
	if err == nil && req.restricted && rt.opts.Targets.checkSameOrigin(req.ToolURL, ts.Endpoint) != nil {
		err = &ToolsetError{URL: DiscoveryURL(req.ToolURL), Err: "the toolset's endpoint is not on the tool's origin (allow its host with --rap-allow)"}
	}
	if err != nil {
		var te *ToolsetError
		if errors.As(err, &te) {
			out.Violations = append(out.Violations, te.Violations...)
			if req.restricted && len(te.Violations) == 0 && !strings.HasPrefix(te.Err, "the toolset's endpoint") {
				// How the fetch failed (refused, timed out, no such
				// host) would map the network behind the mock.
				err = &ToolsetError{URL: te.URL, Err: "the tool could not be reached"}
			}
		}
		out.Status = StatusFailed
		rt.journalSummary(sess, req, out, nil)
		return out, err
	}
	tool := ts.Tool(req.Operation)
	if tool == nil {
		names := make([]string, len(ts.Tools))
		for i, t := range ts.Tools {
			names[i] = t.Name
		}
		return nil, &RequestError{Msg: fmt.Sprintf("operation %q is not defined by toolset %q (tools: %s)", req.Operation, ts.Name, strings.Join(names, ", "))}
	}
	if err := tool.ValidateArguments(req.Arguments); err != nil {
		return nil, &RequestError{Msg: err.Error()}
	}

	deadline := rt.opts.Deadline
	if req.DeadlineMS > 0 {
		deadline = time.Duration(req.DeadlineMS) * time.Millisecond
	}
	c := &call{rt: rt, sess: sess, secret: newSecret(), tool: tool, req: req, deadline: deadline, client: client, settled: make(chan struct{})}
	c.inv = Invocation{Operation: req.Operation, Arguments: compactJSON(req.Arguments), ID: req.ID, CallID: req.CallID,
		GroupID: req.GroupID, ThreadAncestors: req.ThreadAncestors, UserID: req.UserID}
	if err := rt.register(c); err != nil {
		return nil, err
	}
	c.inv.CallbackURL = strings.TrimRight(base, "/") + CallbackPrefix + c.secret
	c.out = Outcome{Session: session.ID(req.Session), ToolURL: req.ToolURL, Endpoint: ts.Endpoint, Operation: req.Operation,
		GroupID: c.inv.GroupID, ID: c.inv.ID, CallID: req.CallID, Violations: []rules.Violation{}}

	var args map[string]any
	_ = json.Unmarshal(c.inv.Arguments, &args)
	c.group.addTool(tool)
	c.group.appendTurns(conv.Turn{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{ID: c.inv.ID, Name: req.Operation, Arguments: args}}}})

	timer := time.NewTimer(deadline)
	defer timer.Stop()
	rt.dispatch(ctx, c, ts.Endpoint)

	select {
	case <-c.settled:
	case <-timer.C:
		rt.expire(c)
	case <-ctx.Done():
		o := c.snapshot()
		rt.journalSummary(sess, req, o, c.group)
		return o, ctx.Err()
	}
	o := c.snapshot()
	rt.journalSummary(sess, req, o, c.group)
	return o, nil
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// dispatch POSTs the invocation. The tool must answer 200 at once; 5xx
// and transport failures are retried with exponential backoff, 4xx (and
// any other status) never. A final failure injects the synthetic error
// result the reference runtime uses.
func (rt *Runtime) dispatch(ctx context.Context, c *call, endpoint string) {
	body, _ := json.Marshal(c.inv)
	status, attempts, lastErr := 0, 0, error(nil)
	backoff := rt.opts.Retry.Initial
	for attempts < rt.opts.Retry.Attempts {
		if attempts > 0 {
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			backoff = min(2*backoff, rt.opts.Retry.Max)
		}
		attempts++
		status, lastErr = rt.post(ctx, c.client, endpoint, body)
		if lastErr == nil && status < 500 {
			break
		}
	}
	entry := session.Entry{Dialect: conv.RAP, Method: http.MethodPost, Path: pathOf(endpoint),
		Request: redact(body, c.secret), Status: status}
	c.mu.Lock()
	c.out.Attempts, c.out.InvocationStatus = attempts, status
	c.mu.Unlock()
	if lastErr == nil && status == http.StatusOK {
		entry.Response, _ = json.Marshal(map[string]any{"attempts": attempts})
		c.sess.Record(entry)
		return
	}
	var msg, text string
	switch {
	case lastErr != nil && c.req.restricted:
		// No network detail: the admin API must not be a port scanner.
		msg = fmt.Sprintf("the invocation could not be delivered after %d attempt(s)", attempts)
		text = fmt.Sprintf("RAP tool '%s' failed: the server at %s could not be reached. No result will arrive for this call.", c.inv.Operation, endpoint)
	case lastErr != nil:
		msg = fmt.Sprintf("the invocation could not be delivered after %d attempt(s): %v", attempts, lastErr)
		text = fmt.Sprintf("RAP tool '%s' failed: the server at %s could not be reached (%v). No result will arrive for this call.", c.inv.Operation, endpoint, lastErr)
	default:
		msg = fmt.Sprintf("the tool answered the invocation with HTTP %d after %d attempt(s); it must answer 200 at once", status, attempts)
		text = fmt.Sprintf("RAP tool '%s' failed: the server at %s responded with HTTP %d. No result will arrive for this call.", c.inv.Operation, endpoint, status)
	}
	v := violation(RuleInvocationAck, "", msg)
	entry.Violations = []rules.Violation{v}
	entry.Response, _ = json.Marshal(map[string]any{"attempts": attempts, "error": msg})
	c.sess.Record(entry)

	release := c.group.enter()
	defer release()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violate(v)
	if c.state == stPending || c.state == stDeferred {
		c.deliverLocked(&ToolResult{Type: "tool_result", GroupID: c.inv.GroupID, ID: c.inv.ID, CallID: c.inv.CallID, Text: text, Synthetic: true})
		c.state = stFailed
		c.settle()
	}
}

func (rt *Runtime) post(ctx context.Context, client *http.Client, endpoint string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, rt.opts.AckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	// The runtime does not read the body (https://infinity.hydro.run/docs/rap/spec/basic/tool-invocation); draining a
	// little lets the connection be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// expire ends the wait at the deadline. With nothing received it is
// rap.no-silent-drop and a synthetic error result closes the call; an
// oauth or user_choice defers the result without a deadline; an active
// subscription simply stays active.
func (rt *Runtime) expire(c *call) {
	release := c.group.enter()
	defer release()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != stPending {
		return
	}
	c.violate(violation(RuleNoSilentDrop, "", fmt.Sprintf("no tool_result or oauth for %s (group_id %q, id %q) within the runtime's %s deadline", c.inv.Operation, c.inv.GroupID, c.inv.ID, c.deadline)))
	c.deliverLocked(&ToolResult{Type: "tool_result", GroupID: c.inv.GroupID, ID: c.inv.ID, CallID: c.inv.CallID, Synthetic: true,
		Text: fmt.Sprintf("Error: the tool sent no result within %s; the runtime stopped waiting.", c.deadline)})
	c.state = stTimedOut
	c.settle()
}

// Cancel cancels a pending call or active subscription: the runtime
// injects a synthetic "interrupted" result (when none was delivered),
// stops tracking the subscription, then sends POST {tool}/cancel_tool_call
// once, without retries (best effort, https://infinity.hydro.run/docs/rap/spec/server/subscription-events). Any later
// message for the call is acknowledged and ignored.
func (rt *Runtime) Cancel(ctx context.Context, groupID, id string) error {
	rt.mu.Lock()
	c, ok := rt.byPair[pair{groupID, id}]
	rt.mu.Unlock()
	if !ok {
		return ErrUnknownCall
	}
	release := c.group.enter()
	c.mu.Lock()
	active := c.state == stPending || c.state == stDeferred || (c.state == stDone && c.subActive)
	if active {
		if c.state != stDone {
			c.deliverLocked(&ToolResult{Type: "tool_result", GroupID: c.inv.GroupID, ID: c.inv.ID, CallID: c.inv.CallID, Synthetic: true,
				Text: "Tool call interrupted: cancelled by the runtime."})
		}
		c.state, c.subActive = stCancelled, false
		c.settle()
	}
	c.mu.Unlock()
	release()
	if !active {
		return ErrUnknownCall
	}

	body, _ := json.Marshal(CancelRequest{ThreadID: groupID, ToolCallID: id})
	u := strings.TrimRight(c.req.ToolURL, "/") + "/cancel_tool_call"
	status, err := rt.post(ctx, c.client, u, body)
	entry := session.Entry{Dialect: conv.RAP, Method: http.MethodPost, Path: pathOf(u), Request: body, Status: status}
	if err != nil {
		entry.Response, _ = json.Marshal(map[string]any{"error": c.errorText(err)})
	}
	c.sess.Record(entry)
	return nil
}

// errorText is what the journal says of a failed POST: the error, or for a
// restricted call (the admin API's) only that it failed.
func (c *call) errorText(err error) string {
	if c.req.restricted {
		return "the tool could not be reached"
	}
	return err.Error()
}

// deliverLocked puts a result into the outcome and the conversation.
func (c *call) deliverLocked(r *ToolResult) {
	c.out.Result = r
	res := &conv.Result{CallID: c.inv.ID, Name: c.inv.Operation, IsError: r.Synthetic || strings.HasPrefix(r.ModelText(), "Error: ")}
	if len(r.Content) == 0 {
		res.Content = []conv.Content{{Type: conv.ContentText, Text: r.Text}}
	}
	for _, it := range r.Content {
		if it.Type == "image" {
			res.Content = append(res.Content, conv.Content{Type: conv.ContentImage, MIMEType: it.MediaType, Data: it.Data})
		} else {
			res.Content = append(res.Content, conv.Content{Type: conv.ContentText, Text: it.Text})
		}
	}
	c.group.appendTurns(conv.Turn{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindResult, Result: res}}})
}

// deliverEventLocked shows an event to the model as a synthetic call of
// receive_event__injected and its result, as the reference runtime does.
func (c *call) deliverEventLocked(e *SubscriptionEvent) {
	c.out.Events = append(c.out.Events, *e)
	var args map[string]any
	_ = json.Unmarshal(c.inv.Arguments, &args)
	id := c.sess.IDs.Next("evt_", 24)
	c.group.appendTurns(
		conv.Turn{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{ID: id, Name: "receive_event__injected",
			Arguments: map[string]any{"original_tool_name": c.inv.Operation, "original_tool_call_id": c.inv.ID, "original_args": args}}}}},
		conv.Turn{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindResult, Result: &conv.Result{CallID: id, Name: "receive_event__injected",
			Content: []conv.Content{{Type: conv.ContentText, Text: e.Text}}}}}},
	)
}

// journalSummary records one entry per Invoke: the request, the outcome
// and every violation, with the thread's conversation.
func (rt *Runtime) journalSummary(sess *session.Session, req InvokeRequest, o *Outcome, g *group) {
	reqBody, _ := json.Marshal(req)
	resp, _ := json.Marshal(o)
	e := session.Entry{Dialect: conv.RAP, Method: http.MethodPost, Path: "/_toolwire/rap/invoke", Request: reqBody,
		Status: http.StatusOK, Response: resp, Violations: o.Violations}
	if g != nil {
		e.Conversation = g.snapshot()
	}
	sess.Record(e)
}

func pathOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}

// redact hides the capability secret in journaled bodies: the journal is
// readable through the admin API.
func redact(body []byte, secret string) json.RawMessage {
	return json.RawMessage(bytes.ReplaceAll(body, []byte(secret), []byte("<secret>")))
}

package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/reports"
)

// Tool mode (`toolwire conform --tool-url URL`): a RAP tool exposing the
// conformance toolset (mockprovider/rap/README.md §Conformance toolset) is
// invoked by an in-process RAP runtime, every operation with and without a
// call_id, and judged twice: by the runtime's rap.* protocol rules (the
// violations of each Outcome) and by the toolset contract — what each
// operation must deliver — as the rules RAPRules lists.

// Contract rules: what the conformance toolset's operations must deliver.
// The protocol rules (rap.Rules) already judge the shape of every message
// and the "Error: " prefix of fail (rap.error-prefix); these add only what
// the protocol cannot know.
const (
	RuleRAPConformanceToolset = "rap.conformance-toolset"
	RuleRAPEchoResult         = "rap.echo-result"
	RuleRAPFailResult         = "rap.fail-result"
	RuleRAPEditDisplay        = "rap.edit-display"
	RuleRAPSubscribeEvents    = "rap.subscribe-events"
	RuleRAPSlowDelay          = "rap.slow-delay"
)

const srcToolset = "mockprovider/rap/README.md §Conformance toolset"

// RAPRules returns the conformance-toolset contract rules judged in tool
// mode, for the catalog (Dialect rap, Check nil). They complement
// rap.Rules(); none repeats one of its IDs.
func RAPRules() []rules.Rule {
	r := func(id string, feature, summary string) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.RAP, Level: rules.MUST, Feature: feature, Summary: summary, Source: srcToolset,
			Why: "the conformance toolset is the contract the RAP rules are judged through: an operation that answers otherwise leaves its rules unjudged, or loses what the tool returned"}
	}
	return []rules.Rule{
		r(RuleRAPConformanceToolset, "core", "The toolset declares echo, fail, edit, subscribe and slow, each accepting the contract's arguments ({text}, {message}, {path}, {count}, {ms})"),
		r(RuleRAPEchoResult, "core", "echo answers with a tool_result whose text equals the text argument exactly"),
		r(RuleRAPFailResult, "errors", `fail answers with an ordinary tool_result (not an HTTP error, not silence) whose text carries the message after the "Error: " prefix (the prefix itself is rap.error-prefix)`),
		r(RuleRAPEditDisplay, "display", "edit answers with text naming the path and display_as = [a diff segment for that path, then a text segment]"),
		r(RuleRAPSubscribeEvents, "subscriptions", `subscribe answers a tool_result with subscription: true, then exactly count subscription_events in order ({"seq":i,"of":count}), only the last marked final`),
		r(RuleRAPSlowDelay, "long-running", `slow answers "Slept {ms} ms" no sooner than ms milliseconds after the invocation`),
	}
}

// RAPConfig says how to judge a RAP tool.
type RAPConfig struct {
	// ToolURL is the tool's base URL (its toolset is at
	// {ToolURL}/.well-known/rap-toolset).
	ToolURL string
	// Runtime configures the in-process runtime (Deadline bounds how long
	// a silent tool is waited for; default 10s here). BaseURL is set to
	// the runtime's own loopback server.
	Runtime rap.Options
	// Parallel is how many invocations run at once (default: all).
	Parallel int
	// SlowMS is slow's delay (default 50) and SubscribeCount subscribe's
	// event count (default 3).
	SlowMS, SubscribeCount int
	// Settle waits, after every invocation returned, for messages still in
	// flight (a duplicate, a late result) before the outcomes are read.
	// Default: sleep Grace (default 300ms). Tests pass the tool's own Wait.
	Settle func(ctx context.Context)
	Grace  time.Duration
	// Strict, Implementation and Progress describe the run in the reports.
	Strict         bool
	Implementation reports.Implementation
	Progress       *reports.Progress
}

// rapOp is one invocation the tool is put through.
type rapOp struct {
	op       string
	args     map[string]any
	callID   *string
	scenario string
	feature  string
}

func (c *RAPConfig) operations() []rapOp {
	base := []struct {
		op, feature string
		args        map[string]any
	}{
		{"echo", "core", map[string]any{"text": "hello from toolwire — ünïcödé ✓"}},
		{"fail", "errors", map[string]any{"message": "disk quota exceeded"}},
		{"edit", "display", map[string]any{"path": "src/main.go"}},
		{"subscribe", "subscriptions", map[string]any{"count": c.SubscribeCount}},
		{"slow", "long-running", map[string]any{"ms": c.SlowMS}},
	}
	var out []rapOp
	for _, b := range base {
		id := "cid-" + b.op
		out = append(out,
			rapOp{op: b.op, args: b.args, scenario: b.op + "-no-call-id", feature: b.feature},
			rapOp{op: b.op, args: b.args, callID: &id, scenario: b.op + "-call-id", feature: b.feature})
	}
	return out
}

// rapRulesFor lists the rules judged for one operation: the protocol rules
// any invocation can break, those its operation exercises, and its
// contract rule. Violations of any other rule are reported too.
func rapRulesFor(o rapOp) []string {
	ids := []string{rap.RuleToolsetManifest, rap.RuleToolsetUnique, RuleRAPConformanceToolset, rap.RuleInvocationAck,
		rap.RuleCallbackJSON, rap.RuleCallbackType, rap.RuleCallbackFields, rap.RuleGroupIDMatch, rap.RuleIDMatch}
	if o.callID != nil {
		ids = append(ids, rap.RuleCallIDEcho)
	}
	ids = append(ids, rap.RuleNoSilentDrop, rap.RuleSingleResult, rap.RuleDuplicateResult, rap.RuleNoStackTrace, rap.RuleNoSecrets)
	switch o.op {
	case "echo":
		ids = append(ids, RuleRAPEchoResult)
	case "fail":
		ids = append(ids, rap.RuleErrorPrefix, RuleRAPFailResult)
	case "edit":
		ids = append(ids, rap.RuleDisplaySegment, rap.RuleDiffPatch, rap.RuleDisplayTextLast, rap.RuleDisplayTextShort, RuleRAPEditDisplay)
	case "subscribe":
		ids = append(ids, rap.RuleSubscriptionEvent, RuleRAPSubscribeEvents)
	case "slow":
		ids = append(ids, RuleRAPSlowDelay)
	}
	return ids
}

// rapInvocation is one finished invocation.
type rapInvocation struct {
	op      rapOp
	out     *rap.Outcome
	elapsed time.Duration
	reqErr  string // the runtime refused the call (operation or arguments)
	harness string // the harness could not judge (tool unreachable, cancelled)
}

// RunRAP judges a RAP tool and returns the filled run (Dialect "rap").
// An error means nothing could be judged (bad configuration).
func RunRAP(ctx context.Context, cfg RAPConfig) (*reports.Run, error) {
	p, err := rapPlan(ctx, cfg)
	return walkQuietly(ctx, p, err)
}

// rapPlan is tool mode's plan: a case per invocation. The first case to
// run invokes them all (independent: each its own thread), so a silent
// tool costs one deadline, and late messages are waited for once.
func rapPlan(ctx context.Context, cfg RAPConfig) (*plan, error) {
	if cfg.ToolURL == "" {
		return nil, errors.New("suite: no tool URL")
	}
	if cfg.SlowMS <= 0 {
		cfg.SlowMS = 50
	}
	if cfg.SubscribeCount <= 0 {
		cfg.SubscribeCount = 3
	}
	if cfg.Runtime.Deadline <= 0 {
		cfg.Runtime.Deadline = 10 * time.Second
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 300 * time.Millisecond
	}
	p := &plan{parallel: 1, progress: cfg.Progress, strict: cfg.Strict, newRun: func() *reports.Run {
		return &reports.Run{Implementation: cfg.Implementation, ToolwireVersion: mockprovider.Version, Date: time.Now().UTC(),
			Mode: "tool-url", Strict: cfg.Strict, Dialects: []string{string(conv.RAP)}, Features: []string{"core", "errors", "display", "subscriptions", "long-running"}}
	}}
	ops := cfg.operations()
	for _, o := range ops {
		c := specCase{name: o.scenario, dialect: string(conv.RAP), scenario: o.scenario, mode: "tool-url"}
		for _, id := range rapRulesFor(o) {
			c.rules = append(c.rules, rapRule(id))
			c.features = append(c.features, o.feature)
		}
		p.cases = append(p.cases, c)
	}
	var once sync.Once
	var done []rapInvocation
	p.verdict = func(i int) *verdict {
		once.Do(func() { done = invokeAll(ctx, cfg, ops) })
		return &verdict{name: p.cases[i].name, results: judgeRAP(&done[i], cfg)}
	}
	return p, nil
}

// invokeAll puts the tool through every operation from a loopback
// runtime and returns the outcomes once late messages had time to land.
func invokeAll(ctx context.Context, cfg RAPConfig, ops []rapOp) []rapInvocation {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux) // 127.0.0.1: the tool calls back on loopback
	defer srv.Close()
	opts := cfg.Runtime
	opts.BaseURL = srv.URL
	store := session.NewStore(session.DefaultLimits())
	rt := rap.New(store, opts)
	defer rt.Close()
	rt.Register(mux)

	parallel := cfg.Parallel
	if parallel <= 0 || parallel > len(ops) {
		parallel = len(ops)
	}
	done := make([]rapInvocation, len(ops))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, o := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			done[i] = invokeOp(ctx, rt, cfg.ToolURL, o)
		}()
	}
	wg.Wait()
	// Late messages (a duplicate sent after the first result was
	// acknowledged) land in the call records; read them after the tool
	// had time to send them.
	if cfg.Settle != nil {
		cfg.Settle(ctx)
	} else {
		select {
		case <-time.After(cfg.Grace):
		case <-ctx.Done():
		}
	}
	for i := range done {
		inv := &done[i]
		if ctx.Err() != nil {
			inv.harness = "run cancelled"
			continue
		}
		if inv.out != nil && inv.out.GroupID != "" {
			if snap, ok := rt.Snapshot(inv.out.GroupID, inv.out.ID); ok {
				inv.out = snap
			}
		}
	}
	return done
}

func invokeOp(ctx context.Context, rt *rap.Runtime, toolURL string, o rapOp) rapInvocation {
	args, _ := json.Marshal(o.args)
	start := time.Now()
	out, err := rt.Invoke(ctx, rap.InvokeRequest{ToolURL: toolURL, Operation: o.op, Arguments: args, CallID: o.callID,
		ExpectError: o.op == "fail", Session: "conform-" + o.scenario})
	inv := rapInvocation{op: o, out: out, elapsed: time.Since(start)}
	var re *rap.RequestError
	var te *rap.ToolsetError
	switch {
	case err == nil:
	case errors.As(err, &re):
		inv.reqErr = re.Msg
	case errors.As(err, &te) && len(te.Violations) > 0:
		// A rejected toolset: the violations are in out.
	case errors.As(err, &te):
		inv.harness = "the tool could not be reached: " + te.Error()
	default:
		inv.harness = err.Error()
	}
	return inv
}

// rapFindings are the breaches of one invocation, by rule.
type rapFindings map[string][]finding

func (f rapFindings) add(id string, fd finding) { f[id] = append(f[id], fd) }

// rapRule is the rule id names, from the protocol's rules and the
// toolset's contract.
func rapRule(id string) rules.Rule {
	for _, r := range append(rap.Rules(), RAPRules()...) {
		if r.ID == id {
			return r
		}
	}
	return rules.Rule{ID: id, Level: rules.MUST, Summary: "(rule outside the catalog)", Source: "RAP runtime"}
}

// judgeRAP renders one invocation as one result per applicable rule.
func judgeRAP(inv *rapInvocation, cfg RAPConfig) []reports.Result {
	ids := rapRulesFor(inv.op)
	result := func(id string) reports.Result {
		r := rapRule(id)
		return reports.Result{Rule: r.ID, Level: string(r.Level), Summary: r.Summary, Source: r.Source,
			Scenario: inv.op.scenario, Dialect: string(conv.RAP), Feature: inv.op.feature, Duration: inv.elapsed}
	}
	if inv.harness != "" {
		out := make([]reports.Result, 0, len(ids))
		for _, id := range ids {
			res := result(id)
			res.Outcome, res.Message = reports.Error, "harness: "+inv.harness
			out = append(out, res)
		}
		return out
	}
	fs := rapFindings{}
	excerpt := ""
	if inv.out != nil {
		b, _ := json.Marshal(inv.out)
		excerpt = clip(string(b), 1500)
		for _, v := range inv.out.Violations {
			msg := v.Message
			if v.Path != "" {
				msg = v.Path + ": " + msg
			}
			fs.add(v.Rule, finding{level: v.Level, message: msg, excerpt: excerpt})
		}
	}
	// A rejected toolset or a refused call was never invoked: only the
	// rules that judged it have an outcome.
	invoked := inv.reqErr == "" && inv.out != nil && inv.out.GroupID != ""
	if inv.reqErr != "" {
		fs.add(RuleRAPConformanceToolset, finding{level: rules.MUST, message: "the runtime refused the call: " + inv.reqErr,
			fix: "declare the operation with an inputSchema that accepts the contract's arguments"})
	}
	if invoked {
		checkRAPContract(inv, cfg, fs, excerpt)
	}
	// A rule fails at the level of its findings.
	rule := func(id string) rules.Rule {
		r := rapRule(id)
		if list := fs[id]; len(list) > 0 && list[0].level != "" {
			r.Level = list[0].level
		}
		return r
	}
	// A call never sent has outcomes only for the rules that stopped it:
	// the toolset's (rejected whole), or the contract's (operation or
	// arguments refused).
	judged := []string{rap.RuleToolsetManifest, rap.RuleToolsetUnique}
	if inv.reqErr != "" {
		judged = append(judged, RuleRAPConformanceToolset)
	}
	var set []rules.Rule
	for _, id := range ids {
		if invoked || slices.Contains(judged, id) || len(fs[id]) > 0 {
			set = append(set, rule(id))
		}
	}
	return rendered(set, fs, func(r rules.Rule) reports.Result { return result(r.ID) }, rule)
}

// checkRAPContract judges what the operation delivered against the
// conformance toolset's contract.
func checkRAPContract(inv *rapInvocation, cfg RAPConfig, fs rapFindings, excerpt string) {
	o, r := inv.out, inv.out.Result
	rule := map[string]string{"echo": RuleRAPEchoResult, "fail": RuleRAPFailResult, "edit": RuleRAPEditDisplay,
		"subscribe": RuleRAPSubscribeEvents, "slow": RuleRAPSlowDelay}[inv.op.op]
	bad := func(msg, expected, got, fix string) {
		fs.add(rule, finding{level: rules.MUST, message: msg, expected: expected, got: got, excerpt: excerpt, fix: fix})
	}
	if r == nil || r.Synthetic {
		got := "(nothing)"
		if r != nil {
			got = r.Text
		}
		bad(fmt.Sprintf("%s delivered no tool_result of its own (status %s); the runtime injected its own error", inv.op.op, o.Status), "a tool_result from the tool", clip(got, 300),
			"answer the invocation with 200, then POST a tool_result naming the invocation's group_id and id to callback_url")
		return
	}
	text := r.Text
	switch inv.op.op {
	case "echo":
		want, _ := inv.op.args["text"].(string)
		if text != want {
			bad("echo's text differs from its text argument", want, clip(text, 300), "send the text argument back unchanged (UTF-8, no trimming)")
		}
	case "fail":
		msg, _ := inv.op.args["message"].(string)
		if !strings.HasSuffix(text, msg) || strings.TrimSpace(strings.TrimSuffix(text, msg)) == "" {
			bad("fail's text does not carry the message after an error prefix", "Error: "+msg, clip(text, 300), `answer "Error: " + message as an ordinary tool_result`)
		}
	case "edit":
		path, _ := inv.op.args["path"].(string)
		if !strings.Contains(text, path) {
			bad("edit's text does not name the edited path", "Replaced text in "+path, clip(text, 300), "say which file was edited in the result text")
		}
		segs := r.DisplayAs
		var types []string
		for _, s := range segs {
			types = append(types, s.Type)
		}
		var diffPath string
		if len(segs) > 0 && segs[0].Type == "diff" {
			var d struct {
				Path string `json:"path"`
			}
			_ = json.Unmarshal(segs[0].Content, &d)
			diffPath = d.Path
		}
		switch {
		case len(segs) != 2 || segs[0].Type != "diff" || segs[1].Type != "text":
			bad("edit's display_as is not [diff, text]", "[diff, text]", fmt.Sprintf("%v", types), "display the change as a diff segment followed by a one-line text segment")
		case diffPath != path:
			bad("edit's diff segment names another path", path, diffPath, "set the diff segment's content.path to the edited path")
		}
	case "subscribe":
		count, _ := inv.op.args["count"].(int)
		if !r.Subscription {
			bad("subscribe's tool_result does not start a subscription", "subscription: true", "subscription absent or false", "set subscription: true on the result that starts the subscription")
		}
		if len(o.Events) != count {
			bad(fmt.Sprintf("subscribe delivered %d event(s), want %d", len(o.Events), count), fmt.Sprint(count), fmt.Sprint(len(o.Events)), "send count subscription_events naming the call's id as tool_call_id")
		}
		for i, e := range o.Events {
			last := i == len(o.Events)-1
			if e.Final != last {
				bad(fmt.Sprintf("event %d of %d: final is %v", i+1, len(o.Events), e.Final), "only the last event final", fmt.Sprintf("final=%v", e.Final), "mark the last event, and only it, final: true")
				break
			}
			var seq struct {
				Seq int `json:"seq"`
				Of  int `json:"of"`
			}
			if json.Unmarshal([]byte(e.Text), &seq) != nil || seq.Seq != i+1 || seq.Of != count {
				bad(fmt.Sprintf("event %d text is not {\"seq\":%d,\"of\":%d}", i+1, i+1, count), fmt.Sprintf(`{"seq":%d,"of":%d}`, i+1, count), clip(e.Text, 200), "send the events in order with their sequence number")
				break
			}
		}
		if o.SubscriptionActive {
			bad("the subscription was still active when the runtime stopped waiting", "a final event", "no final event", "mark the last event final: true")
		}
	case "slow":
		ms, _ := inv.op.args["ms"].(int)
		if want := fmt.Sprintf("Slept %d ms", ms); text != want {
			bad("slow's text differs from the contract", want, clip(text, 300), `answer "Slept {ms} ms"`)
		}
		if inv.elapsed < time.Duration(ms)*time.Millisecond {
			bad(fmt.Sprintf("slow answered after %v, before its %d ms delay", inv.elapsed.Round(time.Millisecond), ms), fmt.Sprintf(">= %d ms", ms), inv.elapsed.String(), "acknowledge at once and send the result after the delay")
		}
	}
}

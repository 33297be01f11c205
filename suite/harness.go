// Package suite is the conformance suite: it starts the mock provider,
// runs a driver (a process, an HTTP endpoint or a Go function) through
// every scenario × dialect × stream mode, and judges each run from the
// mock's journal — the request rules the mock recorded plus the scenario
// checks only the scenario can make (which result answers which call with
// what data). One spec tree judges every mode (specs.go): in Ginkgo for
// `toolwire conform`, RegisterSpecs and a Go adapter's own suite (Specs),
// walked for plain `go test` (Run) and the library calls (RunAll,
// RunFormat, RunRAP).
package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite/task"
)

// Config says what to run and how.
type Config struct {
	Driver Driver
	// Dialects to test (nil = every dialect but the opt-in ones: Bedrock is
	// run only when named).
	Dialects []conv.Dialect
	// Features the implementation supports (nil = all). Scenarios and
	// rules needing an undeclared feature are reported not-supported.
	// Stream mode needs "streaming".
	Features []string
	// Scenarios filters by name; entries may be globs (nil = all).
	Scenarios []string
	// Streams are the stream modes to run (nil = both).
	Streams []bool
	// Parallel is how many driver runs go at once (default: the number
	// of CPUs).
	Parallel int
	// Shard narrows the plan to one part of a run split across machines
	// (zero = the whole plan); reports.Merge joins the parts.
	Shard reports.Shard
	// Timeout bounds one driver run (default 60s).
	Timeout time.Duration
	Strict  bool
	// Mock configures the in-process mock provider.
	Mock mockprovider.Options
	// Progress, when set, gets a line per finished run.
	Progress *reports.Progress
	// Implementation and Mode describe the run in the reports.
	Implementation reports.Implementation
	Mode           string
}

// Harness owns the mock provider and runs combos.
type Harness struct {
	cfg    Config
	mock   *mockprovider.Server
	srv    *httptest.Server
	engine *model.Engine
	dir    string
	// runs counts the runs of each combo: the session key (which seeds
	// the ids the mock mints) depends only on the combo and how many times
	// it ran, so a sharded run journals the same exchanges as a whole one.
	runs sync.Map // combo name → *atomic.Int64
}

// New starts the mock provider on a loopback port.
func New(cfg Config) (*Harness, error) {
	if cfg.Driver == nil {
		return nil, fmt.Errorf("suite: no driver")
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.NumCPU()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if len(cfg.Dialects) == 0 {
		cfg.Dialects = defaultDialects()
	}
	for _, d := range cfg.Dialects {
		if !slices.Contains(conv.Dialects, d) {
			return nil, fmt.Errorf("suite: unknown dialect %q (want %v)", d, conv.Dialects)
		}
	}
	if len(cfg.Streams) == 0 {
		cfg.Streams = []bool{false, true}
	}
	dir, err := os.MkdirTemp("", "toolwire-conform-")
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	m := mockprovider.New(cfg.Mock)
	h := &Harness{cfg: cfg, mock: m, srv: httptest.NewServer(m), engine: &model.Engine{Scenarios: m.Scenarios()}, dir: dir}
	if len(cfg.Scenarios) > 0 && len(h.scenarios()) == 0 {
		h.Close()
		return nil, fmt.Errorf("suite: no scenario matches %v (have %v)", cfg.Scenarios, m.Scenarios().Names())
	}
	return h, nil
}

// Close stops the mock and removes task files.
func (h *Harness) Close() {
	h.srv.Close()
	_ = os.RemoveAll(h.dir)
}

// URL is the mock's base URL.
func (h *Harness) URL() string { return h.srv.URL }

// Mock is the mock provider.
func (h *Harness) Mock() *mockprovider.Server { return h.mock }

// Config is the effective configuration.
func (h *Harness) Config() Config { return h.cfg }

// Combo is one driver run: a scenario on a dialect in one stream mode.
type Combo struct {
	Scenario *scenario.Scenario
	Dialect  conv.Dialect
	Stream   bool
}

// Name is "scenario/dialect/stream|non-stream".
func (c Combo) Name() string {
	return c.Scenario.Name + "/" + string(c.Dialect) + "/" + reports.StreamMode(c.Stream)
}

func (h *Harness) scenarios() []*scenario.Scenario {
	var out []*scenario.Scenario
	for _, sc := range h.mock.Scenarios().All() {
		if len(h.cfg.Scenarios) == 0 || matchesAny(h.cfg.Scenarios, sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// Plan lists the combos to run, dialect-major: the shard's part of them
// when the run is sharded.
func (h *Harness) Plan() []Combo {
	var out []Combo
	k := 0
	for _, d := range h.cfg.Dialects {
		for _, sc := range h.scenarios() {
			if !sc.Supports(d) {
				continue
			}
			for _, stream := range h.cfg.Streams {
				if stream && slices.Contains(sc.Features, "no-stream") || !stream && slices.Contains(sc.Features, "stream-only") {
					continue
				}
				if h.cfg.Shard.Takes(k) {
					out = append(out, Combo{Scenario: sc, Dialect: d, Stream: stream})
				}
				k++
			}
		}
	}
	return out
}

// Declared reports whether a feature is declared ("core" always is).
func (h *Harness) Declared(f string) bool {
	return f == "" || f == "core" || h.cfg.Features == nil || slices.Contains(h.cfg.Features, f)
}

// missingFeature names the first feature a combo needs that was not
// declared, or "".
func (h *Harness) missingFeature(c Combo) string {
	if c.Stream && !h.Declared("streaming") {
		return "streaming"
	}
	for _, f := range c.Scenario.Features {
		if !h.Declared(f) {
			return f
		}
	}
	return ""
}

// RulesFor is what a combo on dialect d is judged against: the mock's
// request rules for d, then the scenario checks.
func (h *Harness) RulesFor(d conv.Dialect) []rules.Rule {
	seen := map[string]bool{}
	var out []rules.Rule
	for _, r := range append(h.mock.Catalog().ForDialect(d), dialectRules(d)...) {
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	return out
}

// Drive runs the driver once through a combo and returns the exchange:
// the driver's outcome and the mock's journal, to be judged rule by rule.
func (h *Harness) Drive(ctx context.Context, c Combo) *Exchange {
	start := time.Now()
	x := &Exchange{h: h, Combo: c}
	if f := h.missingFeature(c); f != "" {
		x.uniform = &reports.Result{Outcome: reports.NotSupported, Message: fmt.Sprintf("feature %q not declared", f)}
		return x
	}
	broken := func(msg string) *Exchange {
		x.uniform = &reports.Result{Outcome: reports.Error, Message: msg, Duration: time.Since(start)}
		return x
	}
	t, err := task.FromScenario(c.Scenario, c.Dialect, c.Stream, judgeOf(c.Dialect).DefaultModel)
	if err != nil {
		return broken("harness: " + err.Error())
	}
	x.Task = t
	n, _ := h.runs.LoadOrStore(c.Name(), new(atomic.Int64))
	key := fmt.Sprintf("tw-%s-%s-%s-%d", c.Scenario.Name, c.Dialect, reports.StreamMode(c.Stream), n.(*atomic.Int64).Add(1))
	sess := h.mock.Sessions().Get(key)
	sess.SetScenario(c.Scenario.Name)
	defer h.mock.Sessions().Delete(key)

	taskFile := filepath.Join(h.dir, key+".json")
	b, _ := json.MarshalIndent(t, "", "  ")
	if err := os.WriteFile(taskFile, b, 0o600); err != nil {
		return broken("harness: " + err.Error())
	}
	inv := Invocation{Task: t, TaskFile: taskFile, Env: h.env(c, key, taskFile)}
	rctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	x.Outcome = h.cfg.Driver.Drive(rctx, inv)
	cancel()
	if ctx.Err() != nil {
		return broken("harness: run cancelled")
	}
	// The driver may have returned before the mock journaled its last
	// request (SDKs stop reading at a stream's last event).
	sess.Settle(5 * time.Second)
	x.Entries, _ = sess.Journal()
	x.Duration = time.Since(start)
	if len(x.Entries) == 0 {
		// Nothing reached the mock, so there is nothing to judge: a driver
		// that cannot start (a misspelt command) or is not pointed at the
		// mock is the harness's problem, not twenty passes and one fail.
		return broken(neverTalked(x.Outcome))
	}
	return x
}

// neverTalked says why a run that sent the mock nothing is a harness
// error, with the driver's error and stderr.
func neverTalked(out Outcome) string {
	msg := "the driver never talked to the mock (no request arrived)"
	if out.Err != nil {
		msg += ": " + out.Err.Error()
	}
	if log := strings.TrimSpace(out.Log); log != "" {
		msg += "; driver stderr: " + logExcerpt(log, logExcerptSize)
	}
	return msg
}

// env is the driver contract's environment for one run.
func (h *Harness) env(c Combo, key, taskFile string) map[string]string {
	return driverEnv(h.srv.URL, c, key, taskFile)
}

// driverEnv is the driver contract's environment for one run against the
// mock at serverURL.
func driverEnv(serverURL string, c Combo, key, taskFile string) map[string]string {
	stream := "0"
	if c.Stream {
		stream = "1"
	}
	env := map[string]string{
		task.EnvTask: taskFile, task.EnvScenario: c.Scenario.Name, task.EnvDialect: string(c.Dialect), task.EnvStream: stream,
	}
	// Every API's variables, whichever dialect runs: a driver may build
	// all its clients up front.
	for _, d := range conv.Dialects {
		maps.Copy(env, judgeOf(d).DriverEnv(serverURL, key))
	}
	return env
}

func (h *Harness) result(c Combo, r rules.Rule) reports.Result {
	return reports.Result{Rule: r.ID, Level: string(r.Level), Summary: r.Summary, Source: r.Source,
		Scenario: c.Scenario.Name, Dialect: string(c.Dialect), Stream: c.Stream, Feature: featureOf(r, scenarioFeature(c.Scenario))}
}

// featureOf is the feature a rule's result names: its own, or the case's
// for a core rule.
func featureOf(r rules.Rule, caseFeature string) string {
	if r.Feature == "" || r.Feature == "core" {
		return caseFeature
	}
	return r.Feature
}

func scenarioFeature(sc *scenario.Scenario) string {
	for _, f := range sc.Features {
		if f != "core" {
			return f
		}
	}
	return "core"
}

// RunAll judges the whole plan, as the specs do, and returns the filled
// run.
func (h *Harness) RunAll(ctx context.Context) *reports.Run {
	return h.specPlan(ctx).judgeAll(quietly)
}

// specPlan is the driver's plan: a case per combo, judged against its
// dialect's rules.
func (h *Harness) specPlan(ctx context.Context) *plan {
	combos := h.Plan()
	p := &plan{parallel: h.cfg.Parallel, progress: h.cfg.Progress, strict: h.cfg.Strict, newRun: h.NewRun}
	for _, c := range combos {
		sc := specCase{name: c.Name(), dialect: string(c.Dialect), scenario: c.Scenario.Name, stream: c.Stream, mode: h.cfg.Mode}
		for _, r := range h.RulesFor(c.Dialect) {
			sc.rules = append(sc.rules, r)
			sc.features = append(sc.features, h.result(c, r).Feature)
		}
		p.cases = append(p.cases, sc)
	}
	p.verdict = func(i int) *verdict {
		x := h.Drive(ctx, combos[i])
		return &verdict{name: x.caseName(), results: x.Results(), transcript: x.Transcript}
	}
	return p
}

// NewRun is an empty run describing this configuration.
func (h *Harness) NewRun() *reports.Run {
	run := &reports.Run{Implementation: h.cfg.Implementation, ToolwireVersion: mockprovider.Version, Date: time.Now().UTC(),
		Mode: h.cfg.Mode, Strict: h.cfg.Strict}
	for _, d := range h.cfg.Dialects {
		run.Dialects = append(run.Dialects, string(d))
	}
	if h.cfg.Features != nil {
		run.Features = append([]string(nil), h.cfg.Features...)
	} else {
		run.Features = h.AllFeatures()
	}
	return run
}

// AllFeatures lists every feature the scenarios and rules use, plus
// streaming.
func (h *Harness) AllFeatures() []string {
	set := map[string]bool{"streaming": true}
	for _, sc := range h.mock.Scenarios().All() {
		for _, f := range sc.Features {
			set[f] = true
		}
	}
	for _, d := range conv.Dialects {
		for _, r := range h.RulesFor(d) {
			if r.Feature != "" {
				set[r.Feature] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…(" + strconv.Itoa(len(s)-n) + " more bytes)"
}

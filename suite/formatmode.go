package suite

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite/checks"
	"github.com/toolwire/toolwire/suite/task"
)

// Format-driver mode (`toolwire conform --format-driver CMD`): the
// adapter's two pure functions are exercised directly over JSON lines,
// without a tool loop.
//
//   - format_result {op, dialect, call: {name, call_id, arguments}, result:
//     MCP CallToolResult, model} → the dialect's native result (an OpenAI
//     Chat tool message, a Responses function_call_output item, an
//     Anthropic user message with tool_result blocks — a bare tool_result
//     block is accepted too —, a Gemini user content with functionResponse
//     parts — a bare part is accepted too). The answer is embedded after
//     the assistant turn that made the call, in the dialect's wire shape,
//     and the whole request is linted by the mock's rules
//     (mockprovider.CheckRequest); the scenario checks then judge the
//     decoded result (carries the data, error flagged, matches its call).
//   - normalize_calls {op, dialect, response: raw provider response} →
//     {calls: [{name, call_id, arguments}]}: checked exactly against the
//     calls in the response (https://platform.openai.com/docs/guides/function-calling).
//
// A request the driver cannot serve is answered {"error": "…"}.

// Format-mode checks (rule IDs "<dialect>.<check>").
const (
	checkFormatNative  = checks.FormatNative
	checkNormalize     = checks.NormalizeCalls
	checkNormalizeArgs = checks.NormalizeArguments
)

// FormatRules returns the rules only format-driver mode judges, for the
// catalog. The format_result outputs are also judged by the mock's request
// rules and by the scenario checks of Rules().
func FormatRules() []rules.Rule {
	var out []rules.Rule
	for _, d := range conv.Dialects {
		r := func(check, summary, why, source string) rules.Rule {
			return rules.Rule{ID: ruleID(d, check), Dialect: d, Level: rules.MUST, Feature: "core", Summary: summary, Why: why, Source: source}
		}
		fd := formatOf(d)
		native, nativeSrc := fd.NativeRule()
		ids, args := fd.NormalizeWording()
		out = append(out,
			r(checkFormatNative, native, "the real API refuses a result in any other shape, or one that references no call (400)", nativeSrc),
			r(checkNormalize, "normalize_calls returns every function call of the response, in order, with its name and "+ids+"; a response without calls gives an empty list",
				"data the model needs is lost: a call left out is never run, and a wrong id cannot be answered", guide(d)+" (the calls in a response)"),
			r(checkNormalizeArgs, "normalize_calls returns each call's arguments as a JSON object: "+args,
				"data the model needs is lost: arguments that are not the object the model sent run the tool on something else", guide(d)+" (a call's arguments)"),
		)
	}
	return out
}

// FormatDriver answers one contract request line with one answer line.
type FormatDriver interface {
	Call(ctx context.Context, request []byte) (json.RawMessage, error)
	Close() error
}

// FormatFunc adapts an in-process function (the reference driver in tests).
type FormatFunc func(request []byte) any

func (f FormatFunc) Call(_ context.Context, request []byte) (json.RawMessage, error) {
	return json.Marshal(f(request))
}

func (FormatFunc) Close() error { return nil }

// FormatCommand is a long-running driver process (sh -c Line) fed one
// request line at a time. It is started on first use and restarted after
// it dies or misses a deadline.
type FormatCommand struct {
	Line string
	Dir  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *lockedWriter
}

func (c *FormatCommand) start() error {
	if runtime.GOOS == "windows" {
		c.cmd = exec.Command("cmd", "/C", c.Line)
	} else {
		c.cmd = exec.Command("sh", "-c", c.Line)
	}
	c.cmd.Dir = c.Dir
	c.stderr = &lockedWriter{w: &driverLog{}}
	c.cmd.Stderr = c.stderr
	// A child that keeps the pipes open must not stall Wait forever.
	c.cmd.WaitDelay = time.Second
	in, err := c.cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("format driver: %w", err)
	}
	c.stdin = in
	lines := make(chan []byte, 1)
	c.lines = lines
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
		for sc.Scan() {
			// Only JSON objects are answers; a stray log line is skipped.
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) > 0 && line[0] == '{' {
				lines <- append([]byte(nil), line...)
			}
		}
	}()
	return nil
}

// Call sends one line and waits for one answer line.
func (c *FormatCommand) Call(ctx context.Context, request []byte) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return nil, err
		}
	}
	if _, err := c.stdin.Write(append(bytes.TrimSpace(request), '\n')); err != nil {
		return nil, c.fail("the driver stopped reading stdin: " + err.Error())
	}
	select {
	case line, ok := <-c.lines:
		if !ok {
			return nil, c.fail("the driver exited without answering")
		}
		return line, nil
	case <-ctx.Done():
		return nil, c.fail("the driver did not answer in time")
	}
}

// fail stops the process (it is ours: we started it) so the next call
// starts afresh, and reports what its stderr said.
func (c *FormatCommand) fail(msg string) error {
	log := strings.TrimSpace(c.stopLocked())
	if log != "" {
		msg += "; driver stderr: " + logExcerpt(log, logExcerptSize)
	}
	return errors.New(msg)
}

func (c *FormatCommand) stopLocked() string {
	if c.cmd == nil {
		return ""
	}
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
	log := c.stderr.String()
	c.cmd = nil
	return log
}

// Close ends the process: stdin closes, it should exit.
func (c *FormatCommand) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
	return nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  *driverLog
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// FormatConfig says how to judge a format driver.
type FormatConfig struct {
	Driver FormatDriver
	// Dialects to test (nil = all four).
	Dialects []conv.Dialect
	// Features declared (nil = all); the image case needs "images".
	Features []string
	// Timeout bounds one request (default 10s).
	Timeout        time.Duration
	Strict         bool
	Implementation reports.Implementation
	Progress       *reports.Progress
}

// formatCall is one call of a format case and what its tool returned.
type formatCall struct {
	name   string
	args   map[string]any
	result task.CallToolResult
}

// formatCase is one assistant turn whose calls the driver answers.
type formatCase struct {
	name    string
	feature string
	media   bool // results carry images or documents: a model that takes them
	calls   []formatCall
}

// tag distinguishes the case's call ids.
func (c *formatCase) tag() string {
	return strings.ReplaceAll(strings.TrimPrefix(c.name, "format-"), "-", "")
}

// wire is the case as a dialect builds its requests.
func (c *formatCase) wire() *dialect.FormatCase {
	w := &dialect.FormatCase{Tag: c.tag(), Media: c.media}
	for _, call := range c.calls {
		w.Calls = append(w.Calls, dialect.FormatCall{Name: call.name, Args: call.args})
	}
	return w
}

// pngPixel is a 1×1 PNG.
const pngPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func textResult(s string) task.CallToolResult {
	return task.CallToolResult{Content: []task.Content{{Type: "text", Text: s}}}
}

var formatCases = []formatCase{
	{name: "format-text-result", feature: "core", calls: []formatCall{
		{"get_weather", map[string]any{"location": "Paris, France"}, textResult("Sunny, 22 °C in Paris — light wind")}}},
	{name: "format-error-result", feature: "errors", calls: []formatCall{
		{"get_weather", map[string]any{"location": "Atlantis"}, task.ErrorResult("city not found: Atlantis")}}},
	{name: "format-structured-result", feature: "structured", calls: []formatCall{
		{"get_forecast", map[string]any{"city": "Oslo"}, task.CallToolResult{
			Content:           []task.Content{{Type: "text", Text: `{"city":"Oslo","days":[{"day":1,"high":7},{"day":2,"high":9}]}`}},
			StructuredContent: map[string]any{"city": "Oslo", "days": []any{map[string]any{"day": 1, "high": 7}, map[string]any{"day": 2, "high": 9}}}}}}},
	{name: "format-parallel-results", feature: "parallel", calls: []formatCall{
		{"get_weather", map[string]any{"location": "Paris, France"}, textResult(`{"location":"Paris","temperature":22}`)},
		{"get_time", map[string]any{"timezone": "Europe/Paris"}, textResult(`{"timezone":"Europe/Paris","time":"14:05"}`)}}},
	{name: "format-image-result", feature: "images", media: true, calls: []formatCall{
		{"get_chart", map[string]any{"metric": "revenue"}, task.CallToolResult{Content: []task.Content{
			{Type: "text", Text: "Revenue chart for Q3"}, {Type: "image", Data: pngPixel, MimeType: "image/png"}}}}}},
}

// normalizeCase is one fixture of testdata/format-driver/normalize.
type normalizeCase struct {
	Name        string          `json:"-"`
	Dialect     conv.Dialect    `json:"dialect"`
	Description string          `json:"description"`
	Response    json.RawMessage `json:"response"`
	Calls       []normalCall    `json:"calls"`
}

type normalCall struct {
	Name      string `json:"name"`
	CallID    string `json:"call_id"`
	Arguments any    `json:"arguments"`
}

//go:embed testdata/format-driver/normalize/*.json
var normalizeFS embed.FS

func normalizeCases() ([]normalizeCase, error) {
	const dir = "testdata/format-driver/normalize"
	entries, err := fs.ReadDir(normalizeFS, dir)
	if err != nil {
		return nil, err
	}
	var out []normalizeCase
	for _, e := range entries {
		b, err := normalizeFS.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var c normalizeCase
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		c.Name = "normalize-" + strings.TrimPrefix(strings.TrimSuffix(e.Name(), ".json"), string(c.Dialect)+"-")
		out = append(out, c)
	}
	return out, nil
}

// formatJob is one case: a format case or a normalize fixture in one
// dialect.
type formatJob struct {
	dialect conv.Dialect
	format  *formatCase
	norm    *normalizeCase
}

func (j formatJob) scenario() string {
	if j.format != nil {
		return j.format.name
	}
	return j.norm.Name
}

func (j formatJob) feature() string {
	if j.format != nil {
		return j.format.feature
	}
	return "core"
}

// rules are what a job is judged against: normalize_calls' two rules; or
// format_result's native shape, the dialect's request rules (catalog) and
// the scenario checks one answer can show.
func (j formatJob) rules(catalog []rules.Rule) []rules.Rule {
	d := j.dialect
	if j.norm != nil {
		return []rules.Rule{formatRule(d, checkNormalize), formatRule(d, checkNormalizeArgs)}
	}
	set := append([]rules.Rule{formatRule(d, checkFormatNative)}, catalog...)
	for _, r := range dialectRules(d) {
		switch strings.TrimPrefix(r.ID, string(d)+".") {
		case checkCarriesData, checkMatchesCall, checkErrorFlagged, checkCarriesMedia, checkStructuredObj:
			set = append(set, r)
		}
	}
	return set
}

// RunFormat judges a format driver and returns the filled run.
func RunFormat(ctx context.Context, cfg FormatConfig) (*reports.Run, error) {
	p, err := formatPlan(ctx, cfg)
	return walkQuietly(ctx, p, err)
}

// formatPlan is format mode's plan: a case per format case and normalize
// fixture in each dialect, one at a time (a driver process answers one
// line at a time).
func formatPlan(ctx context.Context, cfg FormatConfig) (*plan, error) {
	if cfg.Driver == nil {
		return nil, errors.New("suite: no format driver")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if len(cfg.Dialects) == 0 {
		cfg.Dialects = defaultDialects()
	}
	for _, d := range cfg.Dialects {
		if !slices.Contains(conv.Dialects, d) {
			return nil, fmt.Errorf("suite: unknown dialect %q (want %v)", d, conv.Dialects)
		}
	}
	norms, err := normalizeCases()
	if err != nil {
		return nil, fmt.Errorf("suite: normalize fixtures: %w", err)
	}
	var jobs []formatJob
	for _, d := range cfg.Dialects {
		for i := range formatCases {
			jobs = append(jobs, formatJob{dialect: d, format: &formatCases[i]})
		}
		for i := range norms {
			if norms[i].Dialect == d {
				jobs = append(jobs, formatJob{dialect: d, norm: &norms[i]})
			}
		}
	}
	catalog := mockprovider.New(mockprovider.Options{}).Catalog()
	features := cfg.Features
	if features == nil {
		features = []string{"core", "errors", "structured", "parallel", "images"}
	}
	p := &plan{parallel: 1, progress: cfg.Progress, strict: cfg.Strict, newRun: func() *reports.Run {
		run := &reports.Run{Implementation: cfg.Implementation, ToolwireVersion: mockprovider.Version, Date: time.Now().UTC(),
			Mode: "format-driver", Strict: cfg.Strict, Features: features}
		for _, d := range cfg.Dialects {
			run.Dialects = append(run.Dialects, string(d))
		}
		return run
	}}
	sets := make([][]rules.Rule, len(jobs))
	for i, job := range jobs {
		sets[i] = job.rules(catalog.ForDialect(job.dialect))
		c := specCase{name: job.scenario() + "/" + string(job.dialect), dialect: string(job.dialect), scenario: job.scenario(), mode: "format-driver", rules: sets[i]}
		for _, r := range sets[i] {
			c.features = append(c.features, featureOf(r, job.feature()))
		}
		p.cases = append(p.cases, c)
	}
	p.verdict = func(i int) *verdict {
		if ctx.Err() != nil {
			return &verdict{name: p.cases[i].name} // the run stops unjudged
		}
		fj := &formatJudge{cfg: cfg, job: jobs[i], set: sets[i], findings: map[string][]finding{}}
		run := fj.runNormalize
		if jobs[i].format != nil {
			run = fj.runFormat
		}
		return &verdict{name: p.cases[i].name, results: run(ctx)}
	}
	return p, nil
}

// formatJudge judges one job.
type formatJudge struct {
	cfg      FormatConfig
	job      formatJob
	set      []rules.Rule
	findings map[string][]finding
	dur      time.Duration
}

func (j *formatJudge) add(check string, f finding) {
	id := ruleID(j.job.dialect, check)
	j.findings[id] = append(j.findings[id], f)
}

func (j *formatJudge) declared(f string) bool {
	return f == "" || f == "core" || j.cfg.Features == nil || slices.Contains(j.cfg.Features, f)
}

// ask sends one request and decodes the answer; a driver error is
// returned as text.
func (j *formatJudge) ask(ctx context.Context, req map[string]any) (json.RawMessage, string) {
	line, _ := json.Marshal(req)
	rctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	start := time.Now()
	ans, err := j.cfg.Driver.Call(rctx, line)
	j.dur += time.Since(start)
	if err != nil {
		return nil, err.Error()
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(ans, &probe) != nil || probe == nil {
		return nil, fmt.Sprintf("the answer is not a JSON object: %s", clip(string(ans), 300))
	}
	if e, ok := probe["error"]; ok && len(probe) == 1 {
		var msg string
		_ = json.Unmarshal(e, &msg)
		return nil, "the driver reported: " + firstNonEmpty(msg, string(e))
	}
	return ans, ""
}

// results renders one result per rule of set (the job's rules, or only
// the first, the native shape, when the answer could not be checked
// further), plus findings of rules outside it.
func (j *formatJudge) results(set []rules.Rule) []reports.Result {
	feature := j.job.feature()
	return rendered(set, j.findings, func(r rules.Rule) reports.Result {
		res := reports.Result{Rule: r.ID, Level: string(r.Level), Summary: r.Summary, Source: r.Source,
			Scenario: j.job.scenario(), Dialect: string(j.job.dialect), Feature: featureOf(r, feature), Duration: j.dur}
		for _, f := range []string{feature, r.Feature} {
			if !j.declared(f) {
				res.Outcome, res.Message = reports.NotSupported, fmt.Sprintf("feature %q not declared", f)
				break
			}
		}
		return res
	}, func(id string) rules.Rule {
		return rules.Rule{ID: id, Dialect: j.job.dialect, Level: j.findings[id][0].level, Summary: "(rule outside the catalog)", Source: "mock rules"}
	})
}

func formatRule(d conv.Dialect, check string) rules.Rule {
	for _, r := range FormatRules() {
		if r.ID == ruleID(d, check) {
			return r
		}
	}
	panic("suite: no format rule " + check)
}

// ---- normalize_calls ----

func (j *formatJudge) runNormalize(ctx context.Context) []reports.Result {
	c := j.job.norm
	excerpt := clip(string(c.Response), 1500)
	ans, errText := j.ask(ctx, map[string]any{"op": "normalize_calls", "dialect": string(c.Dialect), "response": c.Response})
	fix := "return {\"calls\": [{\"name\", \"call_id\", \"arguments\"}]} with one entry per function call of the response, in order"
	if errText != "" {
		j.add(checkNormalize, finding{level: rules.MUST, message: errText, excerpt: excerpt, fix: fix})
		return j.results(j.set)
	}
	var got struct {
		Calls *[]map[string]json.RawMessage `json:"calls"`
	}
	if json.Unmarshal(ans, &got) != nil || got.Calls == nil {
		j.add(checkNormalize, finding{level: rules.MUST, message: "the answer has no calls array", got: clip(string(ans), 300), excerpt: excerpt, fix: fix})
		return j.results(j.set)
	}
	calls := *got.Calls
	want := c.Calls
	describe := func(cs []normalCall) string {
		var parts []string
		for _, x := range cs {
			parts = append(parts, x.Name+"#"+x.CallID)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var gotCalls []normalCall
	for _, m := range calls {
		var nc normalCall
		_ = json.Unmarshal(m["name"], &nc.Name)
		_ = json.Unmarshal(m["call_id"], &nc.CallID)
		_ = json.Unmarshal(m["arguments"], &nc.Arguments)
		gotCalls = append(gotCalls, nc)
	}
	if len(calls) != len(want) {
		j.add(checkNormalize, finding{level: rules.MUST, message: fmt.Sprintf("%d call(s) returned, the response has %d", len(calls), len(want)),
			expected: describe(want), got: describe(gotCalls), excerpt: excerpt, fix: fix})
		return j.results(j.set)
	}
	fd := formatOf(c.Dialect)
	ownIDs := fd.OwnCallIDs(c.Response)
	for i, w := range want {
		g := gotCalls[i]
		idOK := g.CallID == w.CallID || (i < len(ownIDs) && ownIDs[i] != "" && g.CallID == ownIDs[i])
		if g.Name != w.Name || !idOK {
			msg := fmt.Sprintf("call %d is %s with id %q, want %s with id %q", i, g.Name, g.CallID, w.Name, w.CallID)
			fixText := "keep the response's order, with each call's name and id"
			if idFix := fd.CallIDFix(); idFix != "" && g.Name == w.Name {
				fixText = idFix
			}
			j.add(checkNormalize, finding{level: rules.MUST, message: msg, expected: describe(want), got: describe(gotCalls), excerpt: excerpt, fix: fixText})
		}
		obj, isObj := g.Arguments.(map[string]any)
		if !isObj {
			j.add(checkNormalizeArgs, finding{level: rules.MUST, message: fmt.Sprintf("call %d (%s): arguments is %s, not an object", i, w.Name, jsonKind(g.Arguments)),
				expected: string(mustJSON(w.Arguments)), got: clip(string(mustJSON(g.Arguments)), 300), excerpt: excerpt,
				fix: "decode the arguments into an object (OpenAI sends a JSON string; Anthropic and Gemini an object)"})
		} else if !reflect.DeepEqual(task.Normalize(obj), task.Normalize(w.Arguments)) {
			j.add(checkNormalizeArgs, finding{level: rules.MUST, message: fmt.Sprintf("call %d (%s): arguments differ from the call's", i, w.Name),
				expected: string(mustJSON(w.Arguments)), got: clip(string(mustJSON(obj)), 300), excerpt: excerpt, fix: "return the call's arguments unchanged, as an object"})
		}
	}
	return j.results(j.set)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null or missing"
	case string:
		return "a string"
	case []any:
		return "an array"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "not an object"
}

// ---- format_result ----

func (j *formatJudge) model() string {
	return formatOf(j.job.dialect).Model(j.job.format.wire())
}

func (j *formatJudge) runFormat(ctx context.Context) []reports.Result {
	c := j.job.format
	d := j.job.dialect
	if !j.declared(c.feature) {
		return j.results(j.set)
	}
	model := j.model()
	var outputs []json.RawMessage
	for i, call := range c.calls {
		ans, errText := j.ask(ctx, map[string]any{"op": "format_result", "dialect": string(d), "model": model,
			"call":   map[string]any{"name": call.name, "call_id": callIDFor(d, c, i), "arguments": call.args},
			"result": call.result})
		if errText != "" {
			j.add(checkFormatNative, finding{level: rules.MUST, message: fmt.Sprintf("format_result for call %s: %s", call.name, errText), fix: nativeFix(d)})
			return j.results(j.set[:1])
		}
		if msg := nativeShape(d, ans); msg != "" {
			j.add(checkFormatNative, finding{level: rules.MUST, message: fmt.Sprintf("format_result for call %s: %s", call.name, msg), got: clip(string(ans), 600), fix: nativeFix(d)})
		}
		outputs = append(outputs, ans)
	}
	body, err := j.request(model, outputs)
	if err != nil {
		j.add(checkFormatNative, finding{level: rules.MUST, message: err.Error(), fix: nativeFix(d)})
		return j.results(j.set[:1])
	}
	excerpt := clip(string(body), 2000)
	vs, entry, err := mockprovider.CheckRequest(d, body, model, rules.Options{})
	if err != nil {
		j.add(checkFormatNative, finding{level: rules.MUST, message: "the request holding the answer is not decodable: " + err.Error(), excerpt: excerpt, fix: nativeFix(d)})
		if entry == nil {
			return j.results(j.set[:1])
		}
		// The API refused the body outright; the rule it names (if any)
		// is reported too, the others could not be judged.
		for _, v := range entry.Violations {
			j.findings[v.Rule] = append(j.findings[v.Rule], finding{level: v.Level, message: v.Message, excerpt: excerpt})
		}
		return j.results(j.set[:1])
	}
	for _, v := range vs {
		msg := v.Message
		if v.Path != "" {
			msg = v.Path + ": " + msg
		}
		j.findings[v.Rule] = append(j.findings[v.Rule], finding{level: v.Level, message: msg, excerpt: excerpt})
	}
	j.judgeResults(entry.Conversation, excerpt)
	return j.results(j.set)
}

func nativeFix(d conv.Dialect) string { return formatOf(d).NativeFix() }

// nativeShape says what is wrong with an answer's outer shape ("" = fine).
func nativeShape(d conv.Dialect, ans json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(ans, &m) != nil || m == nil {
		return "the answer is not a JSON object"
	}
	return formatOf(d).NativeShape(m)
}

// request embeds the answers after the assistant turn that made the
// calls, in the dialect's wire shape.
func (j *formatJudge) request(model string, outputs []json.RawMessage) ([]byte, error) {
	c, fd := j.job.format, formatOf(j.job.dialect)
	var tools []any
	seen := map[string]bool{}
	for _, call := range c.calls {
		if seen[call.name] {
			continue
		}
		seen[call.name] = true
		props := map[string]any{}
		var req []string
		for k := range call.args {
			props[k] = map[string]any{"type": "string"}
			req = append(req, k)
		}
		sort.Strings(req)
		schema := map[string]any{"type": "object", "properties": props, "required": req}
		tools = append(tools, fd.Tool(call.name, "Conformance tool "+call.name+".", schema))
	}
	return fd.Request(model, c.wire(), tools, outputs)
}

// judgeResults applies the scenario checks to the decoded results.
func (j *formatJudge) judgeResults(c *conv.Conversation, excerpt string) {
	d, fc := j.job.dialect, j.job.format
	fd, jd := formatOf(d), judgeOf(d)
	if c == nil {
		j.add(checkFormatNative, finding{level: rules.MUST, message: "the request holding the answer could not be decoded", excerpt: excerpt, fix: nativeFix(d)})
		return
	}
	var results []*conv.Result
	for i, t := range c.Turns {
		if t.Role == conv.Assistant && len(t.Calls()) > 0 {
			for _, u := range c.Turns[i+1:] {
				results = append(results, u.Results()...)
			}
			break
		}
	}
	exps := make([]task.CallToolResult, len(fc.calls))
	for i, call := range fc.calls {
		exps[i] = call.result
	}
	for i, call := range fc.calls {
		id := callIDFor(d, fc, i)
		var r *conv.Result
		if jd.ResultsByPosition {
			if i < len(results) {
				r = results[i]
				if r.Name != call.name {
					j.add(checkMatchesCall, finding{level: rules.MUST, message: fmt.Sprintf("function response %d names %q but call %d is %q", i, r.Name, i, call.name),
						expected: call.name, got: r.Name, excerpt: excerpt, fix: "name each functionResponse after the function that was called"})
				}
			}
		} else {
			for _, x := range results {
				if x.CallID == id {
					r = x
					break
				}
			}
		}
		if r == nil {
			j.add(checkFormatNative, finding{level: rules.MUST, message: fmt.Sprintf("no result in the answer references call %s (%s)", id, call.name), excerpt: excerpt, fix: nativeFix(d)})
			continue
		}
		exp := call.result
		if !resultCarries(exp, r) {
			other := -1
			for k, e := range exps {
				if k != i && !sameData(e, exp) && resultCarries(e, r) {
					other = k
					break
				}
			}
			if other >= 0 {
				j.add(checkMatchesCall, finding{level: rules.MUST, message: fmt.Sprintf("the result for call %s (%s) carries the data of call %s", id, call.name, callIDFor(d, fc, other)),
					expected: clip(exp.Text(), 300), got: clip(resultText(r), 300), excerpt: excerpt, fix: "reference each call's own id in its result"})
			} else {
				j.add(checkCarriesData, finding{level: rules.MUST, message: fmt.Sprintf("the result for call %s (%s) does not carry the tool's output", id, call.name),
					expected: clip(expectedText(exp), 300), got: clip(resultText(r), 300), excerpt: excerpt, fix: "convert the tool's text (or structured content) into the dialect's result"})
			}
		}
		if exp.IsError && !errorDelivered(d, exp, r) {
			lvl := rules.MUST
			for _, rr := range dialectRules(d) {
				if rr.ID == ruleID(d, checkErrorFlagged) {
					lvl = rr.Level
				}
			}
			j.add(checkErrorFlagged, finding{level: lvl, message: fmt.Sprintf("the tool's error for call %s (%s) is sent as a normal result", id, call.name),
				expected: jd.ErrorForm, got: clip(resultText(r), 300), excerpt: excerpt, fix: jd.ErrorFix})
		}
		if media := exp.Media(); len(media) > 0 && jd.MediaInResults(fd.Model(fc.wire())) {
			for _, m := range media {
				if !hasMedia(r, m) {
					j.add(checkCarriesMedia, finding{level: rules.SHOULD, message: fmt.Sprintf("the %s returned for call %s is not in its result", m.MimeType, id), excerpt: excerpt,
						fix: "send tool images and documents in the result the way the API takes them"})
					break
				}
			}
		}
		if home := jd.StructuredObjectIn; home != "" && exp.StructuredContent != nil && !exp.IsError && !containsValue(r.Structured, exp.StructuredContent) {
			j.add(checkStructuredObj, finding{level: rules.SHOULD, message: fmt.Sprintf("the structured output of call %s is not an object in %s", call.name, home),
				expected: string(mustJSON(exp.StructuredContent)), got: string(mustJSON(r.Structured)), excerpt: excerpt,
				fix: "pass structuredContent as the response object (do not json-encode it into a string)"})
		}
	}
}

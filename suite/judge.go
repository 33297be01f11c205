package suite

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/jsonview"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite/task"
)

// finding is one breach of one rule in a run.
type finding struct {
	level                                rules.Level
	message, expected, got, excerpt, fix string
	// path: the JSON path of the offending member in excerpt, if known.
	path string
	// cause: the mock rejected the request for this breach.
	cause bool
}

// judge turns one driver run and its journal into findings per rule.
type judge struct {
	h        *Harness
	c        Combo
	t        *task.Task
	out      Outcome
	entries  []session.Entry
	findings map[string][]finding
	// replies are the model's answers to the accepted requests, by entry
	// index, as the mock decided them (computed once for every check).
	replies map[int]*model.Reply
}

// replyTo is the model's answer to entry k's conversation (nil when it
// cannot be recomputed).
func (j *judge) replyTo(k int) *model.Reply {
	if r, ok := j.replies[k]; ok {
		return r
	}
	r, err := j.h.engine.Next(j.entries[k].Conversation, j.c.Scenario.Name)
	if err != nil {
		r = nil
	}
	if j.replies == nil {
		j.replies = map[int]*model.Reply{}
	}
	j.replies[k] = r
	return r
}

func (j *judge) add(check string, f finding) {
	id := ruleID(j.c.Dialect, check)
	j.findings[id] = append(j.findings[id], f)
}

func (j *judge) run() {
	for _, e := range j.entries {
		for _, v := range e.Violations {
			// The excerpt keeps the violation's member within the limit.
			f := finding{level: v.Level, message: violationMessage(v), excerpt: jsonview.Focus(e.Request, v.Path, 1500), path: v.Path, cause: e.Status >= 400}
			if e.Status >= 400 {
				f.got = fmt.Sprintf("the mock answered %d: %s", e.Status, clip(violationMessage(v), 400))
			} else {
				f.got = violationMessage(v)
			}
			j.findings[v.Rule] = append(j.findings[v.Rule], f)
		}
		// A rule the decoder answered (unknown member, wrong type, bad
		// JSON) is journaled as the answer's rule, not as a violation.
		if e.Answered != "" && len(j.findings[e.Answered]) == 0 {
			j.findings[e.Answered] = append(j.findings[e.Answered], finding{level: rules.MUST, message: clip(string(e.Response), 500), excerpt: clip(string(e.Request), 1500),
				got: fmt.Sprintf("the mock answered %d: %s", e.Status, clip(string(e.Response), 400)), cause: e.Status >= 400})
		}
	}
	j.checkFinalText()
	cut := j.checkTruncatedCalls()
	j.checkResults(cut)
	j.checkIssuedCallsKept()
	j.checkToolChoice()
	j.checkToolChoiceReset()
	j.checkStrict()
	j.checkLimitSent()
	j.checkThinkingSent()
	j.checkItemRefsSent()
	j.checkStructuredAnswer()
}

// violationMessage is a journaled violation as the report shows it: the
// provider's message, led by the JSON path unless the provider's wording
// already names it (Anthropic messages start with the path, OpenAI ones
// quote it), so the path never reads twice.
func violationMessage(v rules.Violation) string {
	if v.Path == "" || namesPath(v.Message, v.Path) {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// namesPath reports whether msg mentions path as a whole path (or the
// start of a deeper one): "messages.2" is named by "messages.2: …" and
// "messages.2.content.0: …" but not by "messages.21: …".
func namesPath(msg, path string) bool {
	for from := 0; ; {
		i := strings.Index(msg[from:], path)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(path)
		before := start == 0 || !isPathChar(msg[start-1])
		after := end == len(msg) || !isDigitOrLetter(msg[end])
		if before && after {
			return true
		}
		from = start + 1
	}
}

func isDigitOrLetter(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isPathChar(c byte) bool { return isDigitOrLetter(c) || c == '.' || c == '[' || c == ']' }

// fail marks res failed (warned, for a SHOULD rule) by its findings: each
// distinct message once, at most three, and the first finding's evidence.
func fail(res *reports.Result, r rules.Rule, fs []finding) {
	level := r.Level
	res.Outcome = reports.Fail
	if level == rules.SHOULD {
		res.Outcome = reports.Warn
	}
	// The same breach repeated request after request reads once.
	var msgs []string
	seen := map[string]bool{}
	more := 0
	for _, f := range fs {
		switch {
		case seen[f.message]:
		case len(msgs) == 3:
			more++
		default:
			msgs = append(msgs, f.message)
		}
		seen[f.message] = true
	}
	if more > 0 {
		msgs = append(msgs, fmt.Sprintf("(and %d more)", more))
	}
	res.Message = strings.Join(msgs, "; ")
	res.Expected, res.Got, res.Excerpt, res.Path, res.Fix = fs[0].expected, fs[0].got, fs[0].excerpt, fs[0].path, fs[0].fix
	res.Cause = slices.ContainsFunc(fs, func(f finding) bool { return f.cause })
	// Every failure reads as expected vs got with a fix: where a check
	// gave none, the rule itself says what it wants.
	if res.Expected == "" {
		res.Expected = r.Summary
	}
	if res.Got == "" {
		res.Got = fs[0].message
	}
	if res.Fix == "" {
		res.Fix = "change what the adapter sends so that: " + r.Summary
		if r.Source != "" {
			res.Fix += " (source: " + r.Source + ")"
		}
	}
}

// result is the verdict on one rule.
func (j *judge) result(r rules.Rule, dur time.Duration) reports.Result {
	res := j.h.result(j.c, r)
	res.Duration = dur
	fs := j.findings[r.ID]
	switch {
	case !j.h.Declared(r.Feature):
		res.Outcome, res.Message = reports.NotSupported, fmt.Sprintf("feature %q not declared", r.Feature)
	case len(fs) == 0 && !j.exercises(r):
		res.Outcome = reports.NotExercised
		res.Message = fmt.Sprintf("the %s run has nothing this rule judges (feature %q)", j.c.Scenario.Name, r.Feature)
	case len(fs) == 0:
		res.Outcome = reports.Pass
	default:
		fail(&res, r, fs)
	}
	return res
}

// exercises reports whether the run gives rule r something to judge: a
// rule tagged with a feature judges only scenarios with that feature (and
// streaming rules only streamed runs), so a quiet rule elsewhere is not
// counted as a pass.
func (j *judge) exercises(r rules.Rule) bool {
	switch r.Feature {
	case "", "core":
		return true
	case "streaming":
		return j.c.Stream
	}
	return slices.Contains(j.c.Scenario.Features, r.Feature)
}

// outside lists the rules breached in the journal that the set does not
// hold (a dialect's rule raised elsewhere), sorted by ID.
func (j *judge) outside(set []rules.Rule) []rules.Rule {
	seen := map[string]bool{}
	for _, r := range set {
		seen[r.ID] = true
	}
	var out []rules.Rule
	for id, fs := range j.findings {
		if !seen[id] {
			out = append(out, rules.Rule{ID: id, Dialect: j.c.Dialect, Level: fs[0].level, Summary: "(rule outside the catalog)", Source: "mock journal"})
		}
	}
	slices.SortFunc(out, func(a, b rules.Rule) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// checkFinalText: the driver finished and its final text is the model's
// last answer, as the deterministic model computes it from the last
// accepted request.
func (j *judge) checkFinalText() {
	fix := "finish the tool loop: send every result back until the model answers in text, then print {\"final_text\": …} as the last stdout line and exit 0"
	if j.out.Err != nil {
		msg := j.out.Err.Error()
		if e := j.lastRejected(); e != nil {
			msg += fmt.Sprintf("; the mock answered %d: %s", e.Status, clip(string(e.Response), 400))
		}
		if j.out.Log != "" {
			msg += "; driver stderr: " + logExcerpt(j.out.Log, logExcerptSize)
		}
		j.add(checkFinalText, finding{level: rules.MUST, message: msg, fix: fix})
		return
	}
	last := j.lastAccepted()
	if last < 0 {
		j.add(checkFinalText, finding{level: rules.MUST, message: "the driver reported a final text but the mock accepted no request from it", fix: fix})
		return
	}
	reply := j.replyTo(last)
	if reply == nil {
		return
	}
	if len(reply.Calls()) > 0 {
		j.add(checkFinalText, finding{level: rules.MUST, message: "the driver stopped while the model's last answer still asked for tool calls", fix: fix})
		return
	}
	want := strings.TrimSpace(reply.Text())
	got := strings.TrimSpace(j.out.Reply.FinalText)
	if want != got {
		j.add(checkFinalText, finding{level: rules.MUST, message: "final_text differs from the model's final answer", expected: clip(want, 600), got: clip(got, 600),
			fix: "report the model's text as received (a stream's text deltas concatenated in order)"})
	}
}

func (j *judge) lastRejected() *session.Entry {
	for i := len(j.entries) - 1; i >= 0; i-- {
		if j.entries[i].Status >= 400 {
			return &j.entries[i]
		}
	}
	return nil
}

// pair is one assistant turn's calls and the results sent after it.
type pair struct {
	index   int // assistant turn index (scenario turn)
	calls   []*conv.Call
	results []*conv.Result
	request json.RawMessage
	// flagged is set when the request carrying the pair already broke a
	// MUST request rule (which then tells the story better).
	flagged bool
}

// pairs collects, from the latest request that contains each assistant
// turn, its calls and the results in the user turns that follow it.
func (j *judge) pairs() map[int]*pair {
	out := map[int]*pair{}
	for _, e := range j.entries {
		c := e.Conversation
		if c == nil {
			continue
		}
		k := -1
		for i, t := range c.Turns {
			if t.Role != conv.Assistant {
				continue
			}
			k++
			calls := t.Calls()
			if len(calls) == 0 {
				continue
			}
			p := &pair{index: k, calls: calls, request: e.Request, flagged: rules.FirstMust(e.Violations) != nil}
			for _, u := range c.Turns[i+1:] {
				if u.Role == conv.Assistant {
					break
				}
				p.results = append(p.results, u.Results()...)
			}
			if len(p.results) > 0 || out[k] == nil {
				out[k] = p
			}
		}
	}
	return out
}

// expectation is what a call must be answered with.
type expectation struct {
	result    task.CallToolResult
	synthetic bool // an error the driver words itself
	why       string
	// badArguments: the scenario made the call's arguments break the
	// tool's schema on purpose, so a library that validates them itself
	// and answers with its own error result is as right as one that runs
	// the tool and passes its error on.
	badArguments bool
	// names are words that name the problem of a call the driver answers
	// with its own error ("Please send valid JSON arguments" says it
	// without an error word): on the OpenAI APIs, which have no error
	// flag, a result that names the problem reads as that error.
	names []string
}

// argumentWords name a problem with a call's arguments.
var argumentWords = []string{"argument", "json", "pars", "schema", "valid"}

// reportsProblem is errorFlagged for a call the driver answers with its
// own error: on the OpenAI APIs, naming the problem says it too.
func reportsProblem(d conv.Dialect, exp expectation, r *conv.Result) bool {
	if errorFlagged(d, r) {
		return true
	}
	if !judgeOf(d).NoErrorFlag {
		return false
	}
	texts, _ := evidence(r)
	for _, t := range texts {
		t = strings.ToLower(t)
		for _, w := range exp.names {
			if strings.Contains(t, strings.ToLower(w)) {
				return true
			}
		}
	}
	return false
}

func (j *judge) expect(p *pair, i int) expectation {
	call := p.calls[i]
	var sc *scenario.Call
	if p.index < len(j.c.Scenario.Turns) && i < len(j.c.Scenario.Turns[p.index].Calls) {
		sc = &j.c.Scenario.Turns[p.index].Calls[i]
	}
	args := call.Arguments
	if sc != nil {
		if judgeOf(j.c.Dialect).RawArguments && sc.RawArguments != "" {
			if _, ok := task.ParseArguments(sc.RawArguments); !ok {
				return expectation{result: task.ErrorResult(""), synthetic: true, why: fmt.Sprintf("call %s had unparseable arguments %q", call.Name, sc.RawArguments), names: argumentWords}
			}
		}
		if sc.Arguments != nil {
			args = sc.Arguments
		}
	}
	o := j.t.Answer(call.Name, args)
	if !o.Canned {
		why := fmt.Sprintf("call to undeclared tool %q", call.Name)
		if j.t.Tool(call.Name) != nil {
			why = fmt.Sprintf("call %s matched none of the tool's results", call.Name)
		}
		names := []string{call.Name}
		if j.t.Tool(call.Name) != nil {
			names = argumentWords
		}
		return expectation{result: o.Result, synthetic: true, why: why, names: names}
	}
	if sc != nil && sc.InvalidArguments {
		return expectation{result: o.Result, badArguments: true, names: argumentWords}
	}
	return expectation{result: o.Result}
}

// checkResults judges every delivered result against its call, except
// the calls of the turns in cut (the token limit cut them: their
// arguments are a fragment, and checkTruncatedCalls tells that story).
func (j *judge) checkResults(cut map[int]bool) {
	ps := j.pairs()
	// A scripted bad call the mock sent but the driver never answered
	// (it crashed, or dropped the call).
	for _, e := range j.entries {
		if e.Status != 200 || e.Turn >= len(j.c.Scenario.Turns) {
			continue
		}
		for _, sc := range j.c.Scenario.Turns[e.Turn].Calls {
			if !sc.Undeclared {
				continue
			}
			if p := ps[e.Turn]; p == nil || len(p.results) == 0 {
				j.add(checkBadCallAnswered, finding{level: rules.MUST, message: fmt.Sprintf("the model called undeclared tool %q and the driver never sent a result for it", sc.Name),
					fix: "answer calls to unknown tools with an error result instead of failing"})
			}
		}
	}
	for _, p := range ps {
		if cut[p.index] {
			continue
		}
		if len(p.results) == 0 {
			if !p.flagged {
				j.add(checkResultsSent, finding{level: rules.MUST, message: fmt.Sprintf("the model's turn %d called %d tool(s) and the driver sent the conversation back without their results", p.index+1, len(p.calls)),
					excerpt: clip(string(p.request), 1500), fix: "append one result per call after the assistant turn before calling the model again"})
			}
			continue
		}
		j.checkOneResult(p)
		exps := make([]expectation, len(p.calls))
		for i := range p.calls {
			exps[i] = j.expect(p, i)
		}
		for i, call := range p.calls {
			r := j.match(p, i)
			if r == nil {
				continue // unanswered calls are the request rules' business
			}
			j.judgeResult(p, call, r, exps, i)
		}
	}
}

// checkIssuedCallsKept judges against what the mock issued, not against
// what the driver chose to replay: when the model answered with tool
// calls, the driver's next request must carry that assistant turn with
// every one of those calls (and so, by the request rules, their results).
// checkResults judges the calls a request carries; this catches the turn
// that vanished (results pasted into a user message as text, history
// rebuilt without the calls) and the call that vanished with its result
// (code that reads only the first call), which no request rule can see.
// The issued calls are the deterministic model's answer to the request
// the mock accepted — the turn it sent. A request that already broke a
// MUST rule, or that repeats the previous one (a retry), is left alone.
func (j *judge) checkIssuedCallsKept() {
	for k, e := range j.entries {
		if e.Status != 200 || e.Fault != "" || e.Conversation == nil {
			continue
		}
		next := j.nextRequest(k)
		if next == nil || bytes.Equal(next.Request, e.Request) || rules.FirstMust(next.Violations) != nil {
			continue
		}
		reply := j.replyTo(k)
		// A turn the token limit cut is asked again, not carried on
		// (checkTruncatedCalls judges that).
		if reply == nil || len(reply.Calls()) == 0 || reply.Stop == model.StopTokens {
			continue
		}
		issued := callNames(reply.Calls())
		turn := assistantRuns(e.Conversation)
		carried := callNames(assistantRunCalls(next.Conversation, turn))
		if len(carried) == 0 {
			j.add(checkResultsSent, finding{level: rules.MUST,
				message: fmt.Sprintf("the model's turn %d called %s and the driver's next request does not carry that turn with its results", turn+1, strings.Join(issued, ", ")),
				excerpt: clip(string(next.Request), 1500),
				fix:     "append the model's turn as received (its calls included), then one native result per call; never paste results into a user message as text"})
			continue
		}
		if missing := missingNames(issued, carried); len(missing) > 0 {
			j.add(checkResultsSent, finding{level: rules.MUST,
				message:  fmt.Sprintf("the model's turn %d called %d tools (%s); the driver's next request carries %d of those calls, without %s", turn+1, len(issued), strings.Join(issued, ", "), len(carried), strings.Join(missing, ", ")),
				expected: strings.Join(issued, ", "), got: strings.Join(carried, ", "), excerpt: clip(string(next.Request), 1500),
				fix: "replay every call of the model's turn (not only the first choice or content block), each with its result"})
		}
	}
}

func callNames(calls []*conv.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Name
	}
	return out
}

// missingNames is issued minus carried, as multisets.
func missingNames(issued, carried []string) []string {
	left := map[string]int{}
	for _, n := range carried {
		left[n]++
	}
	var out []string
	for _, n := range issued {
		if left[n] > 0 {
			left[n]--
			continue
		}
		out = append(out, n)
	}
	return out
}

// nextRequest is the first entry after k the mock could read.
func (j *judge) nextRequest(k int) *session.Entry {
	for i := k + 1; i < len(j.entries); i++ {
		if j.entries[i].Conversation != nil {
			return &j.entries[i]
		}
	}
	return nil
}

func assistantTurns(c *conv.Conversation) int {
	n := 0
	for _, t := range c.Turns {
		if t.Role == conv.Assistant {
			n++
		}
	}
	return n
}

// assistantRuns counts the runs of consecutive assistant turns in c: a
// model turn may be replayed as several assistant messages (its text, then
// its calls), which together are one turn of the model.
func assistantRuns(c *conv.Conversation) int {
	n := 0
	for i, t := range c.Turns {
		if t.Role == conv.Assistant && (i == 0 || c.Turns[i-1].Role != conv.Assistant) {
			n++
		}
	}
	return n
}

// assistantRunCalls is every call of the k-th (0-based) run of
// consecutive assistant turns of c.
func assistantRunCalls(c *conv.Conversation, k int) []*conv.Call {
	var out []*conv.Call
	run := -1
	for i, t := range c.Turns {
		if t.Role != conv.Assistant {
			continue
		}
		if i == 0 || c.Turns[i-1].Role != conv.Assistant {
			run++
		}
		if run == k {
			out = append(out, t.Calls()...)
		} else if run > k {
			break
		}
	}
	return out
}

// assistantTurn is the k-th (0-based) assistant turn of c, or nil.
func assistantTurn(c *conv.Conversation, k int) *conv.Turn {
	for i := range c.Turns {
		if c.Turns[i].Role != conv.Assistant {
			continue
		}
		if k == 0 {
			return &c.Turns[i]
		}
		k--
	}
	return nil
}

// match finds the result answering call i: by id, or where the dialect
// matches them by position, there (checking name and id).
func (j *judge) match(p *pair, i int) *conv.Result {
	call := p.calls[i]
	if judgeOf(j.c.Dialect).ResultsByPosition {
		if i >= len(p.results) {
			return nil
		}
		r := p.results[i]
		if r.Name != call.Name || (call.ID != "" && r.CallID != "" && r.CallID != call.ID) {
			j.add(checkMatchesCall, finding{level: rules.MUST, message: fmt.Sprintf("function response %d is %s (id %q) but call %d is %s (id %q)", i, r.Name, r.CallID, i, call.Name, call.ID),
				expected: call.Name, got: r.Name, excerpt: clip(string(p.request), 1500), fix: "send the function responses in the order of the calls, each with its call's name and id"})
		}
		return r
	}
	for _, r := range p.results {
		if r.CallID == call.ID {
			return r
		}
	}
	return nil
}

func (j *judge) judgeResult(p *pair, call *conv.Call, r *conv.Result, exps []expectation, i int) {
	exp := exps[i]
	// The result as sent, highlighted in the excerpt: found by the id it
	// carries (the call's, when it carries none).
	id := r.CallID
	if id == "" {
		id = call.ID
	}
	jd := judgeOf(j.c.Dialect)
	path := jd.ResultPath(p.request, id, call.Name)
	excerpt := jsonview.Focus(p.request, path, 1500)
	add := func(check string, f finding) {
		f.path = path
		j.add(check, f)
	}
	if exp.synthetic {
		if !reportsProblem(j.c.Dialect, exp, r) {
			add(checkBadCallAnswered, finding{level: rules.MUST, message: exp.why + " but its result is not an error", got: clip(resultText(r), 300), excerpt: excerpt,
				fix: "answer such calls with an error result (" + jd.ErrorForm + ")"})
		}
		return
	}
	// Arguments that break the schema may be caught before the tool runs:
	// the library's own error result for the call answers it.
	if exp.badArguments && !resultCarries(exp.result, r) && reportsProblem(j.c.Dialect, exp, r) {
		return
	}
	if !resultCarries(exp.result, r) {
		other := -1
		for k, e := range exps {
			if k != i && !e.synthetic && !sameData(e.result, exp.result) && resultCarries(e.result, r) {
				other = k
				break
			}
		}
		if other >= 0 {
			add(checkMatchesCall, finding{level: rules.MUST, message: fmt.Sprintf("the result for call %s (%s) carries the data of call %s", call.ID, call.Name, p.calls[other].ID),
				expected: clip(exp.result.Text(), 300), got: clip(resultText(r), 300), excerpt: excerpt, fix: "reference each call's own id in its result"})
		} else {
			add(checkCarriesData, finding{level: rules.MUST, message: fmt.Sprintf("the result for call %s (%s) does not carry the tool's output", call.ID, call.Name),
				expected: clip(expectedText(exp.result), 300), got: clip(resultText(r), 300), excerpt: excerpt, fix: "convert the tool's text (or structured content) into the dialect's result"})
		}
	}
	if exp.result.IsError && !errorDelivered(j.c.Dialect, exp.result, r) {
		add(checkErrorFlagged, finding{level: j.level(checkErrorFlagged), message: fmt.Sprintf("the tool's error for call %s (%s) is sent as a normal result", call.ID, call.Name),
			expected: jd.ErrorForm, got: clip(resultText(r), 300), excerpt: excerpt, fix: jd.ErrorFix})
	}
	if media := exp.result.Media(); len(media) > 0 && jd.MediaInResults(j.t.Model) {
		for _, m := range media {
			if !hasMedia(r, m) {
				add(checkCarriesMedia, finding{level: rules.SHOULD, message: fmt.Sprintf("the %s returned for call %s is not in its result", m.MimeType, call.ID), excerpt: excerpt,
					fix: "send tool images and documents in the result the way the API takes them"})
				break
			}
		}
	}
	if home := jd.StructuredObjectIn; home != "" && exp.result.StructuredContent != nil && !exp.result.IsError {
		if !containsValue(r.Structured, exp.result.StructuredContent) {
			add(checkStructuredObj, finding{level: rules.SHOULD, message: fmt.Sprintf("the structured output of call %s is not an object in %s", call.Name, home),
				expected: string(mustJSON(exp.result.StructuredContent)), got: string(mustJSON(r.Structured)), excerpt: excerpt,
				fix: "pass structuredContent as the response object (do not json-encode it into a string)"})
		}
	}
}

func (j *judge) level(check string) rules.Level {
	for _, r := range dialectRules(j.c.Dialect) {
		if r.ID == ruleID(j.c.Dialect, check) {
			return r.Level
		}
	}
	return rules.MUST
}

// errorFlagged reports whether r says that its call failed, the way the
// dialect can: its error flag (Anthropic is_error), or an error member of
// a structured result (Gemini's "error"). Where the API has no error flag
// (OpenAI) the wording decides (readsAsError): whatever wrapping a library
// gives an error ("An error occurred while …", "Tool … not found"), it
// says so.
func errorFlagged(d conv.Dialect, r *conv.Result) bool {
	if r.IsError {
		return true
	}
	jd := judgeOf(d)
	if jd.ErrorMember != "" {
		_, ok := r.Structured[jd.ErrorMember]
		return ok
	}
	return jd.NoErrorFlag && readsAsError(r)
}

// errorWords are what an error message says in some form, lower case:
// the words libraries wrap a tool's failure in, and those a tool's own
// error messages use.
var errorWords = []string{"error", "fail", "invalid", "not found", "unknown", "no such", "not exist", "does not", "doesn't", "not available",
	"unavailable", "could not", "couldn't", "cannot", "can't", "unable", "exception", "malformed", "not allowed", "denied", "missing", "not a valid"}

// readsAsError reports whether a result's text or JSON says it is an
// error: an error word anywhere in it, or an object with an "error"
// member or a true isError / is_error.
func readsAsError(r *conv.Result) bool {
	texts, values := evidence(r)
	for _, t := range texts {
		t = strings.ToLower(t)
		for _, w := range errorWords {
			if strings.Contains(t, w) {
				return true
			}
		}
	}
	for _, v := range values {
		obj, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := obj["error"]; ok {
			return true
		}
		for _, k := range []string{"isError", "is_error", "iserror"} {
			if b, ok := obj[k].(bool); ok && b {
				return true
			}
		}
	}
	return false
}

// errorReached reports whether the error a call's tool returned reached
// the model in r, in whatever wrapping: the scripted error verbatim (or
// as the same JSON value), or its substance — its opening words (errorHead),
// compared word by word, so a library that re-quotes, re-cases or
// prefixes the message still delivers it.
func errorReached(exp task.CallToolResult, r *conv.Result) bool {
	if carries(exp, r) {
		return true
	}
	head := errorHead(exp.Text())
	if head == "" {
		return false
	}
	texts, _ := evidence(r)
	for _, t := range texts {
		if strings.Contains(" "+words(t)+" ", " "+head+" ") {
			return true
		}
	}
	return false
}

// errorHead is what an error message says first, as words: up to its
// first sentence end, colon or line break (what a library that shortens
// the message keeps), and at least three words where it has them, so a
// lone "Error:" is not taken for the message.
func errorHead(s string) string {
	all := strings.Fields(words(s))
	n := len(strings.Fields(words(firstClause(s))))
	n = min(max(n, 3), len(all))
	return strings.Join(all[:n], " ")
}

// firstClause is the text up to its first sentence end, colon or line
// break.
func firstClause(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".:;\n"); i > 0 {
		return s[:i]
	}
	return s
}

// words is s lower-cased with every run of non-letters and non-digits
// one space: quoting and punctuation do not count.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }), " ")
}

// resultCarries is carries for every expected result: an error's content
// may arrive in the library's own wrapping (errorReached).
func resultCarries(exp task.CallToolResult, r *conv.Result) bool {
	if exp.IsError {
		return errorReached(exp, r)
	}
	return carries(exp, r)
}

// errorDelivered is the error-flagged check on one result: flagged the
// dialect's way; where the API has no flag (OpenAI), the error's content
// reached the model or the result says it failed.
func errorDelivered(d conv.Dialect, exp task.CallToolResult, r *conv.Result) bool {
	if judgeOf(d).NoErrorFlag {
		return errorReached(exp, r) || readsAsError(r)
	}
	return errorFlagged(d, r)
}

// carries reports whether a delivered result holds the expected output:
// each text item (found verbatim, or as the same JSON value), or, when
// the tool returned only structured content, that object.
func carries(exp task.CallToolResult, r *conv.Result) bool {
	texts, values := evidence(r)
	found := func(s string) bool {
		s = strings.TrimSpace(s)
		if s == "" {
			return true
		}
		for _, t := range texts {
			if strings.Contains(t, s) {
				return true
			}
		}
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			for _, x := range values {
				if containsValue(x, v) {
					return true
				}
			}
		}
		return false
	}
	text := exp.Text()
	if strings.TrimSpace(text) != "" {
		for _, c := range exp.Content {
			s := c.Text
			if c.Type == "resource" && c.Resource != nil {
				s = c.Resource.Text
			}
			if (c.Type == "text" || c.Type == "resource") && !found(s) {
				return false
			}
		}
		return true
	}
	if exp.StructuredContent != nil {
		for _, x := range values {
			if containsValue(x, exp.StructuredContent) {
				return true
			}
		}
		return found(string(mustJSON(exp.StructuredContent)))
	}
	return true
}

// evidence gathers every string in a result and every JSON value it holds
// (the structured object, texts that parse as JSON), down through strings
// nested in parsed JSON: a library that JSON-encodes a whole block list
// into one output string still carries each block's text.
func evidence(r *conv.Result) (texts []string, values []any) {
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			texts = append(texts, x)
			var parsed any
			if json.Unmarshal([]byte(x), &parsed) == nil {
				if _, isStr := parsed.(string); !isStr {
					values = append(values, parsed)
					walk(parsed)
				}
			}
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	for _, c := range r.Content {
		switch {
		case c.Type == conv.ContentText:
			walk(c.Text)
		case strings.HasPrefix(c.MIMEType, "text/") && c.Data != "":
			// A text document sent as a file part still carries its text.
			if b, err := base64.StdEncoding.DecodeString(c.Data); err == nil {
				walk(string(b))
			}
		}
	}
	if r.Structured != nil {
		values = append(values, task.Normalize(r.Structured))
		walk(task.Normalize(r.Structured))
	}
	return texts, values
}

// containsValue reports whether want is found in have: equal to have or a
// value nested in it, objects compared as subsets (extra keys in have are
// fine: a driver may add references to attachments).
func containsValue(have, want any) bool {
	have, want = task.Normalize(have), task.Normalize(want)
	if matchesValue(have, want) {
		return true
	}
	switch x := have.(type) {
	case map[string]any:
		for _, y := range x {
			if containsValue(y, want) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if containsValue(y, want) {
				return true
			}
		}
	}
	return false
}

func matchesValue(have, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(have, want)
	}
	hm, ok := have.(map[string]any)
	if !ok {
		return false
	}
	for k, wv := range wm {
		hv, ok := hm[k]
		if !ok || !matchesValue(hv, wv) {
			return false
		}
	}
	return true
}

func sameData(a, b task.CallToolResult) bool {
	return a.Text() == b.Text() && reflect.DeepEqual(task.Normalize(a.StructuredContent), task.Normalize(b.StructuredContent))
}

func hasMedia(r *conv.Result, m task.Media) bool {
	want, err := base64.StdEncoding.DecodeString(m.Data)
	if err != nil {
		return false
	}
	for _, c := range r.Content {
		if c.Type != conv.ContentImage && c.Type != conv.ContentDocument {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(c.Data)
		if err == nil && bytes.Equal(got, want) {
			return true
		}
	}
	return false
}

func resultText(r *conv.Result) string {
	s := r.Text()
	if r.Structured != nil {
		if s != "" {
			s += " "
		}
		s += string(mustJSON(r.Structured))
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

func expectedText(r task.CallToolResult) string {
	if t := r.Text(); t != "" {
		return t
	}
	return string(mustJSON(r.StructuredContent))
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

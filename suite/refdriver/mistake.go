package refdriver

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/checks"
	"github.com/toolwire/toolwire/suite/task"
)

// Break names one deliberate mistake (the --break value).
type Break string

// None is the honest driver.
const None Break = ""

// A Mistake is one row of a dialect's mistakes table: a classic mistake
// real adapters make, how the driver makes it, and what the suite must
// report when it does. The zero Mistake is the honest driver: every hook
// is nil or false, so the loops that call them do what the seeds
// prescribe.
type Mistake struct {
	Name        Break
	Description string
	// Kill is what the suite must report for this mistake on this
	// dialect (the kill matrix); Also, against other mock configurations.
	Kill
	Also []Kill
	// Hooks are the points of the shared code where the mistake is made;
	// each dialect's table adds the hooks of its own loop.
	Hooks
}

// Kill is what the suite must report for a mistake under one mock
// configuration: every run on Scenarios (nil = the kill matrix's
// representative set) fails each rule of Fails (path.Match patterns on
// rule IDs) at least once, and nothing else but MayFail and Collateral.
// A mistake whose Kill fails nothing is a correct variant, which the
// suite must accept.
type Kill struct {
	// StrictRoles runs against a mock with --strict-roles (the historic
	// Anthropic role 400s); GeminiCallIDs against one whose Gemini
	// function calls carry ids.
	StrictRoles, GeminiCallIDs bool
	Scenarios                  []string
	Fails, MayFail             []string
}

// Hooks are the mistakes the shared code makes (nil or false: none).
type Hooks struct {
	// Body rewrites each request body before it is sent: the mistakes
	// the typed SDK params cannot express.
	Body func(body []byte) []byte
	// AnswerCall answers a call in place of honest, which it may call.
	AnswerCall func(t *task.Task, c Call, honest func(*task.Task, Call) (task.CallToolResult, error)) (task.CallToolResult, error)
	// ResultText is the text sent for a result in place of the honest
	// one (an error marked with an "Error: " prefix).
	ResultText func(r task.CallToolResult) string
	// UnmarkedErrors sends tool errors as ordinary results: no error
	// flag, no error marker.
	UnmarkedErrors bool
	// Batch edits the answers to one model turn before they go back.
	Batch func([]Answer) []Answer
	// KeepForcing sends the task's forced tool_choice on every request,
	// not only until its call was answered.
	KeepForcing bool
	// RunCutTurns runs the calls of a turn the token limit cut.
	RunCutTurns bool
	// NoOutputLimit ignores the task's max_output_tokens.
	NoOutputLimit bool
	// FinalText is the final text reported in place of the model's.
	FinalText func(string) string
	// DropOutput leaves the task's output schema out of the requests.
	DropOutput bool
}

// Call is one call of the model as the driver answers it.
type Call struct {
	Name string
	Args map[string]any
	// BadArgs: the arguments are not a JSON object.
	BadArgs bool
}

// Answer is one call's answer as it goes back to the model.
type Answer struct {
	ID, Name string
	Result   task.CallToolResult
}

// Failing returns the mistake with rules added to what it must fail.
func (m Mistake) Failing(rules ...string) Mistake {
	m.Fails = append(slices.Clip(m.Fails), rules...)
	return m
}

// MayFailing returns the mistake with rules added to what it may fail.
func (m Mistake) MayFailing(rules ...string) Mistake {
	m.MayFail = append(slices.Clip(m.MayFail), rules...)
	return m
}

// Killing returns the mistake with what it must fail under other mock
// configurations.
func (m Mistake) Killing(kills ...Kill) Mistake {
	m.Also = append(slices.Clip(m.Also), kills...)
	return m
}

// Rewriting returns the mistake made by rewriting each request body.
func (m Mistake) Rewriting(body func([]byte) []byte) Mistake {
	m.Body = body
	return m
}

// Answer runs the contract's tool for one call.
func (m *Mistake) Answer(t *task.Task, c Call) (task.CallToolResult, error) {
	if m.AnswerCall != nil {
		return m.AnswerCall(t, c, answer)
	}
	return answer(t, c)
}

func answer(t *task.Task, c Call) (task.CallToolResult, error) {
	if c.BadArgs {
		return task.ErrorResult("arguments are not a JSON object"), nil
	}
	return t.Answer(c.Name, c.Args).Result, nil
}

// ErrorText is a result's text, an error's marked the way OpenAI and
// Gemini adapters may (their wire formats have no error flag): an
// "Error: " prefix, unless the text already says it is an error.
func (m *Mistake) ErrorText(r task.CallToolResult) string {
	switch {
	case m.ResultText != nil:
		return m.ResultText(r)
	case !r.IsError || m.UnmarkedErrors:
		return r.Text()
	}
	return errorPrefixed(r.Text())
}

func errorPrefixed(text string) string {
	if strings.HasPrefix(strings.ToLower(text), "error") {
		return text
	}
	return "Error: " + text
}

// PlainText is the text form of a result for wires that carry only text:
// the text items, else the structured content as JSON, plus a note per
// binary item.
func (m *Mistake) PlainText(r task.CallToolResult) string {
	text := m.ErrorText(r)
	if text == "" && r.StructuredContent != nil {
		text = string(MustJSON(r.StructuredContent))
		if r.IsError && !m.UnmarkedErrors {
			text = "Error: " + text
		}
	}
	for _, media := range r.Media() {
		note := fmt.Sprintf("[%s attachment omitted: this API takes no media in tool results]", media.MimeType)
		if text != "" {
			text += "\n"
		}
		text += note
	}
	return text
}

// Answers are the answers to one model turn as they go back.
func (m *Mistake) Answers(answers []Answer) []Answer {
	if m.Batch != nil {
		return m.Batch(answers)
	}
	return answers
}

// Forcing reports whether a request sends the task's tool_choice: until
// the first results go back. The APIs answer a forced choice with a call
// every time, so a loop that keeps it after the forced call was answered
// never ends in text.
func (m *Mistake) Forcing(answered bool) bool { return !answered || m.KeepForcing }

// maxOutputLimit bounds the retries of a cut turn: the limit doubles on
// each, up to this.
const maxOutputLimit = 8192

// RetryCut decides what to do with a turn the token limit cut inside a
// call (its last call's arguments are a fragment; a text the limit cut
// is an answer, as short as the caller asked): ask again with twice the
// limit (retry), or report the turn incomplete once the limit reaches
// maxOutputLimit.
func (m *Mistake) RetryCut(cut bool, limit *int) (retry bool, err error) {
	if !cut || m.RunCutTurns {
		return false, nil
	}
	if *limit <= 0 || *limit >= maxOutputLimit {
		return false, fmt.Errorf("the model's turn was cut by the output token limit (%d)", *limit)
	}
	*limit *= 2
	return true, nil
}

// StartLimit is the output token limit of the first request: the task's
// (0 = none).
func (m *Mistake) StartLimit(t *task.Task) int {
	if m.NoOutputLimit {
		return 0
	}
	return t.MaxOutputTokens
}

// Output is the structured-output demand the requests carry: the task's
// (nil = free text).
func (m *Mistake) Output(t *task.Task) *task.Output {
	if m.DropOutput {
		return nil
	}
	return t.Output
}

// Final is the final text the driver reports.
func (m *Mistake) Final(text string) string {
	if m.FinalText != nil {
		return m.FinalText(text)
	}
	return text
}

// Collateral may fail after any mistake: a driver whose request was
// rejected has no final text, and may not answer the calls that follow.
var Collateral = []string{checks.Every(checks.FinalText), checks.Every(checks.BadCallAnswered), checks.Every(checks.ResultsSent)}

// Expectation is what the suite must report for a break variant under
// one mock configuration, over the dialects whose tables make it: the
// kill matrix, gathered from the tables.
type Expectation struct {
	Break    Break
	Dialects []conv.Dialect
	Kill
}

// Expectations gathers the kill matrix from the dialects' tables: one
// expectation per variant and mock configuration, in table order.
func Expectations(dialects []Dialect) []Expectation {
	type key struct {
		name                       Break
		strictRoles, geminiCallIDs bool
	}
	var out []Expectation
	at := map[key]int{}
	for _, d := range dialects {
		for _, m := range d.Mistakes {
			for _, k := range append([]Kill{m.Kill}, m.Also...) {
				id := key{m.Name, k.StrictRoles, k.GeminiCallIDs}
				i, ok := at[id]
				if !ok {
					i = len(out)
					at[id] = i
					out = append(out, Expectation{Break: m.Name, Kill: Kill{StrictRoles: k.StrictRoles, GeminiCallIDs: k.GeminiCallIDs, Scenarios: k.Scenarios}})
				}
				e := &out[i]
				e.Dialects = append(e.Dialects, d.Name)
				e.Fails = union(e.Fails, k.Fails)
				e.MayFail = union(e.MayFail, k.MayFail)
			}
		}
	}
	return out
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// BreakInfo documents a break variant.
type BreakInfo struct {
	Name        Break
	Dialects    []conv.Dialect // where the mistake can be made
	Description string
}

// Breaks lists the break variants of the dialects' tables, sorted by name.
func Breaks(dialects []Dialect) []BreakInfo {
	var out []BreakInfo
	at := map[Break]int{}
	for _, d := range dialects {
		for _, m := range d.Mistakes {
			i, ok := at[m.Name]
			if !ok {
				i = len(out)
				at[m.Name] = i
				out = append(out, BreakInfo{Name: m.Name, Description: m.Description})
			}
			out[i].Dialects = append(out[i].Dialects, d.Name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupBreak validates a break name against the dialects' tables.
func LookupBreak(dialects []Dialect, name string) (BreakInfo, bool) {
	if name == "" {
		return BreakInfo{}, true
	}
	for _, b := range Breaks(dialects) {
		if string(b.Name) == name {
			return b, true
		}
	}
	return BreakInfo{}, false
}

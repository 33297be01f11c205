// Package model is the mock's deterministic model: given a neutral
// conversation it decides the next assistant turn, either from a scenario
// script or by the default rules (call a declared tool with arguments
// synthesized from its schema; answer results with a text quoting them).
package model

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Reply is the next assistant turn, in neutral form, plus how to deliver it.
type Reply struct {
	// Turn holds, in order: reasoning, text, calls, refusal parts. Call and
	// reasoning ids may be empty: the dialect mints them.
	Turn   conv.Turn
	Stream wire.StreamConfig
	// Source says where the turn came from ("default", "scenario X turn N").
	Source string
	// Fault is a scripted failure for this request.
	Fault *scenario.Fault
	// RawArguments overrides, per call (key: index in Calls()), the
	// argument text of dialects that carry arguments as a JSON string
	// (OpenAI Chat function.arguments, Responses function_call.arguments,
	// and the streamed argument deltas). The text may be broken JSON on
	// purpose. Dialects whose arguments are an object (Anthropic input,
	// Gemini args) ignore it and send Call.Arguments. Use ArgumentsJSON.
	RawArguments map[int]string `json:"raw_arguments,omitempty"`
	// Stop is why the turn ended: StopEnd (the model finished), StopTokens
	// (the request's token limit cut it) or StopSequence (a stop sequence
	// ended its text; StopText holds which).
	Stop     StopReason `json:"stop,omitempty"`
	StopText string     `json:"stop_text,omitempty"`
	// TrimmedCalls counts scripted calls dropped because the request
	// allowed one call a turn, or none.
	TrimmedCalls int `json:"trimmed_calls,omitempty"`
	// CutCall is the index (in Calls()) of a call the token limit cut in
	// the middle of its arguments, or -1. Its RawArguments hold the prefix
	// that was "generated"; object-argument dialects send what they can.
	CutCall int `json:"cut_call,omitempty"`
	// Notes say where the reply departs from what the request asked (a
	// schema bound above what synthesis builds); the journal keeps them.
	Notes []string `json:"notes,omitempty"`
}

// StopReason is why a reply ended.
type StopReason string

const (
	StopEnd      StopReason = ""
	StopTokens   StopReason = "max_tokens"
	StopSequence StopReason = "stop_sequence"
)

// ArgumentsJSON is the argument text to send for the i-th call: the
// scripted raw override if any, else the arguments encoded as JSON ("{}"
// for none).
func (r *Reply) ArgumentsJSON(i int) string {
	if raw, ok := r.RawArguments[i]; ok {
		return raw
	}
	// The i-th call, found in place: Calls() would build a slice of all.
	var call *conv.Call
	for n, k := 0, 0; k < len(r.Turn.Parts) && call == nil; k++ {
		if r.Turn.Parts[k].Kind == conv.KindCall {
			if n == i {
				call = r.Turn.Parts[k].Call
			}
			n++
		}
	}
	if call == nil || call.Arguments == nil {
		return "{}"
	}
	b, err := json.Marshal(call.Arguments)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// Calls returns the reply's calls.
func (r *Reply) Calls() []*conv.Call { return r.Turn.Calls() }

// Text returns the reply's text.
func (r *Reply) Text() string { return r.Turn.TextOf() }

// DefaultText is the answer when no tools are declared.
const DefaultText = "This is a deterministic reply from toolwire."

// Engine decides replies.
type Engine struct {
	Scenarios *scenario.Set
}

// IsReasoningModel reports whether an OpenAI model name is a reasoning
// model (o-series, gpt-5*): those emit a reasoning item before calls.
func IsReasoningModel(name string) bool {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "gpt-5") {
		return true
	}
	return len(n) >= 2 && n[0] == 'o' && n[1] >= '0' && n[1] <= '9'
}

// IsGemini3 reports whether a Gemini model name is of the Gemini 3 family,
// which enforces thought signatures and takes multimodal function responses.
func IsGemini3(name string) bool {
	n := strings.TrimPrefix(strings.ToLower(name), "models/")
	return strings.HasPrefix(n, "gemini-3")
}

// ErrUnknownScenario is returned for a scenario name not in the set.
type ErrUnknownScenario struct{ Name, Closest string }

func (e *ErrUnknownScenario) Error() string {
	if e.Closest != "" {
		return fmt.Sprintf("unknown toolwire scenario %q (closest: %q)", e.Name, e.Closest)
	}
	return fmt.Sprintf("unknown toolwire scenario %q", e.Name)
}

// Next decides the reply to c. scenarioName "" means the default model.
func (e *Engine) Next(c *conv.Conversation, scenarioName string) (*Reply, error) {
	return e.NextContext(context.Background(), c, scenarioName, nil)
}

// Memo keeps what argument synthesis made of a tool's schema for later
// requests that declare the same schema (a session's: an agent loop
// declares the same tools on every request, and parsing and walking a
// schema is a fifth of a first turn's work). Synthesis is deterministic,
// so a kept result is the one a fresh synthesis would make.
type Memo interface {
	Synthesized(schema json.RawMessage) (Synthesized, bool)
	KeepSynthesized(schema json.RawMessage, s Synthesized)
}

// Synthesized is what synthesis made of one schema. A kept one is read
// only: each reply gets a copy of Args.
type Synthesized struct {
	Args  map[string]any
	Notes []string
	Cost  int // the arguments' estimated size as JSON
}

// NextContext is Next for a request: argument synthesis stops, and ctx's
// error is returned, when ctx ends; memo (nil: none) keeps what synthesis
// made for the next request.
func (e *Engine) NextContext(ctx context.Context, c *conv.Conversation, scenarioName string, memo Memo) (*Reply, error) {
	var r *Reply
	var scripted any // the scenario turn's structured output
	where := ""      // the scenario turn, for notes
	syn := &synthesizer{ctx: ctx, memo: memo}
	if scenarioName != "" {
		sc, ok := e.Scenarios.Get(scenarioName)
		if !ok {
			return nil, &ErrUnknownScenario{Name: scenarioName, Closest: e.Scenarios.Closest(scenarioName)}
		}
		n := c.AssistantTurns()
		if n < len(sc.Turns) {
			r = fromScript(syn, c, sc, n)
			scripted, where = sc.Turns[n].Output, r.Source
		} else {
			r = e.defaultReply(syn, c)
			r.Source = fmt.Sprintf("scenario %s (script ended; default model)", sc.Name)
		}
	} else {
		r = e.defaultReply(syn, c)
	}
	trimCalls(c, r)
	shapeOutput(syn, c, r, scripted, where)
	if syn.err != nil {
		return nil, syn.err
	}
	r.Notes = append(r.Notes, syn.notes...)
	return limit(c, r), nil
}

// synthesizer runs argument synthesis for one reply, keeping its notes
// and the first error (the request's context ended).
type synthesizer struct {
	ctx   context.Context
	memo  Memo
	notes []string
	err   error
}

func (s *synthesizer) arguments(tool *conv.Tool) map[string]any {
	if s.err != nil {
		return map[string]any{}
	}
	var args map[string]any
	var notes []string
	if kept, ok := s.memoized(tool.Parameters); ok {
		args, notes = conv.CloneValue(kept.Args).(map[string]any), kept.Notes
	} else {
		var cost int
		var err error
		args, notes, cost, err = synthesize(s.ctx, tool.Parameters)
		if err != nil {
			s.err = err
			return map[string]any{}
		}
		if s.memo != nil {
			s.memo.KeepSynthesized(tool.Parameters, Synthesized{Args: conv.CloneValue(args).(map[string]any), Notes: notes, Cost: cost})
		}
	}
	for _, n := range notes {
		s.notes = append(s.notes, "tool "+strconv.Quote(tool.Name)+": "+n)
	}
	return args
}

func (s *synthesizer) memoized(schema json.RawMessage) (Synthesized, bool) {
	if s.memo == nil {
		return Synthesized{}, false
	}
	return s.memo.Synthesized(schema)
}

func fromScript(syn *synthesizer, c *conv.Conversation, sc *scenario.Scenario, n int) *Reply {
	t := sc.Turns[n]
	r := &Reply{Turn: conv.Turn{Role: conv.Assistant}, Source: fmt.Sprintf("scenario %s turn %d", sc.Name, n+1), Fault: t.Fault}
	if t.Stream != nil {
		r.Stream = wire.StreamConfig{
			FragmentSize:    t.Stream.FragmentSize,
			ChunkDelay:      time.Duration(t.Stream.ChunkDelayMS) * time.Millisecond,
			FirstTokenDelay: time.Duration(t.Stream.FirstTokenMS) * time.Millisecond,
		}
	}
	// Only the Responses API carries reasoning items, Bedrock reasoning
	// content blocks, and Anthropic redacted thinking (its readable
	// thinking the dialect writes itself); elsewhere a scripted reasoning
	// item would have nowhere to go.
	if rs := t.Reasoning; rs != nil && len(t.Calls) > 0 && (c.Dialect == conv.OpenAIResponses || c.Dialect == conv.Bedrock || rs.Redacted && c.Dialect == conv.Anthropic) {
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: rs.Summary, Redacted: rs.Redacted}})
	}
	if t.Text != "" {
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindText, Text: strings.ReplaceAll(t.Text, "{{results}}", QuoteResults(c))})
	}
	for i, call := range t.Calls {
		if c.Tool(call.Name) == nil {
			r.Notes = append(r.Notes, undeclaredCallWarning(c, sc, n, call))
		}
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: call.ID, Name: call.Name, Arguments: scriptedArguments(syn, c, call), ThoughtSignature: call.ThoughtSignature}})
		if call.RawArguments != "" {
			if r.RawArguments == nil {
				r.RawArguments = map[int]string{}
			}
			r.RawArguments[i] = call.RawArguments
		}
	}
	if t.Refusal != "" {
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindRefusal, Text: t.Refusal})
	}
	if len(r.Turn.Parts) == 0 {
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindText, Text: finalText(c)})
	}
	addReasoning(c, r)
	return r
}

// undeclaredCallWarning is the journal note for a scripted call to a tool
// the request did not declare. The turn is still played (that is how a
// scenario tests a driver's handling of unknown tools), so this is a
// warning on the journal entry, never a rule violation.
func undeclaredCallWarning(c *conv.Conversation, sc *scenario.Scenario, n int, call scenario.Call) string {
	declared := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		declared[i] = strconv.Quote(t.Name)
	}
	list := "none"
	if len(declared) > 0 {
		list = strings.Join(declared, ", ")
	}
	why := ""
	if call.Undeclared {
		why = "; the scenario marks it undeclared on purpose"
	}
	return fmt.Sprintf("warning: scenario %s turn %d calls tool %q, which the request did not declare (declared: %s)%s", sc.Name, n+1, call.Name, list, why)
}

// scriptedArguments: the scripted object; else the raw text when it is a
// JSON object; else arguments synthesized from the declared tool; else {}.
func scriptedArguments(syn *synthesizer, c *conv.Conversation, call scenario.Call) map[string]any {
	if call.Arguments != nil {
		// A copy: the scenario is shared by concurrent requests and an
		// encoder may normalise the map it is given.
		return deepCopy(call.Arguments).(map[string]any)
	}
	if call.RawArguments != "" {
		var m map[string]any
		if json.Unmarshal([]byte(call.RawArguments), &m) == nil && m != nil {
			return m
		}
	}
	if tool := c.Tool(call.Name); tool != nil {
		return syn.arguments(tool)
	}
	return map[string]any{}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func (e *Engine) defaultReply(syn *synthesizer, c *conv.Conversation) *Reply {
	r := &Reply{Turn: conv.Turn{Role: conv.Assistant}, Source: "default"}
	switch {
	// A forced choice forces a call on every turn, after tool results too,
	// as the real models do: a loop that never resets tool_choice does not
	// end here either.
	case len(c.Tools) > 0 && c.ToolChoice.Mode != conv.ToolChoiceNone && (!c.EndsInResults() || forcesCall(c.ToolChoice)):
		tool := pickTool(c)
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{Name: tool.Name, Arguments: syn.arguments(tool)}})
	case c.EndsInResults():
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindText, Text: finalText(c)})
	default:
		r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindText, Text: DefaultText})
	}
	addReasoning(c, r)
	return r
}

// forcesCall reports whether a tool choice makes every turn a call.
func forcesCall(tc conv.ToolChoice) bool {
	return tc.Mode == conv.ToolChoiceRequired || tc.Forced()
}

// addReasoning puts a reasoning item before the calls of a reasoning model
// on the Responses API (the only dialect that carries them), so pass-back
// can be tested.
func addReasoning(c *conv.Conversation, r *Reply) {
	if c.Dialect != conv.OpenAIResponses || !IsReasoningModel(c.Model) || len(r.Calls()) == 0 {
		return
	}
	for _, p := range r.Turn.Parts {
		if p.Kind == conv.KindReasoning {
			return
		}
	}
	r.Turn.Parts = append([]conv.Part{{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{}}}, r.Turn.Parts...)
}

// pickTool: the forced tool, else the first declared tool named in the last
// user text, else the first declared tool.
func pickTool(c *conv.Conversation) *conv.Tool {
	if c.ToolChoice.Forced() {
		if t := c.Tool(c.ToolChoice.Name); t != nil {
			return t
		}
	}
	text := strings.ToLower(c.LastUserText())
	for i := range c.Tools {
		if allowed(c, c.Tools[i].Name) && text != "" && strings.Contains(text, strings.ToLower(c.Tools[i].Name)) {
			return &c.Tools[i]
		}
	}
	for i := range c.Tools {
		if allowed(c, c.Tools[i].Name) {
			return &c.Tools[i]
		}
	}
	return &c.Tools[0]
}

func finalText(c *conv.Conversation) string {
	var b strings.Builder
	b.WriteString("Here is what the tools returned: ")
	writeQuotedResults(&b, c)
	return b.String()
}

// QuoteResults renders the results of the last turn, each quoted, so a
// test can see its tool's data came back intact.
func QuoteResults(c *conv.Conversation) string {
	var b strings.Builder
	writeQuotedResults(&b, c)
	return b.String()
}

// writeQuotedResults writes `[error ]NAME: "BODY"` per result, joined by
// "; " (the quoting is fmt's %q), into one buffer: it runs on every
// result turn.
func writeQuotedResults(b *strings.Builder, c *conv.Conversation) {
	t := c.LastTurn()
	if t == nil {
		return
	}
	n := 0
	var quoted []byte
	for i := range t.Parts {
		if t.Parts[i].Kind != conv.KindResult {
			continue
		}
		res := t.Parts[i].Result
		name := res.Name
		if name == "" {
			name = res.CallID
		}
		body := res.Text()
		if body == "" && res.Structured != nil {
			// On failure body stays "".
			if raw, err := json.Marshal(res.Structured); err == nil {
				body = string(raw)
			}
		}
		for _, ct := range res.Content {
			if ct.Type != conv.ContentText {
				body += fmt.Sprintf(" [%s %s]", ct.Type, firstNonEmpty(ct.DisplayName, ct.MIMEType))
			}
		}
		if n > 0 {
			b.WriteString("; ")
		}
		n++
		if res.IsError {
			b.WriteString("error ")
		}
		b.WriteString(name)
		b.WriteString(": ")
		quoted = strconv.AppendQuote(quoted[:0], body)
		b.Write(quoted)
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// obey makes a reply respect the request's controls, whichever way the
// reply was decided: tool_choice none drops the calls, one-call-a-turn
// keeps the first, a stop sequence ends the text, and the token limit cuts
// the turn where a real model would stop.
func obey(c *conv.Conversation, r *Reply) *Reply {
	trimCalls(c, r)
	return limit(c, r)
}

// allowed reports whether the request lets the model call name.
func allowed(c *conv.Conversation, name string) bool {
	return len(c.Controls.AllowedTools) == 0 || slices.Contains(c.Controls.AllowedTools, name)
}

// trimCalls drops the calls the request does not allow: all of them under
// tool_choice none, those to a tool outside the allowed names, all but the
// first when one call a turn is allowed.
func trimCalls(c *conv.Conversation, r *Reply) {
	r.CutCall = -1
	if len(c.Controls.AllowedTools) > 0 {
		if dropped := keepCalls(r, func(_ int, call *conv.Call) bool { return allowed(c, call.Name) }); dropped > 0 {
			r.TrimmedCalls += dropped
			r.Notes = append(r.Notes, fmt.Sprintf("allowed function names %v: %d call(s) of the reply to other tools not sent", c.Controls.AllowedTools, dropped))
			if len(r.Calls()) == 0 && r.Text() == "" {
				r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindText, Text: finalText(c)})
			}
		}
	}
	calls := 0
	for _, p := range r.Turn.Parts {
		if p.Kind == conv.KindCall {
			calls++
		}
	}
	switch {
	case calls > 0 && c.ToolChoice.Mode == conv.ToolChoiceNone:
		r.TrimmedCalls += calls
		r.Notes = append(r.Notes, fmt.Sprintf("tool_choice none: %d call(s) of the reply not sent", calls))
		keepCalls(r, func(int, *conv.Call) bool { return false })
		if r.Text() == "" {
			r.Turn.Parts = append(r.Turn.Parts, conv.Part{Kind: conv.KindText, Text: finalText(c)})
		}
	case calls > 1 && c.Controls.SerialCalls:
		r.TrimmedCalls += calls - 1
		r.Notes = append(r.Notes, fmt.Sprintf("one call a turn (parallel tool calls off): %d of %d calls not sent", calls-1, calls))
		keepCalls(r, func(i int, _ *conv.Call) bool { return i == 0 })
	}
}

// limit ends the reply where a stop sequence or the token limit would.
func limit(c *conv.Conversation, r *Reply) *Reply {
	stopAtSequence(c.Controls.StopSequences, r)
	if limit := c.Controls.MaxOutputTokens; limit > 0 {
		cutToTokens(r, limit)
	}
	return r
}

// keepCalls keeps the calls keep accepts (by their index among the calls)
// with their raw argument overrides, renumbered, and returns how many it
// dropped. A reasoning item with no call left after it has nothing to
// precede and goes too.
func keepCalls(r *Reply, keep func(i int, call *conv.Call) bool) (dropped int) {
	parts := r.Turn.Parts[:0:0]
	var raw map[int]string
	calls, kept := 0, 0
	for _, p := range r.Turn.Parts {
		if p.Kind == conv.KindCall {
			i := calls
			calls++
			if !keep(i, p.Call) {
				continue
			}
			if text, ok := r.RawArguments[i]; ok {
				if raw == nil {
					raw = map[int]string{}
				}
				raw[kept] = text
			}
			kept++
		}
		parts = append(parts, p)
	}
	if calls > 0 && kept == 0 {
		parts = slices.DeleteFunc(parts, func(p conv.Part) bool { return p.Kind == conv.KindReasoning })
	}
	r.Turn.Parts, r.RawArguments = parts, raw
	return calls - kept
}

// stopAtSequence ends the text at the first stop sequence it contains; the
// sequence itself is not sent, and nothing after it (calls included) is.
func stopAtSequence(seqs []string, r *Reply) {
	if len(seqs) == 0 {
		return
	}
	for i, p := range r.Turn.Parts {
		if p.Kind != conv.KindText {
			continue
		}
		at, which := -1, ""
		for _, s := range seqs {
			if s == "" {
				continue
			}
			if k := strings.Index(p.Text, s); k >= 0 && (at < 0 || k < at) {
				at, which = k, s
			}
		}
		if at < 0 {
			continue
		}
		r.Turn.Parts[i].Text = p.Text[:at]
		r.Turn.Parts = r.Turn.Parts[:i+1]
		r.Stop, r.StopText = StopSequence, which
		for k := range r.RawArguments {
			delete(r.RawArguments, k)
		}
		return
	}
}

// CharsPerToken is the mock's token estimate: a token is four characters,
// the rule of thumb the providers give for English text.
const CharsPerToken = 4

// Tokens estimates the tokens of a text.
func Tokens(s string) int64 { return (int64(len(s)) + CharsPerToken - 1) / CharsPerToken }

// cutToTokens cuts the turn where its output would pass limit tokens:
// text is cut at the limit; a call whose name and arguments do not fit is
// the last thing sent, cut inside its arguments (CutCall), and nothing
// follows it.
func cutToTokens(r *Reply, limit int64) {
	budget := limit * CharsPerToken
	parts := r.Turn.Parts
	callIndex := 0
	for i, p := range parts {
		switch p.Kind {
		case conv.KindText, conv.KindRefusal:
			if int64(len(p.Text)) <= budget {
				budget -= int64(len(p.Text))
				continue
			}
			r.Turn.Parts[i].Text = cutUTF8(p.Text, int(budget))
			r.Turn.Parts = parts[:i+1]
			r.Stop = StopTokens
			dropRawFrom(r, callIndex)
			return
		case conv.KindCall:
			args := r.ArgumentsJSON(callIndex)
			need := int64(len(p.Call.Name) + len(args))
			if need <= budget {
				budget -= need
				callIndex++
				continue
			}
			// The call is cut inside its arguments: what was generated is
			// a prefix of the JSON text.
			keep := max(budget-int64(len(p.Call.Name)), 0)
			if r.RawArguments == nil {
				r.RawArguments = map[int]string{}
			}
			r.RawArguments[callIndex] = cutUTF8(args, int(min(keep, int64(len(args)-1))))
			r.CutCall = callIndex
			r.Turn.Parts = parts[:i+1]
			r.Stop = StopTokens
			dropRawFrom(r, callIndex+1)
			return
		}
	}
}

func dropRawFrom(r *Reply, from int) {
	for k := range r.RawArguments {
		if k >= from {
			delete(r.RawArguments, k)
		}
	}
}

// cutUTF8 returns at most n bytes of s without splitting a character.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

package anthropic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Tool calls and their results: every tool_use of an assistant turn is
// answered, first thing, by the next user message, and every tool_result
// answers a call of the turn before.

const (
	RuleToolUseIDsUnique      = "anthropic.tool-use-ids-unique"
	RuleNoContentAfterToolUse = "anthropic.no-content-after-tool-use"
	RuleToolResultFirst       = "anthropic.tool-result-first"
	RuleToolUseAnswered       = "anthropic.tool-use-answered"
	RuleToolResultMatches     = "anthropic.tool-result-matches-tool-use"
)

// pairingTail ends the API's message for a call left without its result.
const pairingTail = "Each `tool_use` block must have a corresponding `tool_result` block in the next message."

func pairingRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: RuleToolUseIDsUnique, Level: rules.MUST, Family: "pairing",
		Summary: "tool_use ids must be unique within an assistant turn; an id may come back in a later turn once its call was answered.",
		Refs: []rules.Ref{
			{URL: "https://github.com/trycua/cua/issues/524", Quote: "\"messages.1.content.1: `tool_use` ids must be unique\": a duplicate within one message"},
			{URL: "https://github.com/anthropics/claude-code/issues/20901", Quote: "the same message, for a duplicate within one message"},
			{Quote: "reuse across turns accepted (every quoted report points inside one message)", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "two calls of one turn share an id (reused in the next turn instead: accepted)",
			Bad: body(msgs(askWeather,
				assistant(callA, `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Rome"}}`),
				user(resultA, resultA))),
			Good: body(msgs(askWeather, assistant(callA), user(resultA),
				assistant(`{"type":"text","text":"Now Rome."}`, `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Rome"}}`),
				user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.1: `tool_use` ids must be unique",
		}},
	}, checkUniqueIDs)

	s.Add(rules.Rule{ID: RuleNoContentAfterToolUse, Level: rules.MUST, Family: "ordering",
		Summary: "No text or other content may follow a tool_use block in the same assistant turn.",
		Refs:    []rules.Ref{{URL: refToolUse, Quote: "tool_use ends the assistant turn"}},
		Cases: []rules.Case{{
			Name:        "text after the tool_use in the assistant turn",
			Bad:         body(msgs(askWeather, assistant(callA, `{"type":"text","text":"Checking now."}`), user(resultA))),
			Good:        body(msgs(askWeather, assistant(`{"type":"text","text":"Checking now."}`, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. " + pairingTail,
		}},
	}, checkPairing(pairTextAfter))

	s.Add(rules.Rule{ID: RuleToolResultFirst, Level: rules.MUST, Family: "ordering",
		Summary: "In the user message answering tool calls, tool_result blocks must come first.",
		Refs:    []rules.Ref{{URL: refToolUse, Quote: `"the tool_result blocks must come FIRST in the content array"`}},
		Cases: []rules.Case{{
			Name:        "text before the tool_result in the answering message",
			Bad:         body(msgs(askWeather, assistant(callA), user(thanks, resultA))),
			Good:        body(msgs(askWeather, assistant(callA), user(resultA, thanks))),
			WantStatus:  400,
			WantMessage: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. " + pairingTail,
		}},
	}, checkPairing(pairNotFirst))

	s.Add(rules.Rule{ID: RuleToolUseAnswered, Level: rules.MUST, Family: "pairing",
		Summary: "Every tool_use must be answered by a tool_result in the next message.",
		Refs:    []rules.Ref{{URL: refToolUse, Quote: `"Tool result blocks must immediately follow their corresponding tool use blocks"`}},
		Cases: []rules.Case{{
			Name:        "one of two parallel calls left unanswered",
			Bad:         body(msgs(askWeather, assistant(callA, callB), user(resultA))),
			Good:        body(msgs(askWeather, assistant(callA, callB), user(resultA, resultB))),
			WantStatus:  400,
			WantMessage: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01B. " + pairingTail,
		}},
	}, checkPairing(pairMissing))

	s.Add(rules.Rule{ID: RuleToolResultMatches, Level: rules.MUST, Family: "pairing",
		Summary: "Every tool_result must answer a tool_use of the previous message.",
		Refs:    []rules.Ref{{URL: refToolUse, Quote: "tool_use_id matches a tool_use of the previous turn"}},
		Cases: []rules.Case{{
			Name:        "tool_result for an id the previous turn never issued",
			Bad:         body(msgs(askWeather, assistant(callA), user(resultA, resultB))),
			Good:        body(msgs(askWeather, assistant(callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01B. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
		}},
	}, checkResultMatches)
}

// checkUniqueIDs: the ids of one assistant turn must differ. An id may
// come back in a later turn once its first call was answered: the API
// reports duplicates at a block of one message (messages.1.content.1 in
// every report quoted in the rule's source), and agents that number their
// calls per turn reuse ids across turns.
func checkUniqueIDs(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	var stack [16]string
	for _, g := range r.Groups {
		if g.Role != "assistant" || !g.facts.repeatedCall {
			continue
		}
		seen := stack[:0] // the ids of the turn so far: a turn carries few
		for k := range g.Blocks {
			b := &g.Blocks[k]
			if b.Type != "tool_use" {
				continue
			}
			if slices.Contains(seen, b.ID) {
				p := blockPath(b)
				out = append(out, messageBreach(b.Msg, p, p+": `tool_use` ids must be unique"))
			}
			seen = append(seen, b.ID)
		}
	}
	return out
}

// pairReason says why tool_use ids lack results "immediately after"; the
// API answers all three with one message, the rules split them by cause.
type pairReason int

const (
	pairTextAfter pairReason = iota // content after a tool_use in its turn
	pairNotFirst                    // the result exists but something precedes it
	pairMissing                     // no result in the next message (or no next message of the user)
)

// pairing finds, for each assistant turn with tool_use blocks followed by
// another turn, the ids not answered by the leading tool_result blocks of
// that next turn. One finding per turn, with the dominant cause.
func pairing(r *Request) []pairFinding {
	var out []pairFinding
	for gi := range r.Groups {
		g := r.Groups[gi]
		if g.Role != "assistant" || gi+1 >= len(r.Groups) {
			continue // a final assistant turn is a prefill: nothing to answer yet
		}
		next := r.Groups[gi+1]
		// The facts tell a turn whose calls are all answered first thing
		// from its blocks: only a turn that is not is read block by block.
		if len(g.facts.calls) == 0 || !g.facts.textAfterCall && allIn(g.facts.calls, next.facts.results[:next.facts.lead]) {
			continue
		}
		if f, ok := pairingOf(g, next); ok {
			out = append(out, f)
		}
	}
	return out
}

// pairingOf is pairing's finding for assistant turn g and the turn after.
func pairingOf(g, next *Group) (pairFinding, bool) {
	// The results before the first other block of the next turn.
	lead := next.Blocks[:next.facts.lead]
	f := pairFinding{msg: next.First, reason: pairMissing}
	notFirst := false
	for k := range g.Blocks {
		b := &g.Blocks[k]
		if b.Type != "tool_use" {
			continue
		}
		textAfter := textAfterCall(g.Blocks, b.ID)
		if textAfter || !answers(lead, b.ID) {
			f.ids = append(f.ids, b.ID)
			notFirst = notFirst || answers(next.Blocks, b.ID)
			if textAfter {
				f.reason = pairTextAfter
			}
		}
	}
	if len(f.ids) == 0 {
		return f, false
	}
	if f.reason != pairTextAfter && notFirst {
		f.reason = pairNotFirst
	}
	return f, true
}

// textAfterCall reports whether a tool_use with id is followed in its
// turn by a block other than tool blocks.
func textAfterCall(blocks []Block, id string) bool {
	for k, b := range blocks {
		if b.Type != "tool_use" || b.ID != id {
			continue
		}
		for _, later := range blocks[k+1:] {
			if !isToolBlock(later.Type) {
				return true
			}
		}
	}
	return false
}

// answers reports whether blocks hold a tool_result for id.
func answers(blocks []Block, id string) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" && b.ToolUseID == id {
			return true
		}
	}
	return false
}

type pairFinding struct {
	msg    int
	ids    []string
	reason pairReason
}

// isToolBlock: blocks that may follow a tool_use in its turn (more calls,
// server tool calls and their results).
func isToolBlock(t string) bool {
	return t == "tool_use" || t == "server_tool_use" || t == "mcp_tool_use" || strings.HasSuffix(t, "_tool_result")
}

func checkPairing(reason pairReason) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, _ *rules.Env) []rules.Violation {
		var out []rules.Violation
		for _, f := range pairing(r) {
			if f.reason != reason {
				continue
			}
			p := fmt.Sprintf("messages.%d", f.msg)
			out = append(out, messageBreach(f.msg, p, fmt.Sprintf("%s: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", p, strings.Join(f.ids, ", "))))
		}
		return out
	}
}

// issues reports whether blocks hold a tool_use with id.
func issues(blocks []Block, id string) bool {
	for _, b := range blocks {
		if b.Type == "tool_use" && b.ID == id {
			return true
		}
	}
	return false
}

// checkResultMatches: a tool_result must reference a tool_use of the turn
// right before its own; the path is the first stray block, the message
// lists every stray id of the turn.
func checkResultMatches(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for gi, g := range r.Groups {
		if g.Role != "user" || len(g.facts.results) == 0 || gi > 0 && allIn(g.facts.results, r.Groups[gi-1].facts.calls) {
			continue // no result, or each answers a call of the turn before
		}
		var previous []Block
		if gi > 0 {
			previous = r.Groups[gi-1].Blocks
		}
		var first *Block
		var stray []string
		for k := range g.Blocks {
			b := &g.Blocks[k]
			if b.Type == "tool_result" && !issues(previous, b.ToolUseID) {
				if first == nil {
					first = b
				}
				stray = append(stray, b.ToolUseID)
			}
		}
		if first != nil {
			p := blockPath(first)
			out = append(out, messageBreach(first.Msg, p, fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", p, strings.Join(stray, ", "))))
		}
	}
	return out
}

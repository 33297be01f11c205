package anthropic

import (
	"encoding/json"
	"fmt"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// The conversation and the prompt size are made message by message, once
// per message (deriveParts). The functions below make them from the whole
// request, turn by turn, as they were made before; the tests check both
// ways agree.

// turnsFromGroups maps the merged turns to the conversation's turns.
func turnsFromGroups(r *Request) []conv.Turn {
	var turns []conv.Turn
	if len(r.Groups) > 0 {
		turns = make([]conv.Turn, 0, len(r.Groups))
	}
	for gi, g := range r.Groups {
		t := conv.Turn{Role: conv.Role(g.Role)}
		for bi, b := range g.Blocks {
			switch b.Type {
			case "text":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindText, Text: b.Text})
			case "thinking":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: b.Text, EncryptedContent: b.Signature}})
			case "redacted_thinking":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{EncryptedContent: b.Signature, Redacted: true}})
			case "image", "document":
				media := b.Media
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindMedia, Media: &media})
			case "tool_use":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: b.ID, Name: b.Name, Arguments: arguments(b.Input)}})
			case "tool_result":
				res := &conv.Result{CallID: b.ToolUseID, Name: groupCallName(r, gi, bi, b.ToolUseID), IsError: strings.TrimSpace(string(b.IsError)) == "true"}
				if b.ResultHasItems {
					for _, it := range b.ResultItems {
						res.Content = append(res.Content, it.Content)
					}
				} else if b.ResultText != "" {
					res.Content = []conv.Content{{Type: conv.ContentText, Text: b.ResultText}}
				}
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindResult, Result: res})
			}
		}
		turns = append(turns, t)
	}
	return turns
}

// groupCallName is the name of the last tool_use with id before block bi
// of group gi.
func groupCallName(r *Request, gi, bi int, id string) string {
	for ; gi >= 0; gi-- {
		blocks := r.Groups[gi].Blocks
		if bi < 0 || bi > len(blocks) {
			bi = len(blocks)
		}
		for k := bi - 1; k >= 0; k-- {
			if blocks[k].Type == "tool_use" && blocks[k].ID == id {
				return blocks[k].Name
			}
		}
		bi = -1
	}
	return ""
}

func promptSizeFromBlocks(r *Request) int {
	n := len(r.System)
	everyBlock(r, func(b *Block) { n += blockSize(b) })
	for i := range r.Tools {
		n += toolSize(&r.Tools[i])
	}
	return n
}

// derivedBodies are requests whose turns merge messages, skip system
// messages, or name results after calls in the same or an earlier turn.
var derivedBodies = []json.RawMessage{
	body(msgs(askWeather, assistant(callA), user(resultA))),
	body(msgs(askWeather, assistant(callA, callB), user(resultB, resultA, thanks))),
	body(msgs(askWeather, assistant(callA), assistant(callB), user(resultA), user(resultB))),
	body(msgs(askWeather, assistant(callA), `{"role":"system","content":"Be brief."}`, user(resultA))),
	body(msgs(askWeather, `{"role":"system","content":[`+callB+`]}`, assistant(callA), user(resultA, resultB))),
	body(msgs(askWeather, assistant(callA), user(resultA), assistant(`{"type":"tool_use","id":"toolu_01A","name":"get_time","input":{}}`), user(resultA))),
	body(msgs(user(resultA), assistant(callA), user(resultA))),
	body(msgs(user(callA, resultA), `{"role":"user","content":[]}`, `{"role":"assistant","content":""}`, user(resultA))),
	body(msgs(askWeather, assistant(`{"type":"thinking","thinking":"t","signature":"s"}`, `{"type":"redacted_thinking","data":"d"}`, callA),
		user(`{"type":"tool_result","tool_use_id":"toolu_01A","is_error":true,"content":[{"type":"text","text":"no"},{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}`,
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}`,
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"doc"}}`))),
	body(msgs(askWeather, assistant(`{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":null}`, `{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":"x"}`), user(resultA, resultB))),
}

func TestDerivedPartsMatchTurns(t *testing.T) {
	var bodies []json.RawMessage
	bodies = append(bodies, derivedBodies...)
	for _, c := range RuleCases() {
		bodies = append(bodies, c.Bad, c.Good)
	}
	checked := 0
	for _, b := range bodies {
		req, err := decodeRequest(b, false, false)
		if err != nil {
			continue
		}
		checked++
		if got, want := req.conversation().Turns, turnsFromGroups(req); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nturns from the messages' parts %+v\nfrom the merged turns %+v", b, got, want)
		}
		if got, want := req.promptSize(), promptSizeFromBlocks(req); got != want {
			t.Errorf("%s: prompt size %d from the messages, %d from the blocks", b, got, want)
		}
	}
	if checked < len(derivedBodies) {
		t.Fatalf("only %d of the bodies decode", checked)
	}
}

// The rules read facts made once per message (factsOf) and only then the
// blocks. The checks below read every block, as they did before; the
// test checks both give the same violations.

func everyBlock(r *Request, visit func(b *Block)) {
	for _, m := range r.Messages {
		for j := range m.Blocks {
			visit(&m.Blocks[j])
		}
	}
}

func blockUniqueIDs(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, g := range r.Groups {
		if g.Role != "assistant" {
			continue
		}
		var seen []string
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

func blockPairing(r *Request) []pairFinding {
	var out []pairFinding
	for gi, g := range r.Groups {
		if g.Role != "assistant" || gi+1 >= len(r.Groups) || !hasType(g.Blocks, "tool_use") {
			continue
		}
		next := r.Groups[gi+1]
		lead := len(next.Blocks)
		for k, b := range next.Blocks {
			if b.Type != "tool_result" {
				lead = k
				break
			}
		}
		f := pairFinding{msg: next.First, reason: pairMissing}
		notFirst := false
		for _, b := range g.Blocks {
			if b.Type != "tool_use" {
				continue
			}
			textAfter := textAfterCall(g.Blocks, b.ID)
			if textAfter || !answers(next.Blocks[:lead], b.ID) {
				f.ids = append(f.ids, b.ID)
				notFirst = notFirst || answers(next.Blocks, b.ID)
				if textAfter {
					f.reason = pairTextAfter
				}
			}
		}
		if len(f.ids) == 0 {
			continue
		}
		if f.reason != pairTextAfter && notFirst {
			f.reason = pairNotFirst
		}
		out = append(out, f)
	}
	return out
}

func blockResultMatches(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for gi, g := range r.Groups {
		if g.Role != "user" {
			continue
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

func blockNonEmptyText(r *Request, _ *rules.Env) []rules.Violation {
	for i, m := range r.Messages {
		if i == len(r.Messages)-1 && m.Role == "assistant" {
			continue
		}
		blank, substance := false, false
		for _, b := range m.Blocks {
			switch {
			case b.Type != "text":
				substance = true
			case b.Text == "":
				return []rules.Violation{messageBreach(i, "messages", "messages: text content blocks must be non-empty")}
			case strings.TrimSpace(b.Text) == "":
				blank = true
			default:
				substance = true
			}
		}
		if blank && !substance {
			return []rules.Violation{messageBreach(i, "messages", "messages: text content blocks must contain non-whitespace text")}
		}
	}
	return nil
}

// ungated is r with every message's and turn's facts saying its blocks
// may hold what each per-block check looks for (the ids are left as they
// are: the checks that compare them are replaced whole above).
func ungated(r *Request) *Request {
	u := *r
	u.Messages = make([]*Message, len(r.Messages))
	open := func(f facts) *facts {
		f.nonObjectInput, f.resultItems, f.isError, f.thinking, f.added = true, true, true, true, true
		return &f
	}
	for i, m := range r.Messages {
		c := *m
		c.facts = *open(m.facts)
		u.Messages[i] = &c
	}
	u.Groups = make([]*Group, len(r.Groups))
	for i, g := range r.Groups {
		c := *g
		c.facts = open(*g.facts)
		u.Groups[i] = &c
	}
	return &u
}

// blockRules are the dialect's rules with the checks that read facts
// replaced by checks that read every block.
func blockRules() []rules.Rule {
	pairingBy := func(reason pairReason) rules.CheckFunc {
		return func(req any, _ *rules.Env) []rules.Violation {
			var out []rules.Violation
			for _, f := range blockPairing(req.(*Request)) {
				if f.reason == reason {
					p := fmt.Sprintf("messages.%d", f.msg)
					out = append(out, messageBreach(f.msg, p, fmt.Sprintf("%s: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
						"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", p, strings.Join(f.ids, ", "))))
				}
			}
			return out
		}
	}
	typed := func(check func(*Request, *rules.Env) []rules.Violation) rules.CheckFunc {
		return func(req any, env *rules.Env) []rules.Violation { return check(req.(*Request), env) }
	}
	replaced := map[string]rules.CheckFunc{
		RuleToolUseIDsUnique:      typed(blockUniqueIDs),
		RuleNoContentAfterToolUse: pairingBy(pairTextAfter),
		RuleToolResultFirst:       pairingBy(pairNotFirst),
		RuleToolUseAnswered:       pairingBy(pairMissing),
		RuleToolResultMatches:     typed(blockResultMatches),
		RuleNonEmptyTextBlock:     typed(blockNonEmptyText),
	}
	out := slices.Clone(ruleSet.Rules())
	for i := range out {
		if check, ok := replaced[out[i].ID]; ok {
			out[i].Check = check
		} else if check := out[i].Check; check != nil {
			out[i].Check = func(req any, env *rules.Env) []rules.Violation { return check(ungated(req.(*Request)), env) }
		}
	}
	return out
}

// factsBodies add to derivedBodies requests that break the pairing and
// per-block rules in ways the facts must not hide.
var factsBodies = []json.RawMessage{
	body(msgs(askWeather, assistant(callA, thanks, callB), user(resultA, resultB))),
	body(msgs(askWeather, assistant(callA, callB), user(thanks, resultA, resultB))),
	body(msgs(askWeather, assistant(callA, callA), user(resultA))),
	body(msgs(askWeather, assistant(callA), assistant(callA), user(resultA))),
	body(msgs(askWeather, assistant(callA), user(resultA), user(resultB))),
	body(msgs(askWeather, assistant(callA), user(resultB, resultA))),
	body(msgs(askWeather, assistant(callA, `{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{}}`), user(resultA))),
	body(msgs(askWeather, assistant(callA), user(`{"type":"text","text":" "}`, resultA))),
	body(msgs(user(`{"type":"text","text":" "}`), assistant(`{"type":"text","text":""}`))),
	body(msgs(user(`{"type":"text","text":" "}`, `{"type":"text","text":""}`), assistant(`{"type":"text","text":"ok"}`), user(`{"type":"text","text":" "}`, thanks))),
	body(msgs(askWeather, assistant(callA), user(`{"type":"tool_result","tool_use_id":"toolu_01A","is_error":"yes","content":[{"type":"thinking","thinking":"x","signature":"y"},{"text":"no type"}]}`))),
	body(msgs(askWeather, `{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"get_time","input_schema":{"type":"object"}}}}]}`,
		user(`{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"get_date","input_schema":{"type":"object"}}}}`, thanks))),
	json.RawMessage(`{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":1024},` + caseTools + `,"messages":` +
		msgs(askWeather, assistant(`{"type":"thinking","thinking":"plan","signature":"forged"}`, callA), user(resultA)) + `}`),
}

func TestFactsMatchBlocks(t *testing.T) {
	var bodies []json.RawMessage
	bodies = append(append(bodies, derivedBodies...), factsBodies...)
	for _, c := range RuleCases() {
		bodies = append(bodies, c.Bad, c.Good)
	}
	oracle := blockRules()
	found := 0
	for _, b := range bodies {
		req, err := decodeRequest(b, false, false)
		if err != nil {
			continue
		}
		names := slices.Clone(req.ToolNames[:len(req.ToolNames)-addedNames(req)])
		everyBlock(req, func(b *Block) {
			if b.Added != nil && !slices.Contains(names, b.Name) {
				names = append(names, b.Name)
			}
		})
		if !slices.Equal(names, req.ToolNames) {
			t.Errorf("%s: tool names %q, from every block %q", b, req.ToolNames, names)
		}
		for _, strict := range []bool{false, true} {
			env := &rules.Env{Options: rules.DefaultOptions()}
			env.Options.StrictRoles = strict
			got, want := rules.Run(ruleSet.Rules(), req, env), rules.Run(oracle, req, env)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\nviolations from the facts %+v\nfrom the blocks %+v", b, got, want)
			}
			found += len(want)
		}
	}
	if found < len(factsBodies) {
		t.Fatalf("only %d violations found: the bodies test little", found)
	}
}

// addedNames is how many of r's tool names are not in its tools[].
func addedNames(r *Request) int {
	n := 0
	for _, name := range r.ToolNames {
		if !slices.ContainsFunc(r.Tools, func(t conv.Tool) bool { return t.Name == name }) {
			n++
		}
	}
	return n
}

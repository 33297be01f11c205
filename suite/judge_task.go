package suite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/suite/task"
)

// Checks against what the task asked the request to carry. A scripted
// turn makes the forced call whether or not tool_choice was sent, and the
// mock accepts a schema with or without strict, so only the task shows
// that a driver dropped them.

// checkToolChoice: the first request carries the tool_choice of the task.
// Later requests may reset a forced choice (a library's guard against
// calling the forced tool forever), so only the first one is judged.
func (j *judge) checkToolChoice() {
	want, ok := wantedToolChoice(j.t.ToolChoice)
	if !ok {
		return
	}
	first := j.firstRequest()
	if first == nil || first.Conversation == nil {
		return
	}
	got := first.Conversation.ToolChoice
	if got.Mode == want.Mode && (want.Mode != conv.ToolChoiceFunction || got.Name == want.Name) {
		return
	}
	j.add(checkToolChoiceSent, finding{level: rules.MUST,
		message:  fmt.Sprintf("the task forces tool_choice %q but the first request sent %s", j.t.ToolChoice, describeChoice(got)),
		expected: describeChoice(want), got: describeChoice(got), excerpt: clip(string(first.Request), 1500),
		fix: "pass the task's tool_choice through to the request (" + judgeOf(j.c.Dialect).ChoiceShape + ")"})
}

// wantedToolChoice maps the task's tool_choice onto the neutral form;
// ok is false when the task leaves it to the API's default.
func wantedToolChoice(tc string) (conv.ToolChoice, bool) {
	switch tc {
	case "", "auto":
		return conv.ToolChoice{}, false
	case "required":
		return conv.ToolChoice{Mode: conv.ToolChoiceRequired}, true
	case "none":
		return conv.ToolChoice{Mode: conv.ToolChoiceNone}, true
	}
	return conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: tc}, true
}

func describeChoice(c conv.ToolChoice) string {
	switch {
	case c.Mode == conv.ToolChoiceFunction:
		return "function " + c.Name
	case c.Mode == "":
		return "no tool_choice"
	}
	return string(c.Mode)
}

// checkStrict: every request declaring a tool the task marks strict sends
// it with strict: true. Read from the wire, where the flag lives per
// dialect (Gemini has none).
func (j *judge) checkStrict() {
	strictFlag := judgeOf(j.c.Dialect).Strict
	if strictFlag == nil {
		return
	}
	for _, tool := range j.t.Tools {
		if !tool.Strict {
			continue
		}
		for i := range j.entries {
			e := &j.entries[i]
			if e.Conversation == nil {
				continue
			}
			declared, strict := strictFlag(e.Request, tool.Name)
			if !declared || strict {
				continue
			}
			j.add(checkStrictSent, finding{level: rules.MUST,
				message:  fmt.Sprintf("the task declares %s strict but the request sends it without strict: true", tool.Name),
				expected: "strict: true", got: "strict absent or false", excerpt: clip(string(e.Request), 1500),
				fix: "pass the tool's strict flag through to its declaration"})
			break
		}
	}
}

// firstRequest is the first journaled request the mock could read.
func (j *judge) firstRequest() *session.Entry {
	for i := range j.entries {
		if j.entries[i].Conversation != nil {
			return &j.entries[i]
		}
	}
	return nil
}

// callKey identifies a call or result: its id, or for Gemini calls
// without ids, its function name.
func callKey(id, name string) string {
	if id != "" {
		return id
	}
	return "name:" + name
}

// checkOneResult: no call is answered twice. A second result for one call
// is ignored or rejected depending on the API, and says the driver's
// bookkeeping lost track of which calls it answered.
func (j *judge) checkOneResult(p *pair) {
	calls := map[string]int{}
	for _, c := range p.calls {
		calls[callKey(c.ID, c.Name)]++
	}
	got := map[string]int{}
	var order []string
	for _, r := range p.results {
		k := callKey(r.CallID, r.Name)
		if got[k] == 0 {
			order = append(order, k)
		}
		got[k]++
	}
	for _, k := range order {
		if calls[k] == 0 || got[k] <= calls[k] {
			continue
		}
		j.add(checkOneResult, finding{level: rules.MUST,
			message:  fmt.Sprintf("the model's turn %d: %d result(s) answer %d call(s) %s", p.index+1, got[k], calls[k], strings.TrimPrefix(k, "name:")),
			expected: "one result per call", got: fmt.Sprintf("%d results", got[k]), excerpt: clip(string(p.request), 1500),
			fix: "send exactly one result per call, once"})
	}
}

// checkLimitSent: the first request carries the task's max_output_tokens
// in the dialect's limit member. Later requests may raise it (a turn the
// limit cut is asked again with a larger one), so only the first is
// judged. Where the thinking budget counts against the limit (Anthropic's
// max_tokens), the limit is the budget plus the task's value.
func (j *judge) checkLimitSent() {
	if j.t.MaxOutputTokens <= 0 {
		return
	}
	first := j.firstRequest()
	if first == nil || first.Conversation == nil {
		return
	}
	want := int64(j.t.MaxOutputTokens)
	jd := judgeOf(j.c.Dialect)
	if jd.ThinkingInLimit && j.t.Thinking != nil {
		want += int64(j.t.Thinking.BudgetTokens)
	}
	got := first.Conversation.Controls.MaxOutputTokens
	if got == want {
		return
	}
	member := jd.LimitMember
	sent := "no output token limit"
	if got > 0 {
		sent = fmt.Sprintf("%s %d", member, got)
	}
	j.add(checkLimitSent, finding{level: rules.MUST,
		message:  fmt.Sprintf("the task sets max_output_tokens %d but the first request sent %s", j.t.MaxOutputTokens, sent),
		expected: fmt.Sprintf("%s %d", member, want), got: sent, excerpt: clip(string(first.Request), 1500),
		fix: "send the task's max_output_tokens as " + member + " on the first request"})
}

// checkThinkingSent: with the task's thinking on, every request carries
// the dialect's thinking configuration with the task's budget. The API
// answers thinking only when asked, so a driver that drops the setting
// meets no thinking block to pass back and would otherwise pass.
func (j *judge) checkThinkingSent() {
	jd := judgeOf(j.c.Dialect)
	if j.t.Thinking == nil || jd.Thinking == nil {
		return
	}
	want := int64(j.t.Thinking.BudgetTokens)
	for i := range j.entries {
		e := &j.entries[i]
		if e.Conversation == nil {
			continue
		}
		on, budget := jd.Thinking(e.Request)
		if on && budget == want {
			continue
		}
		got := "no thinking"
		if on {
			got = fmt.Sprintf("thinking with budget_tokens %d", budget)
		}
		j.add(checkThinkingSent, finding{level: rules.MUST,
			message:  fmt.Sprintf("the task turns thinking on with budget_tokens %d but request %d sent %s", want, i+1, got),
			expected: fmt.Sprintf("%s, N = %d", jd.ThinkingShape, want), got: got, excerpt: clip(string(e.Request), 1500),
			fix: "send the task's thinking on every request: " + jd.ThinkingShape})
		return
	}
}

// checkItemRefsSent: where the API continues by item reference
// (Responses), with the task's item_references on, every request that
// continues the conversation refers to the model's earlier output items
// by reference and replays none of them in full (the dialect's
// ItemReferences says which request fails). The API takes either, so only
// the task shows that a driver ignored the setting.
func (j *judge) checkItemRefsSent() {
	missing := judgeOf(j.c.Dialect).ItemReferences
	if !j.t.ItemReferences || missing == nil {
		return
	}
	for i := range j.entries {
		e := &j.entries[i]
		if e.Conversation == nil || assistantTurns(e.Conversation) == 0 {
			continue
		}
		got := missing(e.Request)
		if got == "" {
			continue
		}
		j.add(checkItemRefsSent, finding{level: rules.MUST,
			message:  fmt.Sprintf("the task asks to continue by item_reference, but request %d sent %s", i+1, got),
			expected: `every earlier output item as {"type": "item_reference", "id": …}, then the new function_call_output items`, got: got,
			excerpt: clip(string(e.Request), 1500),
			fix:     `replace each output item of the earlier responses by {"type": "item_reference", "id": <its id>} (leave store on)`})
		return
	}
}

// checkStructuredAnswer: with the task's output, the request that got the
// final answer carries a structured-output demand (read from the neutral
// conversation, whatever the dialect's member), and the final text the
// driver reports is JSON valid against the task's schema. The API answers
// a request without the demand in free text and the mock accepts it, so
// only the task shows that the driver dropped the schema; a demand with
// another schema (or JSON mode) shows as an answer the task's schema
// refuses.
func (j *judge) checkStructuredAnswer() {
	want := j.t.Output
	if want == nil || j.out.Err != nil || !j.declares(checkStructuredAns) {
		return // no structured answer asked, none reported (final-text says why), or not judged on this API
	}
	last := j.lastAccepted()
	if last < 0 {
		return
	}
	if reply := j.replyTo(last); reply != nil && len(reply.Calls()) > 0 {
		return // the loop stopped before the answer (final-text says so)
	}
	e := &j.entries[last]
	demand := e.Conversation.Controls.Output
	if demand == nil {
		j.add(checkStructuredAns, finding{level: rules.MUST,
			message:  fmt.Sprintf("the task asks for the final answer in schema %q, but the request that got it carried no output schema, so the model answered in free text", want.Name),
			expected: fmt.Sprintf("the request carries schema %q as its structured-output demand", want.Name), got: "no structured-output demand",
			excerpt: clip(string(e.Request), 1500)})
		return
	}
	text := strings.TrimSpace(j.out.Reply.FinalText)
	problem := (&scenario.Output{Name: want.Name, Schema: want.Schema}).Problem(text)
	if problem == "" {
		return
	}
	sent := "the request's demand: " + demand.Describe()
	fix := "report the final answer's text as the API sent it: the JSON value the schema asked for"
	if !sameSchema(demand, want) {
		sent += ", not the task's schema"
		fix = "send the task's output schema unchanged as the request's structured-output demand"
	}
	j.add(checkStructuredAns, finding{level: rules.MUST,
		message:  fmt.Sprintf("the final text is not an answer in the task's schema %q (%s; %s)", want.Name, problem, sent),
		expected: fmt.Sprintf("final_text: a JSON value valid against schema %q", want.Name), got: clip(text, 600),
		excerpt: clip(string(e.Request), 1500), fix: fix})
}

// declares reports whether the dialect judges a check it lists among its
// own (ExtraChecks).
func (j *judge) declares(check string) bool {
	return slices.ContainsFunc(judgeOf(j.c.Dialect).ExtraChecks, func(c dialect.JudgeCheck) bool { return c.Check == check })
}

// lastAccepted is the index of the last request the mock answered (-1:
// none): the one whose answer the driver reports.
func (j *judge) lastAccepted() int {
	last := -1
	for i := range j.entries {
		if e := &j.entries[i]; e.Status == 200 && e.Conversation != nil {
			last = i
		}
	}
	return last
}

// sameSchema reports whether the request's demand is the task's schema,
// as JSON values.
func sameSchema(o *conv.Output, want *task.Output) bool {
	if o.Kind != conv.OutputJSONSchema {
		return false
	}
	var got any
	if json.Unmarshal(o.Schema, &got) != nil {
		return false
	}
	return task.JSONEqual(got, want.Schema)
}

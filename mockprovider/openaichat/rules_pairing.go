package openaichat

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Calls and results pair up: every tool call is answered right after its
// assistant message, and every tool message answers one.

const toolCallsAnsweredPrefix = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "

var RuleToolCallsAnswered = set.Add(rules.Rule{
	ID: "openai-chat.tool-calls-answered", Level: rules.MUST, Family: familyPairing, Option: "--openai-tool-param",
	Summary: "Every tool_calls id of an assistant message is answered by a tool message directly after it.",
	Refs: []rules.Ref{
		{URL: "https://github.com/sdcb/chats/pull/132"},
		{URL: "https://github.com/router-for-me/CLIProxyAPI/issues/2798"},
	},
	Cases: []rules.Case{
		{Name: "call never answered",
			Bad:        body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), userMsg("And?")}),
			Good:       body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", "22"), userMsg("And?")}),
			WantStatus: 400, WantMessage: toolCallsAnsweredPrefix + "call_1"},
		{Name: "two parallel calls, one answered",
			Bad:        body(arr{userMsg("Paris and Rome?"), callMsg(call("call_a", "Paris"), call("call_b", "Rome")), toolMsg("call_a", "22")}),
			Good:       body(arr{userMsg("Paris and Rome?"), callMsg(call("call_a", "Paris"), call("call_b", "Rome")), toolMsg("call_a", "22"), toolMsg("call_b", "25")}),
			WantStatus: 400, WantMessage: toolCallsAnsweredPrefix + "call_b"},
	},
}, checkToolCallsAnswered)

// checkToolCallsAnswered: the tool messages directly after an assistant
// tool_calls message must answer each of its ids; only the unanswered ids
// are listed. param follows Options.OpenAIToolParam: "messages" (2024
// captures) or messages.[N].role with N the assistant message [I: which
// index the API means is not settled].
func checkToolCallsAnswered(r *Request, env *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i := r.checkFrom(); i < len(r.Messages); i++ {
		m := r.Messages[i]
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		unanswered := unansweredCalls(m.ToolCalls, r.Messages[i+1:][:toolRun(r.Messages[i+1:])])
		if len(unanswered) == 0 {
			continue
		}
		param := fmt.Sprintf("messages.[%d].role", i)
		if env != nil && env.Options.OpenAIToolParam == "messages" {
			param = "messages"
		}
		out = append(out, badRequest(atMeaning(i), fmt.Sprintf("messages[%d].tool_calls", i), param, "",
			toolCallsAnsweredPrefix+strings.Join(unanswered, ", ")))
	}
	return out
}

// unansweredCalls are the ids of the calls no message of run answers,
// each once, in call order.
func unansweredCalls(calls []ToolCall, run []*Message) []string {
	var out []string
	answered := make(map[string]bool, len(run))
	for _, m := range run {
		answered[m.ToolCallID] = true
	}
	seen := map[string]bool{}
	for _, tc := range calls {
		if !tc.HasID || answered[tc.ID] || seen[tc.ID] {
			continue
		}
		seen[tc.ID] = true
		out = append(out, tc.ID)
	}
	return out
}

// ToolMessageOrphanMessage keeps the API's spelling "preceeding".
const ToolMessageOrphanMessage = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."

var RuleToolMessageFollows = set.Add(rules.Rule{
	ID: "openai-chat.tool-message-follows-call", Level: rules.MUST, Family: familyPairing,
	Summary: "A tool message directly follows an assistant tool_calls message (or tool messages of its batch) and answers one of its ids.",
	Refs: []rules.Ref{
		{URL: "https://github.com/miurla/morphic/issues/136"},
		{URL: "https://github.com/sdcb/chats/pull/132"},
	},
	Cases: []rules.Case{
		{Name: "tool message after a trimmed history",
			Bad:        body(arr{obj{"role": "system", "content": "Be brief."}, toolMsg("call_1", "22"), userMsg("And?")}),
			Good:       body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("And?")}),
			WantStatus: 400, WantMessage: ToolMessageOrphanMessage},
		{Name: "tool message answering an unknown id",
			Bad:        body(arr{userMsg("Weather in Paris?"), callMsg(call("call_1", "Paris")), toolMsg("call_1", "22"), toolMsg("call_9", "23")}),
			Good:       body(loop()),
			WantStatus: 400, WantMessage: ToolMessageOrphanMessage},
	},
}, checkToolMessageFollows)

// checkToolMessageFollows: a tool message is valid only inside the run of
// tool messages right after an assistant tool_calls message, answering one
// of that message's ids. An id matching no call gets the same answer [I:
// https://platform.openai.com/docs/guides/function-calling names it the likely one].
func checkToolMessageFollows(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	var batch *Message // the open tool_calls message, nil when none
	var batchIDs map[string]bool
	for i := r.checkFrom(); i < len(r.Messages); i++ {
		m := r.Messages[i]
		switch m.Role {
		case "assistant":
			batch, batchIDs = nil, nil
			if len(m.ToolCalls) > 0 {
				batch = m
			}
		case "tool":
			if !m.HasToolCallID && batch != nil {
				continue // required-fields reports the missing id
			}
			if batch == nil || !batchAnswers(batch, &batchIDs, m.ToolCallID) {
				p := messagePath(i)
				out = append(out, badRequest(atMeaning(i), p, fmt.Sprintf("messages.[%d].role", i), "", ToolMessageOrphanMessage))
			}
		default:
			batch, batchIDs = nil, nil
		}
	}
	return out
}

// batchAnswers reports whether id is one of the batch's call ids. A batch
// holds a few calls, searched in place; a large one gets a set, built
// once into *ids, so a long run of tool messages stays linear.
func batchAnswers(batch *Message, ids *map[string]bool, id string) bool {
	const searchInPlace = 16
	if len(batch.ToolCalls) <= searchInPlace {
		for _, tc := range batch.ToolCalls {
			if tc.ID == id {
				return true
			}
		}
		return false
	}
	if *ids == nil {
		*ids = make(map[string]bool, len(batch.ToolCalls))
		for _, tc := range batch.ToolCalls {
			(*ids)[tc.ID] = true
		}
	}
	return (*ids)[id]
}

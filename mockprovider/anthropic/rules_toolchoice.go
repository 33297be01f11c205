package anthropic

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// tool_choice: it chooses among the tools the request declares.

const (
	RuleToolChoiceNeedsTools = "anthropic.tool-choice-needs-tools"
	RuleToolChoiceDeclared   = "anthropic.tool-choice-declared"
)

const refForcingToolUse = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use"

func toolChoiceRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: RuleToolChoiceNeedsTools, Level: rules.SHOULD, Family: "shapes",
		Summary: "tool_choice (auto, any or tool) should come with a tools list (journaled: no public source shows the API refusing one without).",
		Refs: []rules.Ref{
			{URL: refForcingToolUse, Quote: "tool_choice chooses among the tools provided"},
			{Quote: "a refusal not seen, text in the API's style", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "tool_choice any without tools",
			Bad:  json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"any"},"messages":` + msgs(askWeather) + `}`),
			Good: json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"any"},` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
		}},
	}, checkToolChoiceNeedsTools)

	s.Add(rules.Rule{ID: RuleToolChoiceDeclared, Level: rules.SHOULD, Family: "shapes",
		Summary: "A tool_choice of type tool should name a declared tool (journaled: no public source shows the API refusing an undeclared one).",
		Refs: []rules.Ref{
			{URL: refForcingToolUse, Quote: "tool: force one specific tool of the list"},
			{Quote: "a refusal not seen, text in the API's style", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "tool_choice forces an undeclared tool",
			Bad:  json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"tool","name":"get_forecast"},` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
			Good: json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"tool","name":"get_weather"},` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
		}},
	}, checkToolChoiceDeclared)
}

func checkToolChoiceNeedsTools(r *Request, _ *rules.Env) []rules.Violation {
	if r.ToolChoiceType == "" || r.ToolChoiceType == "none" || len(r.ToolNames) > 0 {
		return nil
	}
	return []rules.Violation{requestBreach("tool_choice", "tool_choice: tool_choice may only be specified while providing tools.")}
}

func checkToolChoiceDeclared(r *Request, _ *rules.Env) []rules.Violation {
	if r.ToolChoiceType != "tool" || len(r.ToolNames) == 0 || contains(r.ToolNames, r.ToolChoice.Name) {
		return nil
	}
	return []rules.Violation{requestBreach("tool_choice.tool.name", "tool_choice.tool.name: Tool '"+r.ToolChoice.Name+"' not found in the provided tools.")}
}

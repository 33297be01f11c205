package bedrock

import (
	"fmt"
	"regexp"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The tools: declared well, named well, present when the conversation
// uses them.

var (
	toolNamePattern  = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	toolUseIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_.:-]{1,64}$`)
)

var RuleToolNamePattern = "bedrock.tool-name-pattern"

func toolRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: RuleToolNamePattern, Level: rules.MUST, Family: "shapes",
		Summary: "A toolSpec's name matches [a-zA-Z0-9_-]+ (no spaces, dots or colons).",
		Refs: []rules.Ref{
			{URL: "https://github.com/aws-samples/remote-swe-agents/pull/457", Quote: "Value 'Complete Session' at 'toolConfig.tools.22.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"},
			{URL: "https://github.com/BerriAI/litellm/issues/19384", Quote: "N validation errors detected: Value '' at 'toolConfig.tools.1.member.toolSpec.name' … (positions from 1)"},
			{URL: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html", Quote: "name: Pattern [a-zA-Z0-9_-]+"},
		},
		Cases: []rules.Case{{Name: "a tool name with a space", Path: casePath,
			Bad:        body(`{"toolSpec":{"name":"get weather","inputSchema":{"json":{"type":"object"}}}}`, askWeather),
			Good:       body(`{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}`, askWeather),
			WantStatus: 400, WantMessage: "1 validation error detected: Value 'get weather' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		if r.ToolConfig == nil {
			return nil
		}
		var out []rules.Violation
		for i, t := range r.ToolConfig.Tools {
			if t.ToolSpec == nil || t.ToolSpec.Name == "" || toolNamePattern.MatchString(t.ToolSpec.Name) {
				continue
			}
			path := fmt.Sprintf("toolConfig.tools.%d.member.toolSpec.name", i+1)
			out = append(out, constraintBreach(0, path, fmt.Sprintf("Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+", t.ToolSpec.Name, path)))
		}
		return out
	})

	s.Add(rules.Rule{ID: "bedrock.tools-not-empty", Level: rules.MUST, Family: "shapes",
		Summary: "toolConfig.tools holds at least one tool: a toolConfig with no tools is refused, so leave toolConfig out instead.",
		Refs: []rules.Ref{
			{URL: "https://github.com/Portkey-AI/gateway/issues/1124", Quote: "1 validation error detected: Value at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1"},
			{URL: "https://github.com/genkit-ai/aws-bedrock-js-plugin/issues/43", Quote: "the same text from client-bedrock-runtime"},
		},
		Cases: []rules.Case{{Name: "an empty tools list", Path: casePath,
			Bad: []byte(`{"messages":[` + askWeather + `],"toolConfig":{"tools":[]}}`), Good: body("", askWeather),
			WantStatus: 400, WantMessage: "1 validation error detected: Value at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1"}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		if r.ToolConfig == nil || len(r.ToolConfig.Tools) > 0 {
			return nil
		}
		return []rules.Violation{constraintBreach(0, "toolConfig.tools", "Value at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1")}
	})

	s.Add(rules.Rule{ID: "bedrock.tool-use-id-pattern", Level: rules.SHOULD, Family: "pairing",
		Summary: "A toolUseId (in toolUse and toolResult) is 1–64 characters of [a-zA-Z0-9_.:-]: ids minted by other providers may not be.",
		Refs: []rules.Ref{
			{URL: "https://github.com/run-llama/llama_index/pull/22775", Quote: "Bedrock Converse requires every toolUseId to be a 1-64 character string matching [a-zA-Z0-9_.:-]+"},
			{URL: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html", Quote: "toolUseId: Minimum length of 1. Maximum length of 64."},
			{Quote: "the pattern differs between sources and no capture shows the refusal's text, so the breach is journaled, not refused", Inferred: true},
		},
		Cases: []rules.Case{{Name: "an id with a slash", Path: casePath,
			Bad:  body(weatherTool, askWeather, assistant(toolUse("call/1", "get_weather")), user(toolResult("call/1"))),
			Good: body(weatherTool, askWeather, assistant(toolUse("call_1", "get_weather")), user(toolResult("call_1")))}},
	}, eachMessage(slotToolUseID))

	s.Add(rules.Rule{ID: "bedrock.tool-names-unique", Level: rules.SHOULD, Family: "shapes",
		Summary: "Each tool is declared once: two toolSpecs with one name leave the model two tools it cannot tell apart.",
		Refs: []rules.Ref{
			{URL: refConverse, Quote: "toolConfig.tools: the tools the model may use"},
			{Quote: "no capture shows Bedrock's answer to a duplicate name, so the breach is journaled, not refused", Inferred: true},
		},
		Cases: []rules.Case{{Name: "a tool declared twice", Path: casePath,
			Bad: body(weatherTool+","+weatherTool, askWeather), Good: body(weatherTool, askWeather)}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		if r.ToolConfig == nil {
			return nil
		}
		seen := map[string]bool{}
		var out []rules.Violation
		for i, t := range r.ToolConfig.Tools {
			if t.ToolSpec == nil {
				continue
			}
			if seen[t.ToolSpec.Name] {
				out = append(out, rules.Violation{Order: rules.At(rules.PhaseRequest, 2), Path: fmt.Sprintf("toolConfig.tools.%d.toolSpec.name", i),
					Message: fmt.Sprintf("tool %q is declared more than once", t.ToolSpec.Name)})
			}
			seen[t.ToolSpec.Name] = true
		}
		return out
	})

	s.Add(rules.Rule{ID: "bedrock.tool-config-required", Level: rules.MUST, Family: "shapes",
		Summary: "A request whose messages hold toolUse or toolResult blocks declares toolConfig, even when no tool is offered this turn.",
		Refs: []rules.Ref{
			{URL: "https://github.com/vxcontrol/pentagi/pull/196", Quote: "ValidationException: The toolConfig field must be defined when using toolUse and toolResult content blocks."},
			{URL: "https://github.com/aws-samples/dify-aws-tool/issues/155", Quote: "the same text"},
		},
		Cases: []rules.Case{{Name: "history with calls, no toolConfig", Path: casePath,
			Bad:        body("", askWeather, callParis, resultParis),
			Good:       body(weatherTool, askWeather, callParis, resultParis),
			WantStatus: 400, WantMessage: "The toolConfig field must be defined when using toolUse and toolResult content blocks."}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		if r.ToolConfig != nil {
			return nil
		}
		for _, m := range r.Messages {
			for _, b := range m.Content {
				if b.ToolUse != nil || b.ToolResult != nil {
					return []rules.Violation{{Order: rules.At(rules.PhaseShape, 0), Path: "toolConfig",
						Message: "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
						Status:  400, ErrType: errValidation}}
				}
			}
		}
		return nil
	})
}

// toolUseIDBreaches checks the ids of message i's toolUse and toolResult
// blocks (tool-use-id-pattern).
func toolUseIDBreaches(ms []Message, i int) []rules.Violation {
	var out []rules.Violation
	for j, b := range ms[i].Content {
		id, member := "", ""
		switch {
		case b.ToolUse != nil:
			id, member = b.ToolUse.ToolUseID, "toolUse"
		case b.ToolResult != nil:
			id, member = b.ToolResult.ToolUseID, "toolResult"
		default:
			continue
		}
		if !toolUseIDPattern.MatchString(id) {
			path := fmt.Sprintf("messages.%d.content.%d.%s.toolUseId", i, j, member)
			out = append(out, rules.Violation{Order: rules.At(rules.PhaseRequest, 1), Path: path,
				Message: fmt.Sprintf("toolUseId %q at %s is not 1-64 characters of [a-zA-Z0-9_.:-]", id, path)})
		}
	}
	return out
}

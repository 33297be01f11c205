package anthropic

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Message content: every message has some, a tool_use's input is an
// object, a tool_result holds the blocks it may.

const (
	RuleNonEmptyContent       = "anthropic.non-empty-content"
	RuleToolUseInputObject    = "anthropic.tool-use-input-object"
	RuleToolResultContentType = "anthropic.tool-result-content-type"
	RuleToolResultIsErrorBool = "anthropic.tool-result-is-error-boolean"
)

func contentRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: RuleNonEmptyContent, Level: rules.MUST, Family: "shapes",
		Summary: "Every message needs non-empty content, except an optional final assistant message (a system message may carry only output_config).",
		Refs: []rules.Ref{
			{URL: refMessages},
			{URL: "https://github.com/anthropics/claude-code/issues/2663", Quote: `"messages.5: all messages must have non-empty content except for the optional final assistant message"`},
		},
		Cases: []rules.Case{{
			Name:        "empty assistant message in the middle",
			Bad:         body(msgs(askWeather, `{"role":"assistant","content":[]}`, `{"role":"user","content":"Hello?"}`)),
			Good:        body(msgs(askWeather, `{"role":"assistant","content":"Let me check."}`, `{"role":"user","content":"Hello?"}`)),
			WantStatus:  400,
			WantMessage: "messages.1: all messages must have non-empty content except for the optional final assistant message",
		}},
	}, checkNonEmpty)

	s.Add(rules.Rule{ID: RuleToolUseInputObject, Level: rules.MUST, Family: "shapes",
		Summary: "tool_use.input must be a JSON object.",
		Refs:    []rules.Ref{{URL: refMessages, Quote: "tool_use.input: object"}},
		Cases: []rules.Case{{
			Name: "tool_use.input sent as a JSON string",
			Bad: body(msgs(askWeather,
				assistant(`{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":"{\"location\":\"Paris\"}"}`),
				user(resultA))),
			Good:        body(msgs(askWeather, assistant(callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
		}},
	}, checkInputObject)

	s.Add(rules.Rule{ID: RuleToolResultContentType, Level: rules.MUST, Family: "results",
		Summary: "tool_result content blocks must be text, image, document, search_result, tool_reference or browser_state.",
		Refs:    []rules.Ref{{URL: refMessages, Quote: "tool_result content"}},
		Cases: []rules.Case{{
			Name: "tool_result content holds a thinking block",
			Bad: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":[{"type":"thinking","thinking":"hmm","signature":"x"}]}`))),
			Good: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":[{"type":"text","text":"18C, cloudy"}]}`))),
			WantStatus:  400,
			WantMessage: "messages.2.content.0.tool_result.content.0: Input tag 'thinking' found using 'type' does not match any of the expected tags: 'browser_state', 'document', 'image', 'search_result', 'text', 'tool_reference'",
		}},
	}, checkResultContentType)

	s.Add(rules.Rule{ID: RuleToolResultIsErrorBool, Level: rules.MUST, Family: "results",
		Summary: "tool_result.is_error must be a boolean.",
		Refs: []rules.Ref{
			{URL: refMessages, Quote: "tool_result.is_error: boolean"},
			{Quote: "message text (pydantic bool_type wording)", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "is_error sent as a string",
			Bad: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":"city not found","is_error":"true"}`))),
			Good: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":"city not found","is_error":true}`))),
			WantStatus:  400,
			WantMessage: "messages.2.content.0.tool_result.is_error: Input should be a valid boolean",
		}},
	}, checkIsErrorBool)
}

func checkNonEmpty(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, m := range r.Messages {
		if m.Empty && !(i == len(r.Messages)-1 && m.Role == "assistant") {
			p := fmt.Sprintf("messages.%d", i)
			out = append(out, messageBreach(i, p, p+": all messages must have non-empty content except for the optional final assistant message"))
		}
	}
	return out
}

func checkInputObject(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	r.blocksWhere(func(f *facts) bool { return f.nonObjectInput }, func(b *Block) {
		if b.Type == "tool_use" && !isObject(b.Input) {
			p := blockPath(b) + ".tool_use.input"
			out = append(out, messageBreach(b.Msg, p, p+": Input should be a valid dictionary"))
		}
	})
	return out
}

// resultTags are the block types a tool_result may contain (generated
// from the SDK's union).
var resultTags = wToolResultBlockContentUnionTags

func checkResultContentType(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	r.blocksWhere(func(f *facts) bool { return f.resultItems }, func(b *Block) {
		if b.Type != "tool_result" {
			return
		}
		for k, it := range b.ResultItems {
			p := fmt.Sprintf("%s.tool_result.content.%d", blockPath(b), k)
			switch {
			case !it.HasTag:
				out = append(out, messageBreach(b.Msg, p, p+": Unable to extract tag using discriminator 'type'"))
			case !contains(resultTags, it.Type):
				out = append(out, messageBreach(b.Msg, p, tagError(p, it.Type, resultTags)))
			}
		}
	})
	return out
}

func checkIsErrorBool(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	r.blocksWhere(func(f *facts) bool { return f.isError }, func(b *Block) {
		if b.Type != "tool_result" || b.IsError == nil {
			return
		}
		switch strings.TrimSpace(string(b.IsError)) {
		case "true", "false", "null":
			return
		}
		p := blockPath(b) + ".tool_result.is_error"
		out = append(out, messageBreach(b.Msg, p, p+": Input should be a valid boolean"))
	})
	return out
}

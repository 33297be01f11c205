package anthropic

import (
	"fmt"
	"slices"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The body and its members: JSON, known members of the right types, the
// required ones, tool declarations and text blocks with text.

const (
	RuleValidJSON         = "anthropic.valid-json"
	RuleKnownFields       = "anthropic.known-fields"
	RuleFieldTypes        = "anthropic.field-types"
	RuleRequiredFields    = "anthropic.required-fields"
	RuleToolNamePattern   = "anthropic.tool-name-pattern"
	RuleToolNamesUnique   = "anthropic.tool-names-unique"
	RuleNonEmptyTextBlock = "anthropic.non-empty-text-block"
)

func requestRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: RuleValidJSON, Level: rules.MUST, Family: "shapes",
		Summary: "The body must be JSON in UTF-8.",
		Refs: []rules.Ref{
			{URL: "https://platform.claude.com/docs/en/api/errors", Quote: "invalid_request_error"},
			{Quote: `the syntax error's text, in the form pasted from API answers ("The request body is not valid JSON: … line L column C (char O)")`, Inferred: true},
			{Quote: "the invalid UTF-8 wording (Python's codec message)", Inferred: true},
		},
		Cases: []rules.Case{{
			Name:        "body cut short",
			Bad:         []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"messages":[` + askWeather + `]`),
			Good:        body(msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "The request body is not valid JSON: Expecting value: line 1 column ",
		}},
	}, nil) // decoding answers it

	s.Add(rules.Rule{ID: RuleKnownFields, Level: rules.MUST, Family: "shapes",
		Summary: "Every member must be one the API defines: unknown members get pydantic's \"Extra inputs are not permitted\" at their dotted path (journaled instead under --lenient).",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/claude-code/issues/14135", Quote: `"context_management: Extra inputs are not permitted"`},
			{URL: "https://github.com/anthropics/claude-code/issues/4378", Quote: `"messages.65.content.1.tool_use.text: Extra inputs are not permitted"`},
		},
		Cases: []rules.Case{{
			Name:        "unknown member in a text block",
			Bad:         body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?","foo":1}]}`)),
			Good:        body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"}]}`)),
			WantStatus:  400,
			WantMessage: "messages.0.content.0.text.foo: Extra inputs are not permitted",
		}},
	}, checkKnownFields)

	s.Add(rules.Rule{ID: RuleFieldTypes, Level: rules.MUST, Family: "shapes",
		Summary: "Every member must have its type: wrong JSON kinds, fractions for integers, numbers out of range, unknown union tags and duplicate members are 400s at the dotted path.",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v1.84.0/message.go", Quote: "param types"},
			{URL: "https://github.com/themaximalist/llm.js/issues/30", Quote: "the body is validated by pydantic, whose errors the API passes through"},
			{URL: "https://github.com/jedisct1/openapi-mcp/issues/9", Quote: "the same: pydantic's errors passed through"},
			{Quote: `texts: pydantic wording ("Input should be a valid string", "Input tag 'x' found using 'type' does not match any of the expected tags")`, Inferred: true},
			{URL: "testdata/corpus/datadog-dd-trace-py.jsonl", Quote: `a message that is not an object, anthropic_completion_error.yaml#1: "messages.0: Input does not match the expected shape."`},
			{Quote: "duplicate members", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name:        "temperature sent as a string",
				Bad:         []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"temperature":"0.5","messages":` + msgs(askWeather) + `}`),
				Good:        []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"temperature":0.5,"messages":` + msgs(askWeather) + `}`),
				WantStatus:  400,
				WantMessage: "temperature: Input should be a valid number",
			},
			{
				Name:        "a developer role (a system message: accepted)",
				Bad:         body(msgs(`{"role":"developer","content":"Answer in Celsius."}`, askWeather)),
				Good:        body(msgs(`{"role":"system","content":"Answer in Celsius."}`, askWeather)),
				WantStatus:  400,
				WantMessage: "messages.0.role: Input should be 'user', 'assistant' or 'system'",
			},
		},
	}, nil) // decoding answers it

	s.Add(rules.Rule{ID: RuleRequiredFields, Level: rules.MUST, Family: "shapes",
		Summary: "model, max_tokens and a non-empty messages list are required, and so are each block's own required members.",
		Refs: []rules.Ref{
			{URL: "https://platform.claude.com/docs/en/api/messages", Quote: "required body parameters"},
			{Quote: `texts: pydantic "Field required" as seen in "max_tokens: Field required", and "at least one message is required" as matched by client code`, Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name:        "max_tokens missing",
				Bad:         []byte(`{"model":"claude-haiku-4-5",` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
				Good:        body(msgs(askWeather)),
				WantStatus:  400,
				WantMessage: "max_tokens: Field required",
			},
			{
				Name:        "empty messages list",
				Bad:         body(`[]`),
				Good:        body(msgs(askWeather)),
				WantStatus:  400,
				WantMessage: "messages: at least one message is required",
			},
		},
	}, checkRequired)

	s.Add(rules.Rule{ID: RuleToolNamePattern, Level: rules.MUST, Family: "shapes",
		Summary: "Tool names must match ^[a-zA-Z0-9_-]{1,128}$.",
		Refs: []rules.Ref{
			{URL: "https://github.com/jedisct1/openapi-mcp/issues/9", Quote: `"tools.73.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"`},
			{URL: "https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1345", Quote: "the same message"},
		},
		Cases: []rules.Case{{
			Name:        "tool name with a dot",
			Bad:         []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"weather.get","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			Good:        []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"weather_get","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			WantStatus:  400,
			WantMessage: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
		}},
	}, checkToolNamePattern)

	s.Add(rules.Rule{ID: RuleToolNamesUnique, Level: rules.MUST, Family: "shapes",
		Summary: "Tool names must be unique within a request.",
		Refs:    []rules.Ref{{URL: "https://github.com/anthropics/claude-code/issues/10687", Quote: `"tools: Tool names must be unique."`}},
		Cases: []rules.Case{{
			Name:        "the same tool declared twice",
			Bad:         []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"get_weather","input_schema":{"type":"object"}},{"name":"get_weather","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			Good:        []byte(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"get_weather","input_schema":{"type":"object"}},{"name":"get_forecast","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			WantStatus:  400,
			WantMessage: "tools: Tool names must be unique.",
		}},
	}, checkToolNamesUnique)

	s.Add(rules.Rule{ID: RuleNonEmptyTextBlock, Level: rules.MUST, Family: "shapes",
		Summary: "Text content blocks must be non-empty; a whitespace-only text block is refused when its message has nothing else (no other text, no tool_use or other block).",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/claude-code/issues/53473", Quote: `"messages: text content blocks must be non-empty"`},
			{URL: "https://github.com/anthropics/claude-code/issues/23440", Quote: `"messages: text content blocks must contain non-whitespace text"`},
			{URL: "https://github.com/LibreChat-AI/agents/pull/124", Quote: `API probes: [text:' '] alone refused, [text:' ', text:'real'] and assistant [text:'\n\n', tool_use] accepted, [text:''] refused anywhere`},
			{URL: "https://github.com/experientiallabs/experiential/pull/804", Quote: "the same probes"},
			{URL: "testdata/corpus/simonw-llm-anthropic.jsonl", Quote: "test_tools.yaml#2: assistant [text:' ', tool_use, tool_use] accepted"},
			{Quote: "whitespace beside other non-text blocks accepted", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name:        "an empty text block beside the question",
				Bad:         body(msgs(`{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"What's the weather in Paris?"}]}`)),
				Good:        body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"}]}`)),
				WantStatus:  400,
				WantMessage: "messages: text content blocks must be non-empty",
			},
			{
				// simonw/llm-anthropic records claude-haiku-4-5 accepting an
				// assistant turn of " " then tool_use blocks (test_tools.yaml#2).
				Name:        "a whitespace-only assistant turn (beside tool_use blocks: accepted)",
				Bad:         body(msgs(askWeather, assistant(`{"type":"text","text":" "}`), user(thanks))),
				Good:        body(msgs(askWeather, assistant(`{"type":"text","text":" "}`, callA, callB), user(resultA, resultB))),
				WantStatus:  400,
				WantMessage: "messages: text content blocks must contain non-whitespace text",
			},
			{
				Name:        "a whitespace-only question (beside real text: accepted)",
				Bad:         body(msgs(user(`{"type":"text","text":"\n"}`))),
				Good:        body(msgs(user(`{"type":"text","text":"\n"}`, `{"type":"text","text":"What's the weather in Paris?"}`))),
				WantStatus:  400,
				WantMessage: "messages: text content blocks must contain non-whitespace text",
			},
		},
	}, checkNonEmptyTextBlock)
}

// checkKnownFields journals, under --lenient, the members decoding would
// otherwise have answered (strict decoding never gets this far).
func checkKnownFields(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, p := range r.Unknown {
		out = append(out, requestBreach(p, p+": "+notAllowed))
	}
	return out
}

func checkRequired(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, f := range []struct {
		name string
		ok   bool
	}{{"model", r.HasModel}, {"max_tokens", r.HasMaxTokens || r.CountTokens}, {"messages", r.HasMessages}} {
		if !f.ok {
			out = append(out, requestBreach(f.name, f.name+": "+required))
		}
	}
	if r.HasMessages && len(r.Messages) == 0 {
		out = append(out, requestBreach("messages", "messages: at least one message is required"))
	}
	return out
}

// validToolName is ^[a-zA-Z0-9_-]{1,128}$ without regexp.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func checkToolNamePattern(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, t := range r.Tools {
		if !validToolName(t.Name) {
			p := fmt.Sprintf("tools.%d.custom.name", r.customIndex[i])
			out = append(out, requestBreach(p, p+": String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"))
		}
	}
	return out
}

func checkToolNamesUnique(r *Request, _ *rules.Env) []rules.Violation {
	for i, n := range r.ToolNames {
		if n != "" && slices.Contains(r.ToolNames[:i], n) {
			return []rules.Violation{requestBreach("tools", "tools: Tool names must be unique.")}
		}
	}
	return nil
}

// checkNonEmptyTextBlock: an empty text block is refused wherever it sits
// except in a final assistant message (a prefill); a whitespace-only text
// block only when nothing else in its message has content (no other text,
// no tool_use, no tool_result…): the API accepts " " beside real text or
// beside tool_use blocks.
func checkNonEmptyTextBlock(r *Request, _ *rules.Env) []rules.Violation {
	for i, m := range r.Messages {
		if i == len(r.Messages)-1 && m.Role == "assistant" {
			continue
		}
		switch m.facts.text {
		case textEmpty:
			return []rules.Violation{messageBreach(i, "messages", "messages: text content blocks must be non-empty")}
		case textBlank:
			return []rules.Violation{messageBreach(i, "messages", "messages: text content blocks must contain non-whitespace text")}
		}
	}
	return nil
}

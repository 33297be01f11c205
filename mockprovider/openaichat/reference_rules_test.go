package openaichat

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The checks as they were before paths were built lazily and the
// openaiwire checks were given only the declarations they can flag; the
// reference catalog swaps them in for FuzzRulesMatchReference.

// refCatalog is catalog() with the reference checks.
func refCatalog() []rules.Rule {
	ref := map[string]rules.CheckFunc{
		RuleRequiredFields: refCheckRequired, RuleToolNamePattern: refCheckNames, RuleToolSchemaValid: refCheckSchemas,
		RuleStrictSchema: refCheckStrict, RuleToolMessageFollows: refCheckToolMessageFollows,
	}
	list := catalog()
	for i := range list {
		if c, ok := ref[list[i].ID]; ok {
			list[i].Check = c
		}
	}
	return list
}

// FuzzRulesMatchReference: on every body that decodes, the catalog gives
// the same violations, in the same order, as the reference catalog, under
// both settings of the tool-param option.
func FuzzRulesMatchReference(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, b := range benchBodies(f) {
		f.Add(b)
	}
	f.Add([]byte(manyCallsBody(20)))
	f.Add([]byte(`{"tools":[{"type":"function","function":{"name":"ok"}},{"type":"function","function":{"name":"b d","parameters":{"type":"array"},"strict":true}},{"type":"function","function":{"name":"` + strings.Repeat("n", 65) + `","parameters":{"type":"object","properties":{"a":{"type":"string"}}},"strict":true}},{"type":"function","function":{"name":"é","parameters":[1]}},{"type":"function","function":{"name":""}},{"type":"function","function":{}},{"type":"custom"},{}]}`))
	f.Add([]byte(`{"messages":[{"role":"tool","tool_call_id":"x","content":"a"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"type":"function"},{"id":"b","function":{}},{"id":"c","type":"function"},{"id":"d","type":"function","function":{}},{"id":"e","type":"function","function":{"name":"f"}}]},{"role":"tool","content":"x"},{"role":"tool","tool_call_id":"","content":"x"},{"role":"tool","tool_call_id":"q","content":"x"},{"role":"user"},{"content":[{"text":"no type"}]},{"role":"tool"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRequest(body)
		if err != nil {
			return
		}
		toConversation(req)
		for _, param := range []string{"", "messages"} {
			env := &rules.Env{Options: rules.DefaultOptions()}
			env.Options.OpenAIToolParam = param
			got, want := rules.Run(catalog(), req, env), rules.Run(refCatalog(), req, env)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rules on %q (param %q)\n got %+v\nwant %+v", body, param, got, want)
			}
		}
	})
}

// FuzzValidName holds validName to the pattern and length openaiwire
// checks names against.
func FuzzValidName(f *testing.F) {
	for _, s := range []string{"", "get_weather", "a-b_C9", "a b", "é", "x\n", strings.Repeat("a", 64), strings.Repeat("a", 65), "a$", "\xff"} {
		f.Add(s)
	}
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validName(name), pattern.MatchString(name) && len(name) <= 64; got != want {
			t.Fatalf("validName(%q) = %v, want %v", name, got, want)
		}
	})
}

func refCheckRequired(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	if !r.HasMessages {
		out = append(out, missing(requestLevel, "messages"))
	} else if len(r.Messages) == 0 {
		// The API's min-length wording, captured for tool_calls [I: not
		// captured for messages itself].
		out = append(out, emptyArray(requestLevel, "messages"))
	}
	for _, m := range r.Messages {
		p := fmt.Sprintf("messages[%d]", m.Index)
		if !m.HasRole {
			out = append(out, missing(m.Index, p+".role"))
			continue
		}
		if contentRequired[m.Role] && !m.HasContent {
			out = append(out, missing(m.Index, p+".content"))
		}
		for j, part := range m.Parts {
			if !part.HasType {
				out = append(out, missing(m.Index, fmt.Sprintf("%s.content[%d].type", p, j)))
			}
		}
		if m.Role == "tool" && !m.HasToolCallID {
			out = append(out, missing(m.Index, p+".tool_call_id"))
		}
		if m.Role != "assistant" {
			continue
		}
		for j, tc := range m.ToolCalls {
			cp := fmt.Sprintf("%s.tool_calls[%d]", p, j)
			switch {
			case !tc.HasID:
				out = append(out, missing(m.Index, cp+".id"))
			case !tc.HasType:
				out = append(out, missing(m.Index, cp+".type"))
			case tc.Type != "function":
				// custom tool calls carry "custom", not "function"
			case !tc.HasFunction:
				out = append(out, missing(m.Index, cp+".function"))
			case !tc.HasName:
				out = append(out, missing(m.Index, cp+".function.name"))
			case !tc.HasArguments:
				out = append(out, missing(m.Index, cp+".function.arguments"))
			}
		}
	}
	base := len(r.Messages)
	for _, t := range r.Tools {
		tp := fmt.Sprintf("tools[%d]", t.Index)
		switch {
		case !t.HasType:
			out = append(out, missing(base+t.Index, tp+".type"))
		case t.Type != "function":
		case !t.HasFunction:
			out = append(out, missing(base+t.Index, tp+".function"))
		case !t.HasName:
			out = append(out, missing(base+t.Index, tp+".function.name"))
		}
	}
	return out
}

// refDecls lists the declared functions for the shared openaiwire checks;
// tools without a name are left to the required-fields rule.
func refDecls(r *Request, order int) []openaiwire.ToolDecl {
	var out []openaiwire.ToolDecl
	for _, t := range r.Tools {
		if t.Type != "function" || !t.HasName {
			continue
		}
		out = append(out, openaiwire.ToolDecl{Name: t.Name, Parameters: t.Parameters, Strict: t.Strict,
			Path: fmt.Sprintf("tools[%d].function", t.Index), Order: order + t.Index})
	}
	return out
}

func refCheckNames(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil {
		return openaiwire.CheckNames(refDecls(r, len(r.Messages)))
	}
	return nil
}

func refCheckSchemas(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil {
		return openaiwire.CheckSchemas(refDecls(r, semanticTier))
	}
	return nil
}

func refCheckStrict(req any, _ *rules.Env) []rules.Violation {
	if r := asRequest(req); r != nil {
		return openaiwire.CheckStrict(refDecls(r, semanticTier))
	}
	return nil
}

// refCheckToolMessageFollows: a tool message is valid only inside the run of
// tool messages right after an assistant tool_calls message, answering one
// of that message's ids. An id matching no call gets the same answer [I:
// provider-rules.md §1.3 rule 2 names it the likely one].
func refCheckToolMessageFollows(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	var batch map[string]bool // ids of the open tool_calls message, nil when none
	for i, m := range r.Messages {
		switch m.Role {
		case "assistant":
			batch = nil
			if len(m.ToolCalls) > 0 {
				batch = map[string]bool{}
				for _, tc := range m.ToolCalls {
					batch[tc.ID] = true
				}
			}
		case "tool":
			if !m.HasToolCallID && batch != nil {
				continue // required-fields reports the missing id
			}
			if batch == nil || !batch[m.ToolCallID] {
				p := fmt.Sprintf("messages[%d]", i)
				out = append(out, badRequest(semanticTier+i, p, fmt.Sprintf("messages.[%d].role", i), "", ToolMessageOrphanMessage))
			}
		default:
			batch = nil
		}
	}
	return out
}

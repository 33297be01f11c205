package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The checks below are the rules as they were before they were made
// cheaper (no regexp, no slices per turn pair, paths formatted only for a
// violation); FuzzRulesMatchOriginal holds the current ones to them.

var functionNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:\-]{0,63}$`)

func originalStructValueError(raw json.RawMessage, parent, field string) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] == '{' || bytes.Equal(t, []byte("null")) {
		return ""
	}
	if t[0] == '[' {
		return fmt.Sprintf("%s Unknown name %q at '%s': Proto field is not repeating, cannot start list.", invalidJSONPrefix, field, parent)
	}
	v := string(t)
	if len(v) > 200 {
		v = v[:200] + "..."
	}
	return fmt.Sprintf("%s Invalid value at '%s.%s' (type.googleapis.com/google.protobuf.Struct), %s", invalidJSONPrefix, parent, field, v)
}

func originalCheckResponseObject(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		for j, p := range c.Parts {
			if p.FunctionResponse == nil {
				continue
			}
			parent := fmt.Sprintf("contents[%d].parts[%d].function_response", i, j)
			if msg := originalStructValueError(p.FunctionResponse.Response, parent, "response"); msg != "" {
				out = append(out, violation(orderParse, fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), msg))
			}
		}
	}
	return out
}

func originalCheckArgsObject(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			parent := fmt.Sprintf("contents[%d].parts[%d].function_call", i, j)
			if msg := originalStructValueError(p.FunctionCall.Args, parent, "args"); msg != "" {
				out = append(out, violation(orderParse, fmt.Sprintf("contents[%d].parts[%d].functionCall.args", i, j), msg))
			}
		}
	}
	return out
}

func originalCheckFunctionNames(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, t := range r.Tools {
		for j, fd := range t.FunctionDeclarations {
			if !functionNamePattern.MatchString(fd.Name) {
				out = append(out, violation(orderProto, fmt.Sprintf("tools[%d].functionDeclarations[%d].name", i, j), fmt.Sprintf(msgFunctionNameFormat, i, j)))
			}
		}
	}
	return out
}

func originalAnsweredPairs(r *Request, visit func(i int, calls, responses []originalIndexed)) {
	for i := 1; i < len(r.Contents); i++ {
		c, prev := r.Contents[i], r.Contents[i-1]
		if !isResponseTurn(c) || isMixed(c) || !isCallTurn(prev) || isMixed(prev) {
			continue
		}
		// Sized by a first count: several rules walk the pairs on every
		// request, and growing the slices part by part dominated their cost.
		var calls, responses []originalIndexed
		if n := originalCountMatching(prev.Parts, func(p *Part) bool { return p.FunctionCall != nil }); n > 0 {
			calls = make([]originalIndexed, 0, n)
		}
		for j, p := range prev.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, originalIndexed{j, p})
			}
		}
		if n := originalCountMatching(c.Parts, func(p *Part) bool { return p.FunctionResponse != nil }); n > 0 {
			responses = make([]originalIndexed, 0, n)
		}
		for j, p := range c.Parts {
			if p.FunctionResponse != nil {
				responses = append(responses, originalIndexed{j, p})
			}
		}
		visit(i, calls, responses)
	}
}

func originalCountMatching(parts []Part, match func(*Part) bool) int {
	n := 0
	for i := range parts {
		if match(&parts[i]) {
			n++
		}
	}
	return n
}

type originalIndexed struct {
	idx  int
	part Part
}

func originalCheckResponseCount(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	originalAnsweredPairs(r, func(i int, calls, responses []originalIndexed) {
		if len(calls) != len(responses) {
			out = append(out, violation(i, fmt.Sprintf("contents[%d]", i), MsgResponseCount))
		}
	})
	return out
}

func originalCheckResponseOrder(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	originalAnsweredPairs(r, func(i int, calls, responses []originalIndexed) {
		if len(calls) != len(responses) {
			return
		}
		for k := range calls {
			if calls[k].part.FunctionCall.Name != responses[k].part.FunctionResponse.Name {
				out = append(out, violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.name", i, responses[k].idx), msgResponseOrder))
				return
			}
		}
	})
	return out
}

func originalCheckResponseID(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	originalAnsweredPairs(r, func(i int, calls, responses []originalIndexed) {
		if len(calls) != len(responses) {
			return
		}
		for k := range calls {
			fc, fr := calls[k].part.FunctionCall, responses[k].part.FunctionResponse
			if fc.ID != "" && fr.ID != fc.ID {
				out = append(out, violation(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", i, responses[k].idx),
					fmt.Sprintf(msgResponseIDFormat, fc.Name, fc.ID, fr.ID)))
			}
		}
	})
	return out
}

// originalChecks maps the rewritten rules to their originals.
var originalChecks = map[string]func(*Request, *rules.Env) []rules.Violation{
	"gemini.function-response-object":  originalCheckResponseObject,
	"gemini.function-call-args-object": originalCheckArgsObject,
	"gemini.function-name-valid":       originalCheckFunctionNames,
	"gemini.function-response-count":   originalCheckResponseCount,
	"gemini.function-response-order":   originalCheckResponseOrder,
	"gemini.function-response-id":      originalCheckResponseID,
}

var ruleModels = []string{"gemini-2.5-flash", "gemini-3-pro-preview"}

// FuzzRulesMatchOriginal runs every rewritten check and its original on
// decoded bodies, for each model, and compares the violations.
func FuzzRulesMatchOriginal(f *testing.F) {
	fuzzBodies(f)
	f.Add([]byte(`{"tools":[{"functionDeclarations":[{"name":"a.b:c-d_9"},{"name":"9x"},{"name":""},{"name":"_"},{"name":"a b"},{"name":"é"}]}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"a","id":"1"}},{"text":"x"},{"functionCall":{"name":"b","id":"2"}}]},{"parts":[{"text":"y"},{"functionResponse":{"name":"b","id":"2"}},{"functionResponse":{"name":"a"}}]}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"a","args":[1]}}]},{"parts":[{"functionResponse":{"name":"a","response":"s"}},{"functionResponse":{"name":"a","response":7}}]}]}`))
	checks := map[string]rules.CheckFunc{}
	for _, r := range ruleSet() {
		if _, ok := originalChecks[r.ID]; ok {
			checks[r.ID] = r.Check
		}
	}
	if len(checks) != len(originalChecks) {
		f.Fatalf("catalog has %d of the %d rewritten rules", len(checks), len(originalChecks))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, aerr := decodeBody(body)
		if aerr != nil {
			return
		}
		for _, m := range ruleModels {
			req.Model = m
			env := &rules.Env{Options: rules.DefaultOptions(), Model: m}
			for id, check := range checks {
				got := check(req, env)
				want := originalChecks[id](req, env)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s on %s, %q:\n got %+v\nwant %+v", id, m, body, got, want)
				}
			}
		}
	})
}

// FuzzFunctionName holds validFunctionName to the documented pattern.
func FuzzFunctionName(f *testing.F) {
	for _, s := range []string{"", "a", "_", "9", "get_weather", "a.b:c-d", "a b", "é", "x\n", strings64("a", 64), strings64("a", 65), "-a", ".a", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validFunctionName(name), functionNamePattern.MatchString(name); got != want {
			t.Fatalf("validFunctionName(%q) = %v, pattern says %v", name, got, want)
		}
	})
}

func strings64(s string, n int) string { return string(bytes.Repeat([]byte(s), n)) }

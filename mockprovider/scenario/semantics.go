package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/internal/localschema"
)

// checkSemantics rejects what the schema cannot express: duplicate tool
// names, tool parameters that are not a JSON Schema, a tool_choice naming
// no declared tool, calls to undeclared tools, scripted arguments that
// break (or, when marked invalid, keep to) their tool's schema, a
// redacted reasoning that also gives a summary, an output schema that is
// not a JSON Schema, and scripted outputs that break it or sit on a turn
// with calls.
func checkSemantics(file string, doc *yamlDoc, sc *Scenario) error {
	if probs := semanticProblems(file, doc, sc); len(probs) > 0 {
		return probs[0]
	}
	return nil
}

// semanticProblems is every problem checkSemantics knows of, in file order.
func semanticProblems(file string, doc *yamlDoc, sc *Scenario) []*LoadError {
	var out []*LoadError
	at := func(ptr, msg string) {
		out = append(out, &LoadError{File: file, Line: doc.line(ptr), Path: doc.dotted(ptr), Message: msg})
	}
	params := map[string]*jsonschema.Schema{}
	seen := map[string]int{}
	for i, t := range sc.Tools {
		ptr := pointer("tools", strconv.Itoa(i), "name")
		if first, dup := seen[t.Name]; dup {
			at(ptr, fmt.Sprintf("tool %q declared twice (first at tools[%d])", t.Name, first))
			continue
		}
		seen[t.Name] = i
		if t.Parameters == nil {
			continue
		}
		s, err := CompileParameters(t.Parameters)
		if err != nil {
			at(pointer("tools", strconv.Itoa(i), "parameters"), "not a valid JSON Schema: "+err.Error())
			continue
		}
		params[t.Name] = s
	}
	declared := strings.Join(toolNames(sc), ", ")
	output := outputSchema(sc, at)

	switch sc.ToolChoice {
	case "", "auto", "none", "required":
	default:
		if sc.Tool(sc.ToolChoice) == nil {
			at("/tool_choice", fmt.Sprintf("tool_choice names no declared tool %q (declared: %s); use auto, none, required or a tool name", sc.ToolChoice, declared))
		}
	}

	for ti, turn := range sc.Turns {
		if r := turn.Reasoning; r != nil && r.Redacted && r.Summary != "" {
			at(pointer("turns", strconv.Itoa(ti), "reasoning", "summary"), "redacted reasoning has no readable summary; drop summary or redacted: true")
		}
		if turn.Output != nil {
			outPtr := pointer("turns", strconv.Itoa(ti), "output")
			switch {
			case len(turn.Calls) > 0:
				at(outPtr, "output is the final answer, and a turn with calls is not final; move it to the turn that answers in text")
			case output != nil:
				if v, err := jsonValue(turn.Output); err != nil {
					at(outPtr, err.Error())
				} else if err := output.Validate(v); err != nil {
					at(outPtr, fmt.Sprintf("does not match the scenario's output schema %q (%s)", sc.Output.Name, shortValidation(err)))
				}
			}
		}
		for ci, call := range turn.Calls {
			base := []string{"turns", strconv.Itoa(ti), "calls", strconv.Itoa(ci)}
			callPtr := pointer(base...)
			tool := sc.Tool(call.Name)
			if len(sc.Tools) > 0 {
				switch {
				case tool == nil && !call.Undeclared:
					at(callPtr+"/name", fmt.Sprintf("unknown tool %q (declared: %s); set undeclared: true if the call is meant to name a missing tool", call.Name, declared))
				case tool != nil && call.Undeclared:
					at(callPtr+"/undeclared", fmt.Sprintf("tool %q is declared; drop undeclared: true", call.Name))
				}
			}
			s := params[call.Name]
			if tool == nil || s == nil {
				continue
			}
			problem, checked := argumentProblem(s, call)
			switch {
			case !checked && call.InvalidArguments:
				at(callPtr+"/invalid_arguments", "invalid_arguments needs arguments or raw_arguments to break the schema")
			case problem == "" && checked && call.InvalidArguments:
				at(callPtr+"/invalid_arguments", fmt.Sprintf("the arguments validate against %s's parameters; drop invalid_arguments: true", call.Name))
			case problem != "" && !call.InvalidArguments:
				field := "arguments"
				if call.Arguments == nil {
					field = "raw_arguments"
				}
				at(callPtr+"/"+field, fmt.Sprintf("do not match %s's parameters (%s); set invalid_arguments: true if that is the point", call.Name, problem))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// outputSchema compiles the scenario's output schema (nil when it has
// none or it does not compile, which at reports), and reports an output
// without the feature that lets drivers without structured outputs skip
// the scenario.
func outputSchema(sc *Scenario, at func(ptr, msg string)) *jsonschema.Schema {
	if sc.Output == nil {
		return nil
	}
	if !slices.Contains(sc.Features, FeatureStructuredOutput) {
		at("/output", fmt.Sprintf("a scenario with output needs the %s feature (add it to features), so that drivers without structured outputs skip it", FeatureStructuredOutput))
	}
	s, err := CompileParameters(sc.Output.Schema)
	if err != nil {
		at("/output/schema", "not a valid JSON Schema: "+err.Error())
		return nil
	}
	return s
}

// argumentProblem validates the call's scripted arguments (both forms when
// both are given). checked is false when the call has none (they will be
// synthesized).
func argumentProblem(s *jsonschema.Schema, call Call) (problem string, checked bool) {
	if call.RawArguments != "" {
		checked = true
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(call.RawArguments))
		if err != nil {
			return "raw_arguments is not JSON: " + err.Error(), true
		}
		if err := s.Validate(v); err != nil {
			return "raw_arguments: " + shortValidation(err), true
		}
	}
	if call.Arguments != nil {
		checked = true
		v, err := jsonValue(call.Arguments)
		if err != nil {
			return err.Error(), true
		}
		if err := s.Validate(v); err != nil {
			return shortValidation(err), true
		}
	}
	return "", checked
}

// CompileParameters compiles a tool's parameters as a JSON Schema (draft
// 2020-12 unless it says otherwise), for loading checks and for the
// conformance suite's own argument checks.
func CompileParameters(params map[string]any) (*jsonschema.Schema, error) {
	v, err := jsonValue(params)
	if err != nil {
		return nil, err
	}
	s, err := localschema.Compile(v, "")
	if err != nil {
		// The compiler's message repeats the URL; keep the reason.
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg, localschema.URL) {
			msg = strings.TrimSpace(msg[i+2:])
		}
		return nil, errors.New(msg)
	}
	return s, nil
}

// jsonValue round-trips a YAML-decoded value through JSON into the form the
// validator reads (json.Number numbers, map[string]any objects).
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// shortValidation is the first leaf of a validation error, one line.
func shortValidation(err error) string {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return err.Error()
	}
	for len(verr.Causes) > 0 {
		verr = verr.Causes[0]
	}
	loc := "/" + strings.Join(verr.InstanceLocation, "/")
	return fmt.Sprintf("at %s: %s", loc, verr.ErrorKind.LocalizedString(printer))
}

func toolNames(sc *Scenario) []string {
	out := make([]string, len(sc.Tools))
	for i, t := range sc.Tools {
		out[i] = t.Name
	}
	return out
}

// Problem is why text is not a JSON value valid against the output's
// schema ("" when it is), on one line: what the conformance suite says of
// a driver's structured final answer.
func (o *Output) Problem(text string) string {
	s, err := CompileParameters(o.Schema)
	if err != nil {
		return "the output schema is not a valid JSON Schema: " + err.Error()
	}
	return TextProblem(s, text)
}

// TextProblem is why text is not a JSON value valid against s ("" when
// it is), on one line.
func TextProblem(s *jsonschema.Schema, text string) string {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	if err := s.Validate(v); err != nil {
		return shortValidation(err)
	}
	return ""
}

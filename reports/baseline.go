package reports

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StaleBaselineMessage is the Message of a result turned into a Fail
// because its baseline entry no longer matches any failure.
const StaleBaselineMessage = "expected failure now passes; remove it from the baseline"

// BaselineEntry is one expected failure from a --baseline file. Empty
// Scenario or Dialect (or "*") matches any.
type BaselineEntry struct {
	Rule     string `yaml:"rule" json:"rule"`
	Scenario string `yaml:"scenario,omitempty" json:"scenario,omitempty"`
	Dialect  string `yaml:"dialect,omitempty" json:"dialect,omitempty"`
	// Reason is free text (an issue link, say); it is not used for matching.
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// String renders the entry in its short form "rule[:scenario[:dialect]]".
func (e BaselineEntry) String() string {
	s := e.Rule
	switch {
	case e.Dialect != "" && e.Dialect != "*":
		sc := e.Scenario
		if sc == "" {
			sc = "*"
		}
		s += ":" + sc + ":" + e.Dialect
	case e.Scenario != "" && e.Scenario != "*":
		s += ":" + e.Scenario
	}
	return s
}

// Matches reports whether the entry covers a result.
func (e BaselineEntry) Matches(res Result) bool {
	return e.Rule == res.Rule &&
		(e.Scenario == "" || e.Scenario == "*" || e.Scenario == res.Scenario) &&
		(e.Dialect == "" || e.Dialect == "*" || e.Dialect == res.Dialect)
}

// ParseBaselineEntry parses "rule", "rule:scenario" or
// "rule:scenario:dialect" (rule IDs never contain ':').
func ParseBaselineEntry(s string) (BaselineEntry, error) {
	s = strings.TrimSpace(s)
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return BaselineEntry{}, fmt.Errorf("baseline entry %q: want rule, rule:scenario or rule:scenario:dialect", s)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	e := BaselineEntry{Rule: parts[0]}
	if len(parts) > 1 {
		e.Scenario = parts[1]
	}
	if len(parts) > 2 {
		e.Dialect = parts[2]
	}
	return e, e.validate()
}

func (e BaselineEntry) validate() error {
	if e.Rule == "" || e.Rule == "*" {
		return fmt.Errorf("baseline entry %q: a rule ID is required", e.String())
	}
	for _, f := range []string{e.Rule, e.Scenario, e.Dialect} {
		if strings.ContainsAny(f, " \t\r\n:") {
			return fmt.Errorf("baseline entry %q: fields must not contain spaces or ':'", f)
		}
	}
	return nil
}

// LoadBaseline reads an expected-failures file: a YAML list, either at
// the top level or under a single key "expected-failures" (also
// "expectedFailures", "baseline"). Items are short strings or mappings
// with a reason:
//
//	expected-failures:
//	  - anthropic.tool-result-first                       # any scenario, any dialect
//	  - openai-chat.tool-call-id-echo:parallel-same-tool  # one scenario
//	  - rule: gemini.function-response-name
//	    scenario: multimodal-result
//	    dialect: gemini
//	    reason: tracked in issue 12
func LoadBaseline(path string) ([]BaselineEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	entries, err := ParseBaseline(data)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	return entries, nil
}

// ParseBaseline parses the contents of an expected-failures file (see
// LoadBaseline). An empty document is an empty baseline.
func ParseBaseline(data []byte) ([]BaselineEntry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		var found *yaml.Node
		for i := 0; i+1 < len(list.Content); i += 2 {
			switch list.Content[i].Value {
			case "expected-failures", "expectedFailures", "expected_failures", "baseline":
				found = list.Content[i+1]
			default:
				return nil, fmt.Errorf("line %d: unknown key %q (want expected-failures)", list.Content[i].Line, list.Content[i].Value)
			}
		}
		if found == nil {
			return nil, nil
		}
		list = found
	}
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: want a list of expected failures", list.Line)
	}
	var out []BaselineEntry
	for _, item := range list.Content {
		switch item.Kind {
		case yaml.ScalarNode:
			e, err := ParseBaselineEntry(item.Value)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", item.Line, err)
			}
			out = append(out, e)
		case yaml.MappingNode:
			var e BaselineEntry
			if err := item.Decode(&e); err != nil {
				return nil, fmt.Errorf("line %d: %w", item.Line, err)
			}
			if err := e.validate(); err != nil {
				return nil, fmt.Errorf("line %d: %w", item.Line, err)
			}
			out = append(out, e)
		default:
			return nil, fmt.Errorf("line %d: want a string or a mapping with rule/scenario/dialect", item.Line)
		}
	}
	return out, nil
}

// ApplyBaseline marks listed failures as expected and turns stale entries
// into failures (the MCP conformance --expected-failures semantics):
//
//   - a Fail or Warn matched by an entry gets Baselined and stops counting;
//   - an entry whose matched results all pass (none fails or warns any
//     more) is stale: each of those passing results becomes a Fail with
//     StaleBaselineMessage, so the baseline cannot silently rot;
//   - an entry matching no checked result (nothing, or only
//     not-supported/error results) is recorded in run.UnmatchedBaseline
//     (not a failure: the rule may simply not have run, e.g. a dialect
//     left out of this run).
//
// Errors and not-supported results are never baselined: a harness error
// is not an expected conformance failure. Applying the same baseline twice
// gives the same run.
func ApplyBaseline(run *Run, baseline []BaselineEntry) {
	if run == nil {
		return
	}
	for _, e := range baseline {
		failing := 0
		for i := range run.Results {
			res := &run.Results[i]
			if !e.Matches(*res) || res.StaleBaseline {
				continue
			}
			if res.Outcome == Fail || res.Outcome == Warn {
				res.Baselined = true
				failing++
			}
		}
		if failing > 0 {
			continue
		}
		stale := false
		for i := range run.Results {
			res := &run.Results[i]
			if e.Matches(*res) && (res.Outcome == Pass || res.StaleBaseline) {
				stale = true
				if res.StaleBaseline {
					continue
				}
				res.Outcome = Fail
				res.StaleBaseline = true
				res.Message = StaleBaselineMessage
				res.Expected = "a failure (listed in the baseline as " + e.String() + ")"
				res.Got = "pass"
				res.Fix = fmt.Sprintf("Delete the entry %q from the baseline file: the implementation now passes this check.", e.String())
			}
		}
		if !stale {
			if s := e.String(); !containsString(run.UnmatchedBaseline, s) {
				run.UnmatchedBaseline = append(run.UnmatchedBaseline, s)
			}
		}
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Package reports renders a conformance run: junit.xml, report.json,
// conformance-report.yaml, summary.md and a self-contained report.html.
// The suite fills a Run; writers only read it.
package reports

import "time"

// Outcome of one check.
type Outcome string

const (
	Pass         Outcome = "pass"
	Fail         Outcome = "fail"          // a MUST rule broken
	Warn         Outcome = "warn"          // a SHOULD rule broken (fails under --strict)
	NotSupported Outcome = "not-supported" // a feature the implementation did not declare; not counted
	Error        Outcome = "error"         // the harness itself broke
	// NotExercised: the run had nothing this rule judges (no image for an
	// image rule); counted apart from pass so that a rule nothing
	// exercised never reads as conformance.
	NotExercised Outcome = "not-exercised"
)

// Run is one conformance run.
type Run struct {
	Implementation  Implementation `json:"implementation" yaml:"implementation"`
	ToolwireVersion string         `json:"toolwire_version" yaml:"toolwireVersion"`
	Date            time.Time      `json:"date" yaml:"date"`
	Mode            string         `json:"mode" yaml:"mode"` // driver, driver-url, format-driver, tool-url, go
	Strict          bool           `json:"strict" yaml:"strict"`
	Dialects        []string       `json:"dialects" yaml:"dialects"`
	Features        []string       `json:"features" yaml:"features"` // declared supported features
	Results         []Result       `json:"results" yaml:"results"`
	Duration        time.Duration  `json:"duration_ns" yaml:"-"`
	// UnmatchedBaseline lists baseline entries (see ApplyBaseline) that
	// matched no result of this run: usually a typo, a renamed rule or a
	// dialect left out of this run. They do not fail the run; the reports
	// mention them so the baseline can be cleaned up.
	UnmatchedBaseline []string `json:"unmatched_baseline,omitempty" yaml:"unmatchedBaseline,omitempty"`
}

// Implementation describes what was tested.
type Implementation struct {
	Name    string `json:"name" yaml:"name"`
	Version string `json:"version,omitempty" yaml:"version,omitempty"`
	URL     string `json:"url,omitempty" yaml:"url,omitempty"`
	Command string `json:"command,omitempty" yaml:"command,omitempty"`
}

// Result is the outcome of one rule in one scenario × dialect × stream mode.
type Result struct {
	Rule     string  `json:"rule"`               // catalog rule ID
	Level    string  `json:"level"`              // MUST or SHOULD
	Summary  string  `json:"summary"`            // rule summary
	Source   string  `json:"source"`             // rule source (doc link, seed section)
	Scenario string  `json:"scenario"`           // scenario name
	Dialect  string  `json:"dialect"`            // openai-chat, openai-responses, anthropic, gemini, rap
	Stream   bool    `json:"stream"`             // streamed run
	Feature  string  `json:"feature,omitempty"`  // feature the scenario needs
	Outcome  Outcome `json:"outcome"`            // pass, fail, warn, not-supported, error
	Message  string  `json:"message,omitempty"`  // what went wrong
	Expected string  `json:"expected,omitempty"` // what the rule wants
	Got      string  `json:"got,omitempty"`      // what was seen
	Excerpt  string  `json:"excerpt,omitempty"`  // the exchange excerpt (request/response JSON, trimmed)
	Fix      string  `json:"fix,omitempty"`      // how to fix
	// Path is the JSON path of the offending member in Excerpt (as the
	// mock journals it: "messages.1.content.0.tool_use_id"); the reports
	// highlight it there, or say that the excerpt does not reach it.
	Path string `json:"path,omitempty"`
	// Cause marks a breach of a request rule that the mock answered with
	// an error: the scenario checks failing after it usually follow from
	// it, so the reports list causes first.
	Cause bool `json:"cause,omitempty"`
	// Baselined marks a failure listed in --baseline (expected); a listed
	// failure that now passes is reported as Fail with Message saying so.
	Baselined bool `json:"baselined,omitempty"`
	// StaleBaseline marks a Fail produced by ApplyBaseline because a
	// baseline entry matched only passing checks; such a result is never
	// baselined again, which keeps ApplyBaseline idempotent.
	StaleBaseline bool `json:"stale_baseline,omitempty"`
	// Duration of the check (or of its scenario run); zero when unknown.
	Duration time.Duration `json:"duration_ns,omitempty"`
}

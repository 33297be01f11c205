package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ConformanceReport is conformance-report.yaml, modelled on the gateway-api
// ConformanceReport: implementation metadata, versions, mode, and one
// entry per dialect (the analogue of a profile) with result, statistics,
// failed rules and the supported/unsupported features. Exported so tools
// can read the file back.
type ConformanceReport struct {
	APIVersion        string          `yaml:"apiVersion"`
	Kind              string          `yaml:"kind"`
	Date              string          `yaml:"date"`
	ToolwireVersion   string          `yaml:"toolwireVersion"`
	Implementation    Implementation  `yaml:"implementation"`
	Mode              string          `yaml:"mode"`
	Strict            bool            `yaml:"strict"`
	Verdict           Verdict         `yaml:"verdict"`
	ExitCode          int             `yaml:"exitCode"`
	DeclaredFeatures  []string        `yaml:"declaredFeatures"`
	Dialects          []DialectReport `yaml:"dialects"`
	UnmatchedBaseline []string        `yaml:"unmatchedBaseline,omitempty"`
}

// DialectReport is one dialect of the conformance report.
type DialectReport struct {
	Name                string        `yaml:"name"`
	Result              DialectResult `yaml:"result"`
	Statistics          Statistics    `yaml:"statistics"`
	FailedRules         []string      `yaml:"failedRules"`
	WarnedRules         []string      `yaml:"warnedRules,omitempty"`
	BaselinedRules      []string      `yaml:"baselinedRules,omitempty"`
	ErroredRules        []string      `yaml:"erroredRules,omitempty"`
	SupportedFeatures   []string      `yaml:"supportedFeatures"`
	UnsupportedFeatures []string      `yaml:"unsupportedFeatures"`
	Summary             string        `yaml:"summary"`
}

// Statistics counts checks; Skipped is not-supported (not counted against
// the implementation), Baselined are expected failures.
type Statistics struct {
	Passed  int `yaml:"passed"`
	Failed  int `yaml:"failed"`
	Warned  int `yaml:"warned"`
	Skipped int `yaml:"skipped"`
	// NotExercised: rules the run gave nothing to judge, not passes.
	NotExercised int `yaml:"notExercised"`
	Errors       int `yaml:"errors"`
	Baselined    int `yaml:"baselined"`
}

// ConformanceReportAPIVersion / Kind identify the YAML document.
const (
	ConformanceReportAPIVersion = "toolwire/v1alpha1"
	ConformanceReportKind       = "ConformanceReport"
)

// BuildConformanceReport computes the YAML report of a run.
func BuildConformanceReport(run *Run) ConformanceReport {
	v := run.Verdict()
	rep := ConformanceReport{
		APIVersion:        ConformanceReportAPIVersion,
		Kind:              ConformanceReportKind,
		ToolwireVersion:   run.ToolwireVersion,
		Implementation:    run.Implementation,
		Mode:              run.Mode,
		Strict:            run.Strict,
		Verdict:           v,
		ExitCode:          v.ExitCode(),
		DeclaredFeatures:  sortedUnique(run.Features),
		UnmatchedBaseline: run.UnmatchedBaseline,
	}
	if !run.Date.IsZero() {
		rep.Date = run.Date.UTC().Format(time.RFC3339)
	}
	for _, d := range run.AllDialects() {
		c := run.DialectCounts(d)
		var supported, unsupported []string
		for _, res := range run.Results {
			if res.Dialect != d || res.Feature == "" {
				continue
			}
			if res.Outcome == NotSupported {
				unsupported = append(unsupported, res.Feature)
			} else {
				supported = append(supported, res.Feature)
			}
		}
		supported = sortedUnique(supported)
		// A feature exercised in one scenario and skipped in another is
		// supported; list it once.
		unsupported = slices.DeleteFunc(sortedUnique(unsupported), func(f string) bool {
			return slices.Contains(supported, f)
		})
		dr := DialectReport{
			Name:   d,
			Result: resultFor(c, run.Strict),
			Statistics: Statistics{
				Passed: c.Passed, Failed: c.Failed, Warned: c.Warned,
				Skipped: c.NotSupported, NotExercised: c.NotExercised, Errors: c.Errors, Baselined: c.Baselined,
			},
			FailedRules: nonNil(run.FailedRules(d)),
			WarnedRules: run.rulesWhere(d, func(res Result) bool {
				return res.Outcome == Warn && !res.Baselined && !run.Strict
			}),
			BaselinedRules:      run.rulesWhere(d, func(res Result) bool { return res.Baselined }),
			ErroredRules:        run.rulesWhere(d, func(res Result) bool { return res.Outcome == Error }),
			SupportedFeatures:   nonNil(supported),
			UnsupportedFeatures: nonNil(unsupported),
		}
		dr.Summary = dialectSummary(dr)
		rep.Dialects = append(rep.Dialects, dr)
	}
	return rep
}

// dialectSummary is the one-sentence gloss gateway-api reports carry.
func dialectSummary(d DialectReport) string {
	s := d.Statistics
	switch d.Result {
	case ResultSuccess:
		return fmt.Sprintf("All checks passed (%d).", s.Passed)
	case ResultPartial:
		var why []string
		if s.Warned > 0 {
			why = append(why, plural(s.Warned, "SHOULD warning"))
		}
		if s.Baselined > 0 {
			why = append(why, plural(s.Baselined, "baselined failure"))
		}
		if s.Passed == 0 {
			why = append(why, "no check ran")
		}
		return fmt.Sprintf("Partially succeeded: %d passed, %s.", s.Passed, strings.Join(why, ", "))
	default:
		var why []string
		if s.Failed > 0 {
			why = append(why, plural(s.Failed, "failure"))
		}
		if s.Errors > 0 {
			why = append(why, plural(s.Errors, "harness error"))
		}
		if len(why) == 0 && s.Warned > 0 {
			why = append(why, plural(s.Warned, "SHOULD warning")+" (strict)")
		}
		return fmt.Sprintf("Failed: %s, %d passed.", strings.Join(why, ", "), s.Passed)
	}
}

// WriteConformanceReport writes conformance-report.yaml.
func WriteConformanceReport(w io.Writer, run *Run) error {
	if run == nil {
		return errNilRun
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(BuildConformanceReport(run)); err != nil {
		return err
	}
	return enc.Close()
}

func sortedUnique(in []string) []string {
	out := slices.Clone(in)
	sort.Strings(out)
	out = slices.Compact(out)
	if out == nil {
		return []string{}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

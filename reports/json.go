package reports

import (
	"encoding/json"
	"errors"
	"io"
	"os"
)

var errNilRun = errors.New("reports: nil run")

// ReportFormat identifies the report.json layout for tools reading it.
const ReportFormat = "toolwire.report/v1"

// Summary is the computed part of report.json.
type Summary struct {
	Verdict           Verdict          `json:"verdict"`
	ExitCode          int              `json:"exit_code"`
	Counts            Counts           `json:"counts"`
	Dialects          []DialectSummary `json:"dialects"`
	FailedRules       []string         `json:"failed_rules"`
	UnmatchedBaseline []string         `json:"unmatched_baseline,omitempty"`
}

// DialectSummary is one dialect's standing.
type DialectSummary struct {
	Name        string        `json:"name"`
	Result      DialectResult `json:"result"`
	Counts      Counts        `json:"counts"`
	FailedRules []string      `json:"failed_rules"`
}

// Summarize computes the verdict and counts of a run.
func Summarize(run *Run) Summary {
	v := run.Verdict()
	s := Summary{
		Verdict:           v,
		ExitCode:          v.ExitCode(),
		Counts:            run.Counts(),
		FailedRules:       nonNil(run.FailedRules("")),
		UnmatchedBaseline: run.UnmatchedBaseline,
		Dialects:          []DialectSummary{},
	}
	for _, d := range run.AllDialects() {
		s.Dialects = append(s.Dialects, DialectSummary{
			Name:        d,
			Result:      run.DialectResult(d),
			Counts:      run.DialectCounts(d),
			FailedRules: nonNil(run.FailedRules(d)),
		})
	}
	return s
}

// jsonReport is report.json: the Run's fields inline plus the summary.
type jsonReport struct {
	Format string `json:"format"`
	*Run
	Summary Summary `json:"summary"`
}

// WriteJSON writes report.json.
func WriteJSON(w io.Writer, run *Run) error {
	if run == nil {
		return errNilRun
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Excerpts are shown in HTML elsewhere; here they must stay readable
	// (no \u003c for '<').
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonReport{Format: ReportFormat, Run: run, Summary: Summarize(run)})
}

// ReadJSON reads a report.json back into a Run (the summary is recomputed
// from the results, never trusted), e.g. to re-render reports.
func ReadJSON(r io.Reader) (*Run, error) {
	var run Run
	if err := json.NewDecoder(r).Decode(&run); err != nil {
		return nil, err
	}
	return &run, nil
}

// LoadJSON reads a report.json file.
func LoadJSON(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJSON(f)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

package reports

import (
	"fmt"
	"slices"
	"sort"
)

// Verdict is the overall judgement of a run; it decides the exit code.
type Verdict string

const (
	// VerdictConformant: every counted check passed (SHOULD warnings and
	// baselined failures allowed unless Strict turns warnings into failures).
	VerdictConformant Verdict = "conformant"
	// VerdictFailures: at least one MUST failure (or, under Strict, SHOULD
	// warning) that is not in the baseline, or a stale baseline entry.
	VerdictFailures Verdict = "failures"
	// VerdictHarnessError: the harness itself broke (an Error result) or
	// nothing was checked at all; the outcome of the implementation is
	// unknown, which is a different thing from a conformance failure.
	VerdictHarnessError Verdict = "harness-error"
)

// ExitCode maps a verdict to the process exit code: 0 conformant,
// 1 conformance failures, 2 harness or configuration error.
func (v Verdict) ExitCode() int {
	switch v {
	case VerdictConformant:
		return 0
	case VerdictFailures:
		return 1
	default:
		return 2
	}
}

// Title is the human headline for the verdict.
func (v Verdict) Title() string {
	switch v {
	case VerdictConformant:
		return "Conformant"
	case VerdictFailures:
		return "Not conformant"
	default:
		return "Harness error"
	}
}

// Verdict judges the run. A harness error wins over failures because when
// the harness broke the failure list itself cannot be trusted. A run in
// which no check ran (nothing but not-supported) is a harness error too: a
// filter or feature list that selects nothing must not read as green.
func (r *Run) Verdict() Verdict {
	if r == nil {
		return VerdictHarnessError
	}
	c := r.Counts()
	switch {
	case c.Errors > 0:
		return VerdictHarnessError
	case c.Total-c.NotSupported-c.NotExercised == 0:
		return VerdictHarnessError
	case c.Failed > 0 || (r.Strict && c.Warned > 0):
		return VerdictFailures
	default:
		return VerdictConformant
	}
}

// DialectResult is the per-dialect standing, as in a gateway-api
// conformance report profile.
type DialectResult string

const (
	// ResultSuccess: everything checked passed.
	ResultSuccess DialectResult = "success"
	// ResultPartial: no counted failure, but something short of a clean
	// pass: SHOULD warnings (non-strict), baselined failures, or no check
	// actually ran for the dialect.
	ResultPartial DialectResult = "partial"
	// ResultFailure: a counted failure, a strict warning or a harness error.
	ResultFailure DialectResult = "failure"
)

// Counts tallies results by outcome. Baselined fails and warns are counted
// only in Baselined, so Failed and Warned are what still needs fixing.
type Counts struct {
	Total        int `json:"total"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	Warned       int `json:"warned"`
	NotSupported int `json:"not_supported"`
	NotExercised int `json:"not_exercised"`
	Errors       int `json:"errors"`
	Baselined    int `json:"baselined"`
}

func (c *Counts) add(res Result) {
	c.Total++
	switch {
	case res.Baselined && (res.Outcome == Fail || res.Outcome == Warn):
		c.Baselined++
	case res.Outcome == Pass:
		c.Passed++
	case res.Outcome == Fail:
		c.Failed++
	case res.Outcome == Warn:
		c.Warned++
	case res.Outcome == NotSupported:
		c.NotSupported++
	case res.Outcome == NotExercised:
		c.NotExercised++
	default:
		// Error, and any outcome the writers do not know: an unknown
		// outcome is a harness bug, never a silent pass.
		c.Errors++
	}
}

// Counts tallies every result of the run.
func (r *Run) Counts() Counts {
	var c Counts
	if r == nil {
		return c
	}
	for _, res := range r.Results {
		c.add(res)
	}
	return c
}

// DialectCounts tallies the results of one dialect.
func (r *Run) DialectCounts(dialect string) Counts {
	var c Counts
	if r == nil {
		return c
	}
	for _, res := range r.Results {
		if res.Dialect == dialect {
			c.add(res)
		}
	}
	return c
}

// DialectResult judges one dialect: success, partial or failure.
func (r *Run) DialectResult(dialect string) DialectResult {
	if r == nil {
		return ResultFailure
	}
	return resultFor(r.DialectCounts(dialect), r.Strict)
}

func resultFor(c Counts, strict bool) DialectResult {
	switch {
	case c.Failed > 0 || c.Errors > 0 || (strict && c.Warned > 0):
		return ResultFailure
	case c.Warned > 0 || c.Baselined > 0 || c.Passed == 0:
		return ResultPartial
	default:
		return ResultSuccess
	}
}

// AllDialects is the column order every writer uses: the declared
// dialects first, then any dialect that only appears in results (sorted),
// so a result is never dropped from a report because of a sloppy
// declaration.
func (r *Run) AllDialects() []string {
	if r == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range r.Dialects {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	var extra []string
	for _, res := range r.Results {
		if !seen[res.Dialect] {
			seen[res.Dialect] = true
			extra = append(extra, res.Dialect)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// IsFailing reports whether a result counts against the verdict: an
// unbaselined Fail, or an unbaselined Warn when strict.
func IsFailing(res Result, strict bool) bool {
	if res.Baselined {
		return false
	}
	return res.Outcome == Fail || (strict && res.Outcome == Warn)
}

// needsAttention selects the results that get a details entry in the
// reports: everything that is neither a pass nor a declared non-feature.
func needsAttention(res Result) bool {
	return res.Outcome != Pass && res.Outcome != NotSupported && res.Outcome != NotExercised
}

// StreamMode names the stream flag the way test names and progress lines do.
func StreamMode(stream bool) string {
	if stream {
		return "stream"
	}
	return "nonstream"
}

// TestName is the stable name of one check, shared by junit.xml and the
// other reports: "<rule> [<scenario>/<dialect>/<stream|nonstream>]".
func TestName(res Result) string {
	return fmt.Sprintf("%s [%s/%s/%s]", res.Rule, res.Scenario, res.Dialect, StreamMode(res.Stream))
}

// FailedRules lists, sorted and unique, the rule IDs with a counted
// failure in a dialect (empty dialect = all dialects).
func (r *Run) FailedRules(dialect string) []string {
	return r.rulesWhere(dialect, func(res Result) bool { return IsFailing(res, r.Strict) })
}

func (r *Run) rulesWhere(dialect string, keep func(Result) bool) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, res := range r.Results {
		if (dialect == "" || res.Dialect == dialect) && keep(res) && !slices.Contains(out, res.Rule) {
			out = append(out, res.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// outcomeLabel is the short word used in tables and progress lines.
func outcomeLabel(res Result) string {
	if res.Baselined && (res.Outcome == Fail || res.Outcome == Warn) {
		return "baselined"
	}
	return string(res.Outcome)
}

package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML shapes (the de-facto schema read by Jenkins, GitLab, GitHub
// test reporters). Exported so tests and tools can parse junit.xml back.
type (
	JUnitTestSuites struct {
		XMLName  xml.Name         `xml:"testsuites"`
		Name     string           `xml:"name,attr"`
		Tests    int              `xml:"tests,attr"`
		Failures int              `xml:"failures,attr"`
		Errors   int              `xml:"errors,attr"`
		Skipped  int              `xml:"skipped,attr"`
		Time     string           `xml:"time,attr"`
		Suites   []JUnitTestSuite `xml:"testsuite"`
	}
	JUnitTestSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []JUnitProperty `xml:"properties>property,omitempty"`
		Cases      []JUnitTestCase `xml:"testcase"`
	}
	JUnitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	JUnitTestCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *JUnitProblem `xml:"failure,omitempty"`
		Error     *JUnitProblem `xml:"error,omitempty"`
		Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
		SystemOut *JUnitText    `xml:"system-out,omitempty"`
	}
	JUnitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",cdata"`
	}
	// JUnitText is element text kept as CDATA, so multi-line bodies
	// stay readable in the raw file.
	JUnitText struct {
		Text string `xml:",cdata"`
	}
	JUnitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// BuildJUnit maps the run to JUnit: one testsuite per dialect, one
// testcase per result. Mapping: fail → failure; warn → passed with the
// warning in system-out (failure under Strict); not-supported → skipped;
// error → error; a baselined fail or warn → skipped "expected failure",
// which is how xfail is conventionally shown.
func BuildJUnit(run *Run) JUnitTestSuites {
	root := JUnitTestSuites{Name: "toolwire conformance: " + run.Implementation.Name}
	props := []JUnitProperty{
		{"implementation", run.Implementation.Name},
		{"implementation.version", run.Implementation.Version},
		{"toolwire.version", run.ToolwireVersion},
		{"mode", run.Mode},
		{"strict", fmt.Sprint(run.Strict)},
		{"verdict", string(run.Verdict())},
	}
	var total time.Duration
	for _, d := range run.AllDialects() {
		suite := JUnitTestSuite{Name: d, Properties: props}
		if !run.Date.IsZero() {
			suite.Timestamp = run.Date.UTC().Format("2006-01-02T15:04:05")
		}
		var dur time.Duration
		for _, res := range run.Results {
			if res.Dialect != d {
				continue
			}
			tc := junitCase(res, run.Strict)
			suite.Tests++
			switch {
			case tc.Failure != nil:
				suite.Failures++
			case tc.Error != nil:
				suite.Errors++
			case tc.Skipped != nil:
				suite.Skipped++
			}
			dur += res.Duration
			suite.Cases = append(suite.Cases, tc)
		}
		suite.Time = seconds(dur)
		total += dur
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		root.Errors += suite.Errors
		root.Skipped += suite.Skipped
		root.Suites = append(root.Suites, suite)
	}
	if run.Duration > 0 {
		total = run.Duration
	}
	root.Time = seconds(total)
	return root
}

func junitCase(res Result, strict bool) JUnitTestCase {
	tc := JUnitTestCase{
		Name:      TestName(res),
		ClassName: res.Dialect + "." + res.Scenario,
		Time:      seconds(res.Duration),
	}
	switch {
	case res.Baselined && (res.Outcome == Fail || res.Outcome == Warn):
		tc.Skipped = &JUnitSkipped{Message: "expected failure (baseline): " + oneLine(res.Message)}
		tc.SystemOut = cdata(problemText(res))
	case res.Outcome == Pass:
	case res.Outcome == Fail:
		tc.Failure = &JUnitProblem{Message: oneLine(res.Message), Type: levelOr(res.Level, "MUST"), Body: xmlSafe(problemText(res))}
	case res.Outcome == Warn && strict:
		tc.Failure = &JUnitProblem{Message: oneLine(res.Message), Type: levelOr(res.Level, "SHOULD"), Body: xmlSafe(problemText(res))}
	case res.Outcome == Warn:
		tc.SystemOut = cdata("WARNING (" + levelOr(res.Level, "SHOULD") + "): " + problemText(res))
	case res.Outcome == NotSupported:
		msg := "not supported"
		if res.Feature != "" {
			msg += ": feature " + res.Feature + " not declared"
		}
		tc.Skipped = &JUnitSkipped{Message: msg}
	case res.Outcome == NotExercised:
		msg := "not exercised: the run had nothing this rule judges"
		if res.Message != "" {
			msg = "not exercised: " + oneLine(res.Message)
		}
		tc.Skipped = &JUnitSkipped{Message: msg}
	default: // Error or an outcome the writers do not know
		tc.Error = &JUnitProblem{Message: oneLine(res.Message), Type: "harness-error", Body: xmlSafe(problemText(res))}
	}
	return tc
}

// problemText is the plain-text body of a failure: everything a reader
// needs without opening report.html.
func problemText(res Result) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	line("Message", res.Message)
	line("Rule", res.Rule+" ("+res.Level+")")
	line("Summary", res.Summary)
	line("Source", res.Source)
	line("Scenario", res.Scenario)
	line("Dialect", res.Dialect)
	line("Mode", StreamMode(res.Stream))
	line("Feature", res.Feature)
	block := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s:\n%s\n", k, strings.TrimRight(v, "\n"))
		}
	}
	block("Expected", res.Expected)
	block("Got", res.Got)
	line("Path", res.Path)
	block("Exchange", res.Excerpt)
	line("Fix", res.Fix)
	return b.String()
}

// WriteJUnit writes junit.xml.
func WriteJUnit(w io.Writer, run *Run) error {
	if run == nil {
		return errNilRun
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	// Attributes are escaped by encoding/xml (characters XML cannot carry
	// become U+FFFD); CDATA bodies go through xmlSafe for the same effect.
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(BuildJUnit(run)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func cdata(s string) *JUnitText { return &JUnitText{Text: xmlSafe(s)} }

// xmlSafe replaces characters XML 1.0 cannot carry at all (most C0
// controls, which a broken stream excerpt may contain) with U+FFFD, as
// encoding/xml does for escaped text; CDATA sections are written raw and
// would otherwise make the file unparseable.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

func levelOr(level, def string) string {
	if level == "" {
		return def
	}
	return level
}

// oneLine collapses whitespace runs (newlines included) for attributes and
// list items.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

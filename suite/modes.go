package suite

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/toolwire/toolwire/reports"
)

// finishConform applies the baseline, writes the reports and prints the
// verdict; it returns the exit code. Every conform mode ends here.
func finishConform(o ConformOptions, run *reports.Run, baseline []reports.BaselineEntry, stdout, stderr io.Writer) int {
	if baseline != nil {
		reports.ApplyBaseline(run, baseline)
	}
	if run.Date.IsZero() {
		run.Date = time.Now().UTC()
	}
	dir := o.ReportDir
	if dir == "" {
		dir = "reports/out"
	}
	if err := reports.WriteAll(dir, run); err != nil {
		// A report that cannot be written must not hide the verdict.
		fmt.Fprintf(stderr, "toolwire conform: writing reports: %v\n", err)
	} else {
		fmt.Fprintf(stderr, "toolwire conform: reports in %s\n", dir)
	}
	printHarnessErrors(run, stderr)
	fmt.Fprintln(stdout, reports.VerdictLine(run))
	return run.Verdict().ExitCode()
}

// printHarnessErrors prints each distinct harness error once (the same
// broken driver breaks every run), so the cause is on the terminal and
// not only in the reports.
func printHarnessErrors(run *reports.Run, stderr io.Writer) {
	const most = 3
	var seen []string
	for _, res := range run.Results {
		if res.Outcome != reports.Error || slices.Contains(seen, res.Message) {
			continue
		}
		seen = append(seen, res.Message)
		if len(seen) <= most {
			fmt.Fprintf(stderr, "toolwire conform: harness error (%s/%s): %s\n", res.Scenario, res.Dialect, res.Message)
		}
	}
	if n := len(seen) - most; n > 0 {
		fmt.Fprintf(stderr, "toolwire conform: %d more distinct harness errors in the reports\n", n)
	}
}

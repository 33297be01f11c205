package suite

import (
	"fmt"
	"io"
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
	fmt.Fprintln(stdout, reports.VerdictLine(run))
	return run.Verdict().ExitCode()
}

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/reports"
)

func newReportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work on conformance reports (merge the shards of a split run)",
	}
	cmd.AddCommand(newReportMergeCommand())
	return cmd
}

func newReportMergeCommand() *cobra.Command {
	var out, baseline string
	cmd := &cobra.Command{
		Use:   "merge SHARD... ",
		Short: "Join the report.json of each shard (a file, or the report directory holding it) into the five reports of the whole run",
		Example: `  toolwire conform --driver "node driver.mjs" --shard 1/2 --report-dir shard-1
  toolwire conform --driver "node driver.mjs" --shard 2/2 --report-dir shard-2
  toolwire report merge --report-dir reports/out shard-1 shard-2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var runs []*reports.Run
			for _, a := range args {
				path := a
				if st, err := os.Stat(a); err == nil && st.IsDir() {
					path = filepath.Join(a, reports.JSONFile)
				}
				run, err := reports.LoadJSON(path)
				if err != nil {
					return fmt.Errorf("report merge: %w", err)
				}
				runs = append(runs, run)
			}
			run, err := reports.Merge(runs...)
			if err != nil {
				return err
			}
			if baseline != "" {
				entries, err := reports.LoadBaseline(baseline)
				if err != nil {
					return err
				}
				reports.ApplyBaseline(run, entries)
			}
			if err := reports.WriteAll(out, run); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "toolwire report merge: %d shards, reports in %s\n", len(runs), out)
			fmt.Fprintln(cmd.OutOrStdout(), reports.VerdictLine(run))
			if code := run.Verdict().ExitCode(); code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "report-dir", "reports/out", "where to write the merged reports")
	cmd.Flags().StringVar(&baseline, "baseline", "", "expected-failures YAML, applied to the merged run (give it here rather than to each shard)")
	return cmd
}

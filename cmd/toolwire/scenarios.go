package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider/scenario"
)

func newScenariosCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "Work with scenario files",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE|DIR...",
		Short: "Report every problem in every scenario file at once (file:line: field: message); exit 1 if any",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := scenarioFiles(args)
			if err != nil {
				return err
			}
			bad := 0
			for _, f := range files {
				data, err := scenario.ReadFile(f)
				if err != nil {
					// Not a regular file, too large, unreadable: a
					// problem of this file, reported with the rest.
					fmt.Fprintln(cmd.OutOrStdout(), err.Error())
					bad++
					continue
				}
				probs := scenario.Validate(f, data)
				for _, p := range probs {
					fmt.Fprintln(cmd.OutOrStdout(), p.Error())
				}
				if len(probs) > 0 {
					bad++
				}
			}
			if bad > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d files have problems\n", bad, len(files))
				return exitError{code: 1}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d files valid\n", len(files))
			return nil
		},
	})
	return cmd
}

// scenarioFiles expands directories into their .yaml/.yml files.
func scenarioFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
				out = append(out, filepath.Join(a, e.Name()))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenario files (.yaml, .yml) in %s", strings.Join(args, ", "))
	}
	return out, nil
}

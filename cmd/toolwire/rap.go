package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider/rap/rapcmd"
)

// newRAPCommand is `toolwire rap invoke TOOL_URL OPERATION ARGS_JSON`: a
// MUST violation by the tool exits 1, after the outcome is printed.
func newRAPCommand() *cobra.Command {
	cmd := rapcmd.Command()
	for _, sub := range cmd.Commands() {
		run := sub.RunE
		sub.RunE = func(c *cobra.Command, args []string) error {
			err := run(c, args)
			if errors.Is(err, rapcmd.ErrMustViolation) {
				return exitError{1}
			}
			return err
		}
	}
	return cmd
}

// Command toolwire is the mock provider (serve), the rule catalog (rules),
// an offline linter for captured requests (check), the RAP runtime driver
// (rap), the conformance suite (conform) and a replay of recorded real
// exchanges judging the mock against them (agree).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider"
)

// exitError carries a process exit code through cobra.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	root := &cobra.Command{
		Use:           "toolwire",
		Short:         "A strict mock of the OpenAI, Anthropic and Gemini tool-calling wire, and a conformance suite for adapters",
		Version:       mockprovider.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCommand(), newRulesCommand(), newCheckCommand(), newRAPCommand(), newConformCommand(), newReportCommand(), newScenariosCommand(), newAgreeCommand())
	if err := root.Execute(); err != nil {
		if e, ok := err.(exitError); ok {
			os.Exit(e.code)
		}
		fmt.Fprintln(os.Stderr, "toolwire:", err)
		os.Exit(2)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

func newCheckCommand() *cobra.Command {
	var (
		dialect string
		model   string
		asJSON  bool
		opts    rules.Options
	)
	cmd := &cobra.Command{
		Use:   "check --dialect D FILE",
		Short: "Lint a captured request body offline with the mock's rules (exit 1 on a MUST violation)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var body []byte
			var err error
			if args[0] == "-" {
				body, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), 64<<20))
			} else {
				body, err = os.ReadFile(args[0])
			}
			if err != nil {
				return err
			}
			vs, _, err := mockprovider.CheckRequest(conv.Dialect(dialect), body, model, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if vs == nil {
					vs = []rules.Violation{}
				}
				if err := enc.Encode(vs); err != nil {
					return err
				}
			} else if len(vs) == 0 {
				fmt.Fprintf(out, "%s: no violations (%s)\n", args[0], dialect)
			} else {
				for _, v := range vs {
					fmt.Fprintf(out, "%s: %s\n", args[0], v)
				}
			}
			if rules.FirstMust(vs) != nil {
				return exitError{1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dialect, "dialect", "", "openai-chat, openai-responses, anthropic or gemini")
	f.StringVar(&model, "model", "", "model name (Gemini: the model is in the URL, not the body)")
	f.BoolVar(&asJSON, "json", false, "print the violations as JSON")
	ruleFlags(cmd, &opts)
	_ = cmd.MarkFlagRequired("dialect")
	return cmd
}

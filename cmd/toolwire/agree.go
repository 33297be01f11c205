package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/agree"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// agreeReport is `toolwire agree --json`.
type agreeReport struct {
	Exchanges int             `json:"exchanges"`
	Counts    map[string]int  `json:"counts"`
	Disagree  []agree.Verdict `json:"disagreements"`
	Skipped   []agree.Verdict `json:"skipped"`
	// Unread counts interactions with other endpoints (embeddings,
	// model lists) and cut-short record-mode exchanges, not replayed.
	Unread int `json:"unread"`
	// Unreadable counts files of a walked directory that were no readable
	// recording (each is named on standard error).
	Unreadable int `json:"unreadable"`
}

func newAgreeCommand() *cobra.Command {
	var (
		asJSON bool
		opts   rules.Options
	)
	cmd := &cobra.Command{
		Use:   "agree PATH...",
		Short: "Replay recorded exchanges with the real APIs through the mock and report each answer that differs (exit 1)",
		Long: `Replays recorded exchanges through an in-process mock and reports every
one where the mock's answer differs from the recorded one: a request the real
API accepted and the mock refused (false-refusal), one it refused and the mock
accepted (missed-refusal), or a refusal with another status or message
(wrong-error). PATH is a file or a directory (walked for .yaml, .yml, .jsonl)
of vcrpy cassettes, toolwire record-mode files (serve --record) or corpus JSON
Lines (testdata/corpus). Recorded 401/403/429/5xx answers are skipped: they say
nothing about the request. Exit 1 when any exchange disagrees.`,
		Args: cobra.MinimumNArgs(1),
		// Exit 1 is a verdict, not a misuse: no usage text after the report.
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			loaded, err := agree.Load(args...)
			if err != nil {
				return err
			}
			for _, e := range loaded.Unreadable {
				fmt.Fprintln(cmd.ErrOrStderr(), "toolwire agree: unreadable, not replayed:", e)
			}
			exs := loaded.Exchanges
			if len(exs) == 0 {
				return fmt.Errorf("no exchange with a generation endpoint in %v (%d other interactions, %d unreadable files)", args, loaded.Unread, len(loaded.Unreadable))
			}
			m := mockprovider.New(mockprovider.Options{Rules: opts})
			defer m.Close()
			rp := &agree.Replayer{Handler: m}
			rep := agreeReport{Exchanges: len(exs), Counts: map[string]int{}, Disagree: []agree.Verdict{}, Skipped: []agree.Verdict{}, Unread: loaded.Unread, Unreadable: len(loaded.Unreadable)}
			for _, ex := range exs {
				v := rp.Judge(ex)
				rep.Counts[string(v.Kind)]++
				switch v.Kind {
				case agree.Agree:
				case agree.Skipped:
					rep.Skipped = append(rep.Skipped, v)
				default:
					rep.Disagree = append(rep.Disagree, v)
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				writeAgreeText(out, rep)
			}
			if len(rep.Disagree) > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	ruleFlags(cmd, &opts)
	return cmd
}

func writeAgreeText(w io.Writer, rep agreeReport) {
	for _, v := range rep.Disagree {
		fmt.Fprintf(w, "DISAGREE %s %s\n", v.Kind, v.ID)
		fmt.Fprintf(w, "  request:  POST %s (%s)\n", v.Path, v.Dialect)
		fmt.Fprintf(w, "  recorded: %s\n", v.Recorded)
		fmt.Fprintf(w, "  mock:     %s\n", v.Mock)
		if v.Note != "" {
			fmt.Fprintf(w, "  note:     %s\n", v.Note)
		}
		fmt.Fprintf(w, "  excerpt:  %s\n\n", v.Excerpt)
	}
	for _, v := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", v.ID, v.Note)
	}
	fmt.Fprintf(w, "%d exchanges: %d agree, %d false-refusal, %d missed-refusal, %d wrong-error, %d skipped",
		rep.Exchanges, rep.Counts[string(agree.Agree)], rep.Counts[string(agree.FalseRefusal)], rep.Counts[string(agree.MissedRefusal)],
		rep.Counts[string(agree.WrongError)], rep.Counts[string(agree.Skipped)])
	if rep.Unread > 0 {
		fmt.Fprintf(w, " (%d interactions with other endpoints not replayed)", rep.Unread)
	}
	if rep.Unreadable > 0 {
		fmt.Fprintf(w, " (%d unreadable files)", rep.Unreadable)
	}
	fmt.Fprintln(w)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite"
)

// catalog is every rule toolwire knows: the ones the mock checks on each
// request (and the RAP runtime on each callback), and the ones the suite
// judges from what only a scenario knows.
func catalog() []rules.Rule {
	mock := mockprovider.New(mockprovider.Options{})
	defer mock.Close()
	return rules.NewCatalog(mock.Catalog().All(), suite.Rules(), suite.RAPRules(), suite.FormatRules()).All()
}

func newRulesCommand() *cobra.Command {
	var asJSON, asMarkdown, wide bool
	var dialect string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print the rule catalog (ID, dialect, level, summary, why, source)",
		Long: `Print the rule catalog. The table fits 100 columns: ID, level and the summary
(cut with …). --wide prints whole summaries, why each rule has its level
(a MUST: the real API refuses the breach, or data the model needs is lost on
the way; a SHOULD: neither need follow) and the sources; --json and
--markdown print every field.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var list []rules.Rule
			all := catalog()
			if dialect != "" {
				var valid []string
				for _, r := range all {
					if !slices.Contains(valid, string(r.Dialect)) {
						valid = append(valid, string(r.Dialect))
					}
				}
				if !slices.Contains(valid, dialect) {
					return fmt.Errorf("unknown dialect %q (valid: %s)", dialect, strings.Join(valid, ", "))
				}
			}
			for _, r := range all {
				if dialect == "" || string(r.Dialect) == dialect {
					list = append(list, r)
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			if asMarkdown {
				fmt.Fprintln(out, "| rule | dialect | level | summary | why | source |")
				fmt.Fprintln(out, "|---|---|---|---|---|---|")
				cell := strings.NewReplacer("|", `\|`, "\n", " ")
				for _, r := range list {
					fmt.Fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", r.ID, r.Dialect, r.Level, cell.Replace(r.Summary), cell.Replace(levelWhy(r)), cell.Replace(markdownRefs(r.Refs)))
				}
				return nil
			}
			if wide {
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tLEVEL\tSUMMARY\tWHY\tSOURCE")
				for _, r := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Level, oneLine(r.Summary), levelWhy(r), r.Source)
				}
				return tw.Flush()
			}
			printNarrowTable(out, list)
			return nil
		},
	}
	cmd.Flags().BoolVar(&wide, "wide", false, "print whole summaries and the sources (lines wider than the terminal)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&asMarkdown, "markdown", false, "print a Markdown table (docs/rules.md is this output)")
	cmd.Flags().StringVar(&dialect, "dialect", "", "only this dialect (openai-chat, openai-responses, anthropic, gemini, bedrock, rap)")
	return cmd
}

// levelWhy says why a rule has its level: the rule's own reason (the
// suite's checks give one), or, for a request rule the mock checks, what
// its level means there — a MUST is answered with the API's own refusal,
// a SHOULD is journaled and answered normally.
func levelWhy(r rules.Rule) string {
	switch {
	case r.Why != "":
		return r.Why
	case r.Check == nil:
		return ""
	case r.Level == rules.MUST:
		return "the real API refuses it"
	}
	return "the real API accepts it: journaled, not refused"
}

// tableWidth is the width the terminal table of the catalog fits in.
const tableWidth = 100

// printNarrowTable prints ID, level and summary in tableWidth columns,
// cutting summaries with "…".
func printNarrowTable(out io.Writer, list []rules.Rule) {
	idWidth := len("ID")
	for _, r := range list {
		idWidth = max(idWidth, utf8.RuneCountInString(r.ID))
	}
	const levelWidth = len("SHOULD")
	summaryWidth := max(tableWidth-idWidth-levelWidth-4, 10)
	line := func(id, level, summary string) {
		fmt.Fprintf(out, "%-*s  %-*s  %s\n", idWidth, id, levelWidth, level, strings.TrimRight(summary, " "))
	}
	line("ID", "LEVEL", "SUMMARY")
	for _, r := range list {
		line(r.ID, string(r.Level), truncateRunes(oneLine(r.Summary), summaryWidth))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncateRunes cuts s to n runes, the last one "…" when anything is cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// markdownRefs renders a rule's references with their URLs and
// repository files as links (files relative to docs/, where the catalog is
// published), each followed by its quote, and [I] where the fact is
// inferred.
func markdownRefs(refs []rules.Ref) string {
	parts := make([]string, 0, len(refs))
	for _, ref := range refs {
		var b strings.Builder
		switch {
		case strings.HasPrefix(ref.URL, "https://"), strings.HasPrefix(ref.URL, "http://"):
			label := strings.TrimPrefix(strings.TrimPrefix(ref.URL, "https://"), "http://")
			b.WriteString("[" + label + "](" + ref.URL + ")")
		case ref.URL != "":
			b.WriteString("[" + ref.URL + "](../" + ref.URL + ")")
		}
		switch {
		case ref.Quote != "" && ref.URL != "":
			b.WriteString(" (" + ref.Quote + ")")
		case ref.Quote != "":
			b.WriteString(ref.Quote)
		}
		if ref.Inferred {
			b.WriteString(" [I]")
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "; ")
}

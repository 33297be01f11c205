package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// readmeFlagTables returns the flags named in the first cell of the
// README's table rows, for the conformance section and for the rest
// (serve's flags).
func readmeFlagTables(t *testing.T) (conform, serve []string) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flag := regexp.MustCompile("`(--[a-z0-9-]+)")
	section, fence := "", false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fence = !fence
		case fence:
		case strings.HasPrefix(line, "## "):
			section = line
		case strings.HasPrefix(line, "|"):
			// A cell may hold an escaped pipe ("python\|node").
			cells := strings.Split(strings.ReplaceAll(line, `\|`, "/"), "|")
			for _, m := range flag.FindAllStringSubmatch(cells[1], -1) {
				if strings.HasPrefix(section, "## Conformance") {
					conform = append(conform, m[1])
				} else {
					serve = append(serve, m[1])
				}
			}
		}
	}
	return conform, serve
}

func helpFlags(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { out = append(out, "--"+f.Name) })
	return out
}

// The README's flag tables and --help list the same flags for serve and
// conform: a flag added to one and not the other fails here.
func TestReadmeFlagTablesMatchHelp(t *testing.T) {
	conform, serve := readmeFlagTables(t)
	for _, tc := range []struct {
		name   string
		readme []string
		cmd    *cobra.Command
	}{{"conform", conform, newConformCommand()}, {"serve", serve, newServeCommand()}} {
		help := helpFlags(tc.cmd)
		for _, f := range help {
			if !slices.Contains(tc.readme, f) {
				t.Errorf("%s %s is in --help but in no README flag table", tc.name, f)
			}
		}
		for _, f := range tc.readme {
			if !slices.Contains(help, f) {
				t.Errorf("README lists %s %s, which --help does not have", tc.name, f)
			}
		}
	}
}

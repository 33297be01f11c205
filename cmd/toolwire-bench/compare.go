package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// `toolwire-bench compare LABEL=FILE,FILE… [LABEL=FILE,…]` sets builds side
// by side (or gives one build's medians over several runs): for each label (a build), the median over its bench.json files
// (its runs) of every headline ratio and every long-conversation ratio,
// and each later build's median over the first's. scripts/bench-compare.sh
// runs the builds alternately and calls it.

// build is one labelled build's runs.
type build struct {
	label string
	runs  []*Result
}

// cmpCell is one figure across builds: the median of each build's runs,
// their values in run order, and each build's median over the first's.
type cmpCell struct {
	medians []float64
	values  [][]float64
	factors []float64 // factors[0] is 1
}

func compareCell(builds []build, value func(*Result) (float64, bool)) cmpCell {
	var c cmpCell
	for _, b := range builds {
		var vs []float64
		for _, r := range b.runs {
			if v, ok := value(r); ok {
				vs = append(vs, v)
			}
		}
		c.values = append(c.values, vs)
		m := 0.0
		if len(vs) > 0 {
			m = medianCopy(vs)
		}
		c.medians = append(c.medians, m)
	}
	for _, m := range c.medians {
		f := 0.0
		if c.medians[0] > 0 {
			f = round(m / c.medians[0])
		}
		c.factors = append(c.factors, f)
	}
	return c
}

func runCompare(args []string, w io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: toolwire-bench compare LABEL=bench.json[,bench.json…] [LABEL=…] (the first build is the reference)")
	}
	var builds []build
	for _, a := range args {
		label, files, ok := strings.Cut(a, "=")
		if !ok || label == "" || files == "" {
			return fmt.Errorf("compare: %q is not LABEL=FILE[,FILE…]", a)
		}
		b := build{label: label}
		for _, f := range strings.Split(files, ",") {
			data, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("compare: %w", err)
			}
			var r Result
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("compare: %s: %w", f, err)
			}
			b.runs = append(b.runs, &r)
		}
		builds = append(builds, b)
	}
	printCompare(w, builds)
	return nil
}

// comparison prints builds side by side.
type comparison []build

// header is a table's first line: first, then a column per build.
func (bs comparison) header(tw io.Writer, first string) {
	fmt.Fprint(tw, first)
	for i, b := range bs {
		fmt.Fprintf(tw, "\t%s (%d runs)", b.label, len(b.runs))
		if i > 0 {
			fmt.Fprintf(tw, ", × %s", bs[0].label)
		}
	}
	fmt.Fprintln(tw, "\t")
}

// row is a table's line: first, then c's median, runs and factor per build.
func (bs comparison) row(tw io.Writer, first string, c cmpCell) {
	fmt.Fprint(tw, first)
	for i := range bs {
		if len(c.values[i]) == 0 {
			fmt.Fprint(tw, "\tnot measured")
			continue
		}
		parts := make([]string, len(c.values[i]))
		for j, v := range c.values[i] {
			parts[j] = strconv.FormatFloat(v, 'f', -1, 64)
		}
		fmt.Fprintf(tw, "\t%s (%s)", strconv.FormatFloat(c.medians[i], 'f', -1, 64), strings.Join(parts, " "))
		if i > 0 && len(c.values[0]) > 0 {
			fmt.Fprintf(tw, " = %.2f×", c.factors[i])
		}
	}
	fmt.Fprintln(tw, "\t")
}

// table prints one figure's rows, unless no build measured it.
func (bs comparison) table(w io.Writer, title, first string, names []string, rows []cmpCell) {
	measured := false
	for _, c := range rows {
		for _, vs := range c.values {
			measured = measured || len(vs) > 0
		}
	}
	if !measured {
		return
	}
	fmt.Fprintln(w, title+"; median of the runs (each run)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	bs.header(tw, first)
	for i, c := range rows {
		bs.row(tw, names[i], c)
	}
	_ = tw.Flush()
}

func printCompare(w io.Writer, builds []build) {
	bs := comparison(builds)
	// The long-conversation cells any run measured, in the order the
	// first run that has them lists them.
	type cellKey struct {
		d      string
		rounds int
	}
	var cells []cellKey
	seen := map[cellKey]bool{}
	headlines := false
	for _, b := range bs {
		for _, r := range b.runs {
			headlines = headlines || len(r.Dialects) > 0
			if r.Long == nil {
				continue
			}
			for _, row := range r.Long.Rows {
				if k := (cellKey{row.Dialect, row.Rounds}); !seen[k] {
					seen[k] = true
					cells = append(cells, k)
				}
			}
		}
	}
	headline := func(title string, value func(DialectStats) float64) {
		var names []string
		var rows []cmpCell
		for _, d := range conv.Dialects {
			names = append(names, string(d))
			rows = append(rows, compareCell(bs, func(r *Result) (float64, bool) {
				v := value(r.Dialects[string(d)])
				return v, v > 0
			}))
		}
		bs.table(w, title, "dialect", names, rows)
	}
	long := func(title string, value func(LongRow) float64) {
		var names []string
		var rows []cmpCell
		for _, k := range cells {
			names = append(names, fmt.Sprintf("%s\t%d", k.d, k.rounds))
			rows = append(rows, compareCell(bs, func(r *Result) (float64, bool) {
				if r.Long == nil {
					return 0, false
				}
				for _, row := range r.Long.Rows {
					if row.Dialect == k.d && row.Rounds == k.rounds {
						v := value(row)
						return v, v > 0
					}
				}
				return 0, false
			}))
		}
		bs.table(w, title, "dialect\trounds", names, rows)
	}
	if headlines { // a run from --long-only has none
		headline("first turn: headline ratio to the plain baseline (call and result turns alternating, median of each run's rounds)",
			func(st DialectStats) float64 { return st.Ratio })
		headline("first turn, CPU: the baseline's server CPU per request ÷ the mock's (steadier on a shared machine; needs the mock's CPU time)",
			func(st DialectStats) float64 { return st.CPURatio })
	}
	if len(cells) > 0 { // nor has one with --long-rounds ''
		long("long conversations: ratio to a baseline reading the same body",
			func(r LongRow) float64 { return r.Ratio })
		long("long conversations, CPU: the baseline's server CPU per request ÷ the mock's",
			func(r LongRow) float64 { return r.CPURatio })
	}
}

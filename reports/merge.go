package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shard is one part of a run split across machines: Index of Total,
// 1-based ("2/4"). A shard takes every Total-th scenario run of the plan,
// starting at its Index, so the shards of one plan never overlap and
// together cover it.
type Shard struct {
	Index, Total int
}

// ParseShard reads "i/n" (1 ≤ i ≤ n); "" is the whole run.
func ParseShard(s string) (Shard, error) {
	if strings.TrimSpace(s) == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	total, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || total < 1 || index < 1 || index > total {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n (e.g. 2/4)", s)
	}
	return Shard{Index: index, Total: total}, nil
}

// Whole reports whether the shard is the whole run.
func (s Shard) Whole() bool { return s.Total <= 1 }

// Takes reports whether the k-th (0-based) scenario run of the plan
// belongs to the shard.
func (s Shard) Takes(k int) bool { return s.Whole() || k%s.Total == s.Index-1 }

func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Total)
}

// Merge joins the runs of the shards of one conformance run into the run
// the whole plan would have given: the results of every shard, the
// dialects and features of all, the earliest date and the longest
// duration (shards run side by side). The shards must describe the same
// implementation, toolwire version, mode and strictness, and no scenario
// run may appear in two of them. A baseline entry is unmatched only if no
// shard matched it.
func Merge(runs ...*Run) (*Run, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("reports: nothing to merge")
	}
	first := runs[0]
	out := &Run{Implementation: first.Implementation, ToolwireVersion: first.ToolwireVersion, Date: first.Date, Mode: first.Mode, Strict: first.Strict}
	owner := map[string]int{}
	unmatched := map[string]int{}
	for i, r := range runs {
		if r.Implementation != first.Implementation || r.ToolwireVersion != first.ToolwireVersion || r.Mode != first.Mode || r.Strict != first.Strict {
			return nil, fmt.Errorf("reports: run %d is not a shard of the same run as run 1 (implementation, toolwire version, mode or strictness differ)", i+1)
		}
		if r.Date.Before(out.Date) {
			out.Date = r.Date
		}
		out.Duration = max(out.Duration, r.Duration)
		out.Dialects = union(out.Dialects, r.Dialects)
		out.Features = union(out.Features, r.Features)
		seen := map[string]bool{}
		for _, res := range r.Results {
			key := res.Scenario + "/" + res.Dialect + "/" + StreamMode(res.Stream)
			if o, ok := owner[key]; ok && o != i && !seen[key] {
				return nil, fmt.Errorf("reports: %s is in runs %d and %d: shards overlap", key, o+1, i+1)
			}
			owner[key], seen[key] = i, true
			out.Results = append(out.Results, res)
		}
		for _, b := range r.UnmatchedBaseline {
			unmatched[b]++
		}
	}
	// The order of one run: dialect by dialect, then scenario, then
	// non-streamed before streamed; rules keep their order.
	rank := func(r Result) (int, string, bool) { return slices.Index(out.Dialects, r.Dialect), r.Scenario, r.Stream }
	slices.SortStableFunc(out.Results, func(a, b Result) int {
		da, sa, ta := rank(a)
		db, sb, tb := rank(b)
		switch {
		case da != db:
			return da - db
		case sa != sb:
			return strings.Compare(sa, sb)
		case ta != tb && !ta:
			return -1
		case ta != tb:
			return 1
		}
		return 0
	})
	for b, n := range unmatched {
		if n == len(runs) {
			out.UnmatchedBaseline = append(out.UnmatchedBaseline, b)
		}
	}
	slices.Sort(out.UnmatchedBaseline)
	return out, nil
}

// union adds the items of b missing from a, keeping a's order.
func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}

package agree_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/agree"
	"github.com/toolwire/toolwire/mockprovider/conv"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/known_disagreements.yaml with the disagreements seen now (the excused ones stay in exceptions.yaml)")

const corpusDir = "../../testdata/corpus"

const knownHeader = `Disagreements between the mock and the real APIs on the corpus that are
known and to be fixed in the dialects. TestCorpus fails on a disagreement
not listed here or in exceptions.yaml, and on an entry here that now agrees
(remove it: the fix landed). Regenerate with
  go test ./mockprovider/agree -run TestCorpus -update
"mock" is what the mock answered when the entry was written.`

// TestCorpus replays every exchange of the corpus (real requests recorded
// by open-source projects, with what the real API answered) through a mock
// on a loopback port: a request the real API accepted must be accepted, one
// it refused must be refused with the same status and message, or the
// exchange must be listed (known_disagreements.yaml: to fix;
// exceptions.yaml: what the mock cannot model, and why).
func TestCorpus(t *testing.T) {
	loaded, err := agree.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range loaded.Unreadable {
		t.Error(e)
	}
	exs := loaded.Exchanges
	if len(exs) < 100 {
		t.Fatalf("corpus has %d exchanges; it should have hundreds", len(exs))
	}
	known, err := agree.LoadListed(filepath.Join(corpusDir, "known_disagreements.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	excused, err := agree.LoadListed(filepath.Join(corpusDir, "exceptions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]agree.Listed{}
	for _, l := range append(append([]agree.Listed{}, known...), excused...) {
		if _, dup := listed[l.ID]; dup {
			t.Errorf("%s is in both lists", l.ID)
		}
		listed[l.ID] = l
	}

	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	rp := &agree.Replayer{BaseURL: ts.URL, Client: ts.Client()}
	type tally map[string]int
	counts := map[conv.Dialect]tally{}
	ids := map[string]bool{}
	var fresh []agree.Listed
	var unlisted []string
	for _, ex := range exs {
		if ids[ex.ID] {
			t.Errorf("exchange id %s is not unique", ex.ID)
		}
		ids[ex.ID] = true
		v := rp.Judge(ex)
		if counts[ex.Dialect] == nil {
			counts[ex.Dialect] = tally{}
		}
		l, isListed := listed[ex.ID]
		switch {
		case v.Kind == agree.Agree || v.Kind == agree.Skipped:
			counts[ex.Dialect][string(v.Kind)]++
			if isListed {
				t.Errorf("stale entry: %s is listed (%s) but the mock now agrees (%s): remove it", ex.ID, l.Category, v.Mock)
			}
			continue
		case isListed && l.Excused():
			counts[ex.Dialect]["excused"]++
		default:
			counts[ex.Dialect][string(v.Kind)]++
		}
		entry := agree.Listed{ID: ex.ID, Kind: v.Kind, Mock: v.Mock.String(), Category: agree.ToFix(v.Kind)}
		if isListed {
			entry.Category = l.Category
			t.Logf("listed: %s [%s, %s] mock: %s", ex.ID, v.Kind, l.Category, v.Mock)
		} else {
			unlisted = append(unlisted, report(v))
		}
		if !isListed || !l.Excused() {
			fresh = append(fresh, entry)
		}
	}
	for id := range listed {
		if !ids[id] {
			t.Errorf("listed %s is not in the corpus", id)
		}
	}

	var sum strings.Builder
	fmt.Fprintf(&sum, "%d exchanges\n%-17s %6s %14s %15s %12s %8s %8s\n", len(exs), "api", "agree", "false-refusal", "missed-refusal", "wrong-error", "excused", "skipped")
	dialects := make([]string, 0, len(counts))
	for d := range counts {
		dialects = append(dialects, string(d))
	}
	sort.Strings(dialects)
	for _, d := range dialects {
		c := counts[conv.Dialect(d)]
		fmt.Fprintf(&sum, "%-17s %6d %14d %15d %12d %8d %8d\n", d, c["agree"], c["false-refusal"], c["missed-refusal"], c["wrong-error"], c["excused"], c["skipped"])
	}
	t.Log("\n" + sum.String())

	if *update {
		if err := agree.WriteListed(filepath.Join(corpusDir, "known_disagreements.yaml"), knownHeader, fresh); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d entries", len(fresh))
		return
	}
	for _, u := range unlisted {
		t.Errorf("new disagreement (fix the dialect, or list it with its reason):\n%s", u)
	}
}

func report(v agree.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s [%s] %s %s\n", v.ID, v.Kind, v.Dialect, v.Path)
	fmt.Fprintf(&b, "    recorded: %s\n    mock:     %s\n", v.Recorded, v.Mock)
	if v.Note != "" {
		fmt.Fprintf(&b, "    note:     %s\n", v.Note)
	}
	fmt.Fprintf(&b, "    request:  %s", v.Excerpt)
	return b.String()
}

// The README states the corpus's size; it must be the corpus's.
func TestReadmeStatesTheCorpusSize(t *testing.T) {
	loaded, err := agree.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	exs := loaded.Exchanges
	n := map[conv.Dialect]int{}
	for _, ex := range exs {
		n[ex.Dialect]++
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("holds %d real exchanges\n(%d Chat Completions, %d Responses, %d Anthropic Messages, %d Gemini;",
		len(exs), n[conv.OpenAIChat], n[conv.OpenAIResponses], n[conv.Anthropic], n[conv.Gemini])
	if !strings.Contains(string(readme), want) {
		t.Errorf("README should say %q", want)
	}
}

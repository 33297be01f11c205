package suite_test

import (
	"context"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/refdriver/dialects"
	"github.com/toolwire/toolwire/suite/reference"
)

// selftestMock is the mock with the built-in scenarios plus the suite's
// own self-test scenarios.
func selftestMock(t testing.TB) mockprovider.Options {
	t.Helper()
	set, err := mockprovider.LoadScenarios("testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	return mockprovider.Options{Scenarios: set}
}

// TestReferenceDriverConformant: the honest reference driver passes every
// rule of every scenario on every dialect, streamed and not.
func TestReferenceDriverConformant(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Parallel: 4, Mock: selftestMock(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run := h.RunAll(context.Background())
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range run.Results {
		if r.Outcome != reports.Pass && r.Outcome != reports.NotExercised {
			t.Errorf("%s %s/%s/%s %s: %s (expected %q, got %q)", r.Outcome, r.Scenario, r.Dialect, reports.StreamMode(r.Stream), r.Rule, r.Message, r.Expected, r.Got)
		}
	}
	if v := run.Verdict(); v != reports.VerdictConformant {
		t.Errorf("verdict %s", v)
	}
}

// killName names a kill case by its break and mock configuration.
func killName(kc refdriver.Expectation) string {
	n := string(kc.Break)
	if kc.StrictRoles {
		n += "/strict-roles"
	}
	if kc.GeminiCallIDs {
		n += "/gemini-call-ids"
	}
	return n
}

// killScenarios is the representative subset the variants run on.
var killScenarios = []string{"single-call", "parallel-same-tool", "parallel-different-tools", "error-result", "unknown-tool", "malformed-arguments",
	"image-result", "document-results", "structured-content", "reasoning-pass-back", "gemini3-signature-single", "selftest-gemini2-image",
	"text-alongside-call", "multi-turn-chain"}

func matchAny(patterns []string, id string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

// killMock is the self-test mock configured for one kill case.
func killMock(base mockprovider.Options, kc refdriver.Expectation) mockprovider.Options {
	opts := base
	opts.Rules = rules.DefaultOptions()
	opts.Rules.StrictRoles = kc.StrictRoles
	if kc.GeminiCallIDs {
		opts.Dialects = []dialect.Dialect{openaichat.New(), openairesp.New(), anthropic.New(), &gemini.Dialect{EmitCallIDs: true}, bedrock.New()}
	}
	return opts
}

// TestReferenceDriverPassesKillMocks: the honest driver passes against
// every mock configuration the kill matrix uses, so a variant's failures
// there come from its mistake, not from the configuration.
func TestReferenceDriverPassesKillMocks(t *testing.T) {
	opts := selftestMock(t)
	for _, kc := range []refdriver.Expectation{{Kill: refdriver.Kill{StrictRoles: true}}, {Kill: refdriver.Kill{GeminiCallIDs: true}}} {
		t.Run(killName(kc), func(t *testing.T) {
			t.Parallel()
			h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Parallel: 4, Scenarios: killScenarios, Mock: killMock(opts, kc)})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for _, r := range h.RunAll(context.Background()).Results {
				if r.Outcome != reports.Pass && r.Outcome != reports.NotExercised {
					t.Errorf("%s %s/%s/%s %s: %s", r.Outcome, r.Scenario, r.Dialect, reports.StreamMode(r.Stream), r.Rule, r.Message)
				}
			}
		})
	}
}

// TestKillMatrix: every break variant fails the rules it should and no
// others, and every request rule and scenario check of the four provider
// dialects is failed by at least one variant: a rule nobody can fail is a
// rule the suite cannot prove it checks. (RAP rules are failed by the
// reference tool's variants, in the RAP tool matrix.)
func TestKillMatrix(t *testing.T) {
	opts := selftestMock(t)
	var mu sync.Mutex
	failedBy := map[string][]string{}
	t.Run("variants", func(t *testing.T) {
		for _, kc := range dialects.Expectations() {
			t.Run(killName(kc), func(t *testing.T) {
				t.Parallel()
				scenarios := killScenarios
				if kc.Scenarios != nil {
					scenarios = kc.Scenarios
				}
				h, err := suite.New(suite.Config{Driver: reference.Driver(kc.Break), Parallel: 4, Dialects: kc.Dialects, Scenarios: scenarios,
					Streams: []bool{false}, Mock: killMock(opts, kc)})
				if err != nil {
					t.Fatal(err)
				}
				defer h.Close()
				run := h.RunAll(context.Background())
				failed := map[string][]string{}
				for _, r := range run.Results {
					if r.Outcome == reports.Error {
						t.Errorf("harness error %s/%s %s: %s", r.Scenario, r.Dialect, r.Rule, r.Message)
					}
					if r.Outcome == reports.Fail || r.Outcome == reports.Warn {
						failed[r.Rule] = append(failed[r.Rule], r.Scenario)
						if p, rest, ok := strings.Cut(r.Message, ": "); ok && strings.HasPrefix(rest, p+":") {
							t.Errorf("%s/%s %s: path repeated in %q", r.Scenario, r.Dialect, r.Rule, r.Message)
						}
					}
				}
				mu.Lock()
				for id := range failed {
					failedBy[id] = append(failedBy[id], killName(kc))
				}
				mu.Unlock()
				for _, w := range kc.Fails {
					hit := false
					for id := range failed {
						if ok, _ := path.Match(w, id); ok {
							hit = true
						}
					}
					if !hit {
						t.Errorf("no failure of %s", w)
					}
				}
				// A correct variant (nothing in Fails) makes no mistake for
				// collateral failures to follow from.
				collateral := refdriver.Collateral
				if len(kc.Fails) == 0 {
					collateral = nil
				}
				for id, scs := range failed {
					if !matchAny(kc.Fails, id) && !matchAny(kc.MayFail, id) && !matchAny(collateral, id) {
						t.Errorf("unexpected failure of %s in %v", id, scs)
					}
				}
			})
		}
	})
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Mock: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var unkilled []string
	for _, d := range conv.Dialects {
		for _, r := range h.RulesFor(d) {
			if len(failedBy[r.ID]) == 0 {
				unkilled = append(unkilled, r.ID)
			}
		}
	}
	sort.Strings(unkilled)
	if len(unkilled) > 0 {
		t.Errorf("rules no break variant fails (%d): %s", len(unkilled), strings.Join(unkilled, ", "))
	}
	var rap []string
	for _, r := range h.Mock().Catalog().ForDialect(conv.RAP) {
		rap = append(rap, r.ID)
	}
	t.Logf("%d rap.* rules are covered by the RAP tool matrix (cmd/toolwire-reftool variants), not here: %s", len(rap), strings.Join(rap, ", "))
	if testing.Verbose() {
		ids := make([]string, 0, len(failedBy))
		for id := range failedBy {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			t.Logf("%-52s %s", id, strings.Join(failedBy[id], ", "))
		}
	}
}

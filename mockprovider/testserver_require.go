package mockprovider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// MustViolations returns the MUST violations journaled for a session, in
// order. SHOULD violations are advice and are left out.
func (ts *TestServer) MustViolations(key string) []rules.Violation {
	var out []rules.Violation
	for _, v := range ts.Violations(key) {
		if v.Level == rules.MUST {
			out = append(out, v)
		}
	}
	return out
}

// RequireNoViolations fails the test when the session's journal holds any
// MUST violation, naming the rule, JSON path and message of each: the
// assertion a test wants after its client code has talked to the mock,
// including in --lenient style runs where the mock answered normally.
//
// A MUST violation the mock can no longer show fails the test too: one
// in an entry the journal dropped (its entry cap, the store's byte
// budget), or, for a session that no longer exists, one in any session
// the store evicted on its own (its session cap, idle expiry, its budget),
// since that may have been this one. A session the test deleted or reset
// itself fails nothing.
func (ts *TestServer) RequireNoViolations(t testing.TB, key string) {
	t.Helper()
	if msg := violationReport(key, ts.MustViolations(key)); msg != "" {
		t.Errorf("%s", msg)
	}
	s, ok := ts.Mock.Sessions().LookupKeyOrID(key)
	if !ok {
		if n, lost := ts.Mock.Sessions().Evicted(); lost.MustViolations > 0 {
			t.Errorf("toolwire: session %q is gone, and the mock evicted %d session(s) whose journals held %d MUST violation(s); raise Options.Limits (MaxSessions, JournalBudget) so they are kept", key, n, lost.MustViolations)
		}
		return
	}
	if info := s.Info(); info.DroppedMust > 0 {
		t.Errorf("toolwire: session %q dropped %d journal entries carrying %d MUST violation(s) (the journal's entry cap or byte budget); raise Options.Limits (JournalEntries, JournalBudget) to see them", key, info.Dropped, info.DroppedMust)
	}
}

// RequireNoViolationsAtCleanup checks every session the test opened when
// the test ends, so no client request can break a MUST rule unnoticed.
// Call it right after NewTestServer; sessions are checked, and named, by
// id (session.ID) in id order.
func (ts *TestServer) RequireNoViolationsAtCleanup(t testing.TB) {
	t.Helper()
	t.Cleanup(func() {
		t.Helper()
		for _, key := range ts.sessionKeys() {
			ts.RequireNoViolations(t, key)
		}
		if n, lost := ts.Mock.Sessions().Evicted(); lost.MustViolations > 0 {
			t.Errorf("toolwire: the mock evicted %d session(s) whose journals held %d MUST violation(s); raise Options.Limits (MaxSessions, JournalBudget) so they are kept", n, lost.MustViolations)
		}
	})
}

func (ts *TestServer) sessionKeys() []string {
	infos := ts.Mock.Sessions().List()
	keys := make([]string, 0, len(infos))
	for _, in := range infos {
		keys = append(keys, in.ID)
	}
	// List orders by recency; a failure message reads better stable.
	slices.Sort(keys)
	return keys
}

func violationReport(key string, vs []rules.Violation) string {
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "toolwire: session %q broke %d MUST rule(s):", key, len(vs))
	for _, v := range vs {
		path := v.Path
		if path == "" {
			path = "(request)"
		}
		fmt.Fprintf(&b, "\n  %s at %s: %s", v.Rule, path, v.Message)
	}
	return b.String()
}

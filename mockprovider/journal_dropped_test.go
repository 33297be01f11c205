package mockprovider_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// tinyBudget keeps a handful of small journal entries across all sessions.
func tinyBudget(budget int64, maxSessions int) session.Limits {
	l := session.DefaultLimits()
	l.JournalBudget, l.MaxSessions = budget, maxSessions
	return l
}

// A session's only MUST violation, dropped from its journal by the store's
// byte budget, is still counted: the journal says so (with entries [] not
// null), and both Require helpers fail instead of passing falsely.
func TestDroppedViolationsAreCountedAndFailTheRequireHelpers(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Limits: tinyBudget(8<<10, 100)})
	fake := &recordingTB{TB: t}
	ts.RequireNoViolationsAtCleanup(fake)
	if code := chat(t, ts, "broken", orphanToolResult); code != http.StatusBadRequest {
		t.Fatalf("orphan tool result answered %d", code)
	}
	for i := 0; i < 20; i++ {
		chat(t, ts, "filler", validChat)
	}
	if len(ts.Journal("broken")) != 0 {
		t.Fatal("the budget kept the broken entry; the test needs a smaller budget")
	}

	var journal struct {
		Entries           []json.RawMessage `json:"entries"`
		DroppedEntries    int               `json:"dropped_entries"`
		DroppedViolations struct {
			Must   int `json:"must"`
			Should int `json:"should"`
		} `json:"dropped_violations"`
	}
	b := getAdminJSON(t, ts, "/_toolwire/sessions/broken/journal")
	if err := json.Unmarshal(b, &journal); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"entries":[]`) || journal.DroppedEntries != 1 || journal.DroppedViolations.Must != 1 {
		t.Errorf("journal of the emptied session: %s", b)
	}
	var info struct {
		Session struct {
			DroppedMust int `json:"dropped_must_violations"`
		} `json:"session"`
		DroppedViolations struct {
			Must int `json:"must"`
		} `json:"dropped_violations"`
	}
	if err := json.Unmarshal(getAdminJSON(t, ts, "/_toolwire/sessions/broken"), &info); err != nil || info.Session.DroppedMust != 1 || info.DroppedViolations.Must != 1 {
		t.Errorf("session view: %+v %v", info, err)
	}

	ts.RequireNoViolations(fake, "broken")
	if len(fake.failures) != 1 || !strings.Contains(fake.failures[0], "dropped") || !strings.Contains(fake.failures[0], "1 MUST") {
		t.Fatalf("RequireNoViolations: %q", fake.failures)
	}
	fake.failures = nil
	fake.runCleanups()
	if len(fake.failures) != 1 || !strings.Contains(fake.failures[0], session.ID("broken")) {
		t.Fatalf("RequireNoViolationsAtCleanup: %q", fake.failures)
	}
	ts.RequireNoViolations(t, "filler") // its own dropped entries carried no violation
}

// A session evicted whole (the session cap) takes its violations with it;
// the store counts them, and the helpers fail rather than report a clean
// run.
func TestEvictedSessionsViolationsFailTheRequireHelpers(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Limits: tinyBudget(1<<20, 2)})
	fake := &recordingTB{TB: t}
	ts.RequireNoViolationsAtCleanup(fake)
	chat(t, ts, "broken", orphanToolResult)
	for i := 0; i < 3; i++ {
		chat(t, ts, fmt.Sprintf("clean-%d", i), validChat)
	}
	if _, ok := ts.Mock.Sessions().Lookup("broken"); ok {
		t.Fatal("the session cap kept the broken session")
	}
	ts.RequireNoViolations(fake, "broken")
	if len(fake.failures) != 1 || !strings.Contains(fake.failures[0], "evicted") {
		t.Fatalf("RequireNoViolations of an evicted session: %q", fake.failures)
	}
	fake.failures = nil
	fake.runCleanups()
	if len(fake.failures) != 1 || !strings.Contains(fake.failures[0], "evicted") {
		t.Fatalf("RequireNoViolationsAtCleanup: %q", fake.failures)
	}

	// Evicting clean sessions loses nothing worth failing for.
	clean := mockprovider.NewTestServer(t, mockprovider.Options{Limits: tinyBudget(1<<20, 2)})
	fake = &recordingTB{TB: t}
	clean.RequireNoViolationsAtCleanup(fake)
	for i := 0; i < 4; i++ {
		chat(t, clean, fmt.Sprintf("clean-%d", i), validChat)
	}
	clean.RequireNoViolations(fake, "clean-0")
	fake.runCleanups()
	if len(fake.failures) != 0 {
		t.Fatalf("clean evicted sessions failed: %q", fake.failures)
	}
}

// An explicitly deleted or reset session is what the test asked for: its
// violations are gone on purpose and fail nothing.
func TestDeletedSessionsFailNothing(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	fake := &recordingTB{TB: t}
	ts.RequireNoViolationsAtCleanup(fake)
	chat(t, ts, "deleted", orphanToolResult)
	chat(t, ts, "reset", orphanToolResult)
	ts.Mock.Sessions().Delete("deleted")
	s, _ := ts.Mock.Sessions().Lookup("reset")
	s.Reset()
	ts.RequireNoViolations(fake, "deleted")
	ts.RequireNoViolations(fake, "reset")
	fake.runCleanups()
	if len(fake.failures) != 0 {
		t.Fatalf("deliberately cleared sessions failed: %q", fake.failures)
	}
}

package mockprovider_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

const chatBody = `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`

func chatPost(t *testing.T, ts *mockprovider.TestServer, key string, hdr map[string]string) int {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + key}
	for k, v := range hdr {
		h[k] = v
	}
	code, _ := rawPost(t, ts.URL+"/v1/chat/completions", h, chatBody)
	return code
}

func TestHeaderFaultCountFailsOnlyTheFirstRequests(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	hdr := map[string]string{mockprovider.FaultHeader: "overloaded;count=2"}
	got := []int{chatPost(t, ts, "k", hdr), chatPost(t, ts, "k", hdr), chatPost(t, ts, "k", hdr)}
	if got[0] != 503 || got[1] != 503 || got[2] != 200 {
		t.Fatalf("statuses %v, want [503 503 200]", got)
	}
	// Another session has its own count.
	if code := chatPost(t, ts, "other", hdr); code != 503 {
		t.Fatalf("a new session's first request: %d, want 503", code)
	}
	entries := ts.Journal("k")
	if len(entries) != 3 || entries[0].Fault != "overloaded" || entries[2].Fault != "" {
		t.Fatalf("journal does not show the faults: %+v", entries)
	}
}

func TestSessionFaultsFromTheAdminAPI(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	if code, body := send(t, http.MethodPost, ts.URL+"/_toolwire/sessions/k/faults", `{"fault":"rate_limit;count=1"}`); code != 200 {
		t.Fatalf("queue: %d %s", code, body)
	}
	if a, b := chatPost(t, ts, "k", nil), chatPost(t, ts, "k", nil); a != 429 || b != 200 {
		t.Fatalf("statuses %d %d, want 429 200", a, b)
	}
}

func TestScenarioTurnFaultRetriesLandOnTheSameTurn(t *testing.T) {
	set, err := scenario.NewSet(&scenario.Scenario{Name: "flaky", Turns: []scenario.Turn{
		{Text: "first answer", Fault: &scenario.Fault{Kind: "server_error", Count: 2}},
		{Text: "second answer"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Scenarios: set})
	hdr := map[string]string{mockprovider.ScenarioHeader: "flaky"}
	got := []int{chatPost(t, ts, "k", hdr), chatPost(t, ts, "k", hdr), chatPost(t, ts, "k", hdr)}
	if got[0] != 500 || got[1] != 500 || got[2] != 200 {
		t.Fatalf("statuses %v, want [500 500 200]", got)
	}
	code, body := rawPost(t, ts.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer k", mockprovider.ScenarioHeader: "flaky"}, chatBody)
	if code != 200 || !contains(body, "first answer") {
		t.Fatalf("the retried turn must be turn 1 again: %d %s", code, body)
	}
}

func TestUnknownFaultKindIsAClearError(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	code, body := rawPost(t, ts.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer k", mockprovider.FaultHeader: "gremlins"}, chatBody)
	if code != 400 || !contains(body, "unknown toolwire fault kind") {
		t.Fatalf("%d %s", code, body)
	}
}

func TestUnknownScenarioNamesTheClosest(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	code, body := rawPost(t, ts.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer k", mockprovider.ScenarioHeader: "single-cal"}, chatBody)
	if code != 400 || !contains(body, `closest: \"single-call\"`) {
		t.Fatalf("%d %s", code, body)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

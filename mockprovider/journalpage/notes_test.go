package journalpage_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/journalpage"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// A scenario turn calling a tool the request did not declare is played,
// and its journal entry carries a warning (admin JSON and page) that is
// not a violation; a turn calling a declared tool carries none.
func TestUndeclaredScenarioCallIsAWarningOnTheJournal(t *testing.T) {
	mock := mockprovider.NewTestServer(t, mockprovider.Options{})
	const warning = `warning: scenario unknown-tool turn 1 calls tool "get_forecast", which the request did not declare (declared: "get_weather")`
	for _, tc := range []struct {
		key, scenario string
		warned        bool
	}{{"undeclared-call", "unknown-tool", true}, {"declared-call", "single-call", false}} {
		req, _ := http.NewRequest(http.MethodPost, mock.OpenAIBaseURL()+"/chat/completions", strings.NewReader(firstTurn))
		req.Header.Set("Authorization", "Bearer "+tc.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(mockprovider.ScenarioHeader, tc.scenario)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", tc.scenario, resp.StatusCode, body)
		}
		if v := mock.Violations(tc.key); len(v) != 0 {
			t.Errorf("%s: the warning must not be a violation: %+v", tc.scenario, v)
		}

		var journal struct {
			Entries []session.Entry `json:"entries"`
		}
		adminJSON := get(t, mock.URL+"/_toolwire/sessions/"+session.ID(tc.key)+"/journal")
		if err := json.Unmarshal([]byte(adminJSON), &journal); err != nil || len(journal.Entries) != 1 {
			t.Fatalf("%s: admin journal %v: %s", tc.scenario, err, adminJSON)
		}
		notes := strings.Join(journal.Entries[0].Notes, "\n")
		if tc.warned && !strings.Contains(notes, warning) {
			t.Errorf("admin journal notes %q lack %q", notes, warning)
		}
		if !tc.warned && strings.Contains(notes, "did not declare") {
			t.Errorf("%s: a declared call was warned about: %q", tc.scenario, notes)
		}

		page := httptestPage(t, mock, tc.key)
		if got := strings.Contains(page, html.EscapeString(warning)); got != tc.warned {
			t.Errorf("%s: page shows the warning = %v, want %v", tc.scenario, got, tc.warned)
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

func httptestPage(t *testing.T, mock *mockprovider.TestServer, key string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/?session="+session.ID(key), nil)
	journalpage.Handler(mock.Mock.Sessions(), mock.Mock.Catalog()).ServeHTTP(rec, req)
	return rec.Body.String()
}

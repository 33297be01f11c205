package journalpage_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/journalpage"
)

// The key names the session; the page must never show it.
const secretKey = "sk-journal-secret-4711"

// A tool loop whose result answers an id the assistant never issued: the
// mistake the page exists to show.
const wrongResultID = `{"model":"gpt-4o-mini","messages":[
 {"role":"user","content":"Weather in Paris?"},
 {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
 {"role":"tool","tool_call_id":"call_2","content":"{\"temperature\":22}"}],
 "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]}`

const firstTurn = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Weather in Paris?"}],
 "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]}`

const streamedTurn = `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"Hello"}]}`

// journaledServer is a mock with one session holding a good first turn, a
// broken second one and a streamed answer, and the page over its store.
func journaledServer(t testing.TB) (page *httptest.Server, mock *mockprovider.TestServer) {
	t.Helper()
	mock = mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, body := range []string{firstTurn, wrongResultID, streamedTurn} {
		postChat(t, mock, secretKey, body)
	}
	if len(mock.MustViolations(secretKey)) == 0 {
		t.Fatal("the wrong result id journaled no MUST violation")
	}
	page = httptest.NewServer(journalpage.Handler(mock.Mock.Sessions(), mock.Mock.Catalog()))
	t.Cleanup(page.Close)
	return page, mock
}

func postChat(t testing.TB, mock *mockprovider.TestServer, key, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mock.OpenAIBaseURL()+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	return resp.StatusCode, string(b)
}

func TestIndexListsSessionsByHashNeverByKey(t *testing.T) {
	page, mock := journaledServer(t)
	code, body := fetch(t, page.URL+"/_toolwire/")
	if code != http.StatusOK {
		t.Fatalf("index: %d", code)
	}
	hash := journalpage.KeyHash(secretKey)
	if !strings.Contains(body, `href="?session=`+hash+`"`) {
		t.Errorf("index lacks a link to session %s:\n%s", hash, body)
	}
	if want := fmt.Sprintf(`<span class="must">%d MUST</span>`, len(mock.MustViolations(secretKey))); !strings.Contains(body, want) {
		t.Errorf("index does not count the MUST violation:\n%s", body)
	}
	if strings.Contains(body, secretKey) {
		t.Error("index shows the API key")
	}
}

func TestSessionPageHighlightsTheViolationAtItsPath(t *testing.T) {
	page, mock := journaledServer(t)
	v := mock.MustViolations(secretKey)[0]
	code, body := fetch(t, page.URL+"/?session="+journalpage.KeyHash(secretKey))
	if code != http.StatusOK {
		t.Fatalf("session page: %d", code)
	}
	if strings.Contains(body, secretKey) {
		t.Error("session page shows the API key")
	}
	rule, _ := mock.Mock.Catalog().Get(v.Rule)
	for _, want := range []string{
		"#1 POST", "#2 POST", "#3 POST", // every exchange, in order
		`<span class="must">MUST</span> <strong><code>` + v.Rule + `</code></strong>`,
		"at <code>" + v.Path + "</code>",
		template(v.Message),
		"<strong>How to fix:</strong> " + template(rule.Summary),
		"data: ", // the streamed answer, event by event
	} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
	// The rule's references, each a link with what it shows.
	for _, ref := range rule.Refs {
		if want := `<a href="` + template(ref.URL) + `">`; ref.URL != "" && !strings.Contains(body, want) {
			t.Errorf("session page lacks the link %q", want)
		}
		if !strings.Contains(body, template(ref.Quote)) {
			t.Errorf("session page lacks the reference's quote %q", ref.Quote)
		}
	}
	if len(rule.Refs) == 0 {
		t.Errorf("%s has no references to show", rule.ID)
	}
	if i, j := strings.Index(body, "#1 POST"), strings.Index(body, "#2 POST"); i > j {
		t.Error("exchanges out of order")
	}
	// Each violation's path is highlighted in the request and its first
	// line names the rule: messages[1].tool_calls (the unanswered call)
	// and messages[2] (the result with the wrong id).
	marked := regexp.MustCompile(`<span class="hit">([^\n]*)<span class="mark">◀ ([^<]*)</span>`).FindAllStringSubmatch(body, -1)
	for _, v := range mock.MustViolations(secretKey) {
		found := false
		for _, m := range marked {
			found = found || strings.Contains(m[2], v.Rule)
		}
		if !found {
			t.Errorf("no highlighted line marks %s at %s; marked: %q", v.Rule, v.Path, marked)
		}
	}
	if len(marked) == 0 || !strings.Contains(marked[len(marked)-1][1], "{") {
		t.Errorf("messages[2] should be marked at its opening brace: %q", marked)
	}
	if n := strings.Count(body, `<span class="hit">`); n < 5 {
		t.Errorf("only %d highlighted lines; the whole offending message should be", n)
	}
}

// template is how html/template writes s into the page.
func template(s string) string {
	r := strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", "+", "&#43;")
	return r.Replace(s)
}

func TestUnknownSessionAndMethod(t *testing.T) {
	page, _ := journaledServer(t)
	if code, body := fetch(t, page.URL+"/?session=000000000000"); code != http.StatusNotFound || !strings.Contains(body, "No session") {
		t.Errorf("unknown session: %d", code)
	}
	resp, err := http.Post(page.URL+"/", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

func TestEmptyStoreSaysHowToStart(t *testing.T) {
	mock := mockprovider.NewTestServer(t, mockprovider.Options{})
	page := httptest.NewServer(journalpage.Handler(mock.Mock.Sessions(), mock.Mock.Catalog()))
	defer page.Close()
	if _, body := fetch(t, page.URL); !strings.Contains(body, "No session yet") {
		t.Errorf("empty index:\n%s", body)
	}
}

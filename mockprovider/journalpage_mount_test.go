package mockprovider_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// The journal page is served at /_toolwire/ and names sessions by hash.
func TestJournalPageMounted(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(`{"model":"gpt-4.1","messages":[{"role":"tool","tool_call_id":"call_x","content":"r"}]}`))
	req.Header.Set("Authorization", "Bearer page-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get := func(url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return string(b)
	}
	index := get(ts.URL + "/_toolwire/")
	id := session.ID("page-key")
	if !strings.Contains(index, id) || strings.Contains(index, "page-key") {
		t.Fatalf("index should name the session %s and never its key:\n%.2000s", id, index)
	}
	detail := get(ts.URL + "/_toolwire/?session=" + id)
	if !strings.Contains(detail, "openai-chat.") {
		t.Fatalf("the session page shows no violated rule:\n%.3000s", detail)
	}
	fake := &recordingTB{TB: t}
	ts.RequireNoViolations(fake, "page-key")
	if len(fake.failures) == 0 {
		t.Fatal("RequireNoViolations passed a session with a MUST violation")
	}
}

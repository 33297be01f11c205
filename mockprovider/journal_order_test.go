package mockprovider_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
)

// A client that stops reading at a stream's last event sends its next
// request while the mock may still be journaling the previous one: the
// journal must list requests in the order they arrived, not in the order
// they finished, or a judge reading it sees the conversation's last turn
// before the one it answers. Here the first request is held back (a
// latency fault) until after a second one, sent once the first is in
// flight, has been answered and journaled.
func TestJournalListsRequestsInArrivalOrder(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	first := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"gpt-4.1","messages":[{"role":"user","content":"first"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set(mockprovider.FaultHeader, "latency;ms=1500;count=1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			first <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	sess := ts.Mock.Sessions().Get("k")
	for deadline := time.Now().Add(10 * time.Second); sess.Settle(0); { // Settle(0) is false while a request is in flight
		if time.Now().After(deadline) {
			t.Fatal("the first request never arrived")
		}
		time.Sleep(time.Millisecond)
	}
	if code, body := rawPost(t, ts.URL+"/v1/chat/completions", map[string]string{"Authorization": "Bearer k"},
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"second"}]}`); code != 200 {
		t.Fatalf("second request: %d %s", code, body)
	}
	if code := <-first; code != 200 {
		t.Fatalf("first request: %d", code)
	}
	entries := ts.Journal("k")
	var got []string
	for _, e := range entries {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.Unmarshal(e.Request, &req)
		if len(req.Messages) == 1 {
			got = append(got, req.Messages[0].Content)
		}
	}
	if strings.Join(got, ",") != "first,second" {
		t.Fatalf("journal order %v, want [first second] (the order the requests arrived)", got)
	}
}

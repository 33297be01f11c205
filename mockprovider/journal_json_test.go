package mockprovider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// A minimal valid generation request per dialect; stream is filled in.
var minimalRequests = map[conv.Dialect]string{
	conv.OpenAIChat:      `{"model":"gpt-4.1","stream":%t,"messages":[{"role":"user","content":"Hi"}]}`,
	conv.OpenAIResponses: `{"model":"gpt-4.1","stream":%t,"input":"Hi"}`,
	conv.Anthropic:       `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":%t,"messages":[{"role":"user","content":"Hi"}]}`,
	conv.Gemini:          `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`,
}

// faultSpecs is every fault kind the mock injects, plus none; the stream
// breakers strike after the first event so the journal holds both.
func faultSpecs() []string {
	specs := []string{""}
	for _, k := range mockprovider.FaultKinds {
		specs = append(specs, k+";after=1")
	}
	return specs
}

// postModel sends one generation request; a fault may cut the answer
// short, which is what is being tested, so transport errors are ignored.
func postModel(t *testing.T, ts *mockprovider.TestServer, d conv.Dialect, key string, stream bool, fault string) {
	t.Helper()
	dl, _ := ts.Mock.Dialect(d)
	client := dl.(dialect.Client)
	body := minimalRequests[d]
	if strings.Contains(body, "%t") {
		body = fmt.Sprintf(body, stream)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+client.Endpoint("gemini-2.5-flash", stream), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	client.SetAuth(req.Header, key)
	if fault != "" {
		req.Header.Set(mockprovider.FaultHeader, fault)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// socketTurn sends one response.create over the Responses WebSocket mode
// and reads until the turn ends or the socket drops.
func socketTurn(t *testing.T, ts *mockprovider.TestServer, key, fault string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hdr := http.Header{"Authorization": {"Bearer " + key}}
	if fault != "" {
		hdr.Set(mockprovider.FaultHeader, fault)
	}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/responses", &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.CloseNow() }()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-4.1","input":"Hi"}`)); err != nil {
		t.Fatal(err)
	}
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			return
		}
		var ev struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(msg, &ev)
		switch ev.Type {
		case "error", "response.completed", "response.failed", "response.incomplete":
			return
		}
	}
}

// getAdminJSON fetches an admin path and fails unless it is a 200 with a
// valid JSON body.
func getAdminJSON(t *testing.T, ts *mockprovider.TestServer, path string) []byte {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !json.Valid(b) {
		t.Errorf("GET %s: %d %.300s", path, resp.StatusCode, b)
	}
	return b
}

// checkAdminAnswers reads every admin GET that names the session, by key
// and by id, and the lists, after the session settled.
func checkAdminAnswers(t *testing.T, ts *mockprovider.TestServer, key string) {
	t.Helper()
	sess, ok := ts.Mock.Sessions().Lookup(key)
	if !ok {
		t.Fatalf("no session for %q", key)
	}
	if !sess.Settle(10 * time.Second) {
		t.Fatalf("session %q did not settle", key)
	}
	for _, name := range []string{url.PathEscape(key), session.ID(key)} {
		getAdminJSON(t, ts, "/_toolwire/sessions/"+name)
		getAdminJSON(t, ts, "/_toolwire/sessions/"+name+"/journal")
	}
	for _, p := range []string{"/_toolwire/health", "/_toolwire/sessions", "/_toolwire/rules", "/_toolwire/scenarios"} {
		getAdminJSON(t, ts, p)
	}
	// The journal page is HTML, of the same entries.
	resp, err := http.Get(ts.URL + "/_toolwire/?session=" + session.ID(key))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("journal page: %d", resp.StatusCode)
	}
}

// Every admin answer is valid JSON whatever the session saw: every dialect,
// streamed or not, under every fault kind, and the Responses WebSocket mode.
// A streamed Chat answer ends in "data: [DONE]" and a malformed_chunk fault
// sends a broken event: neither is JSON, and both once made the journal
// API answer 500 until the entry aged out.
func TestAdminAnswersAreValidJSONWhateverWasSent(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, d := range []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic, conv.Gemini} {
		for _, stream := range []bool{false, true} {
			for _, fault := range faultSpecs() {
				key := fmt.Sprintf("sk-json-%s-%t-%s", d, stream, strings.ReplaceAll(fault, ";", "-"))
				t.Run(key, func(t *testing.T) {
					postModel(t, ts, d, key, stream, fault)
					checkAdminAnswers(t, ts, key)
				})
			}
		}
	}
	for _, fault := range faultSpecs() {
		key := "sk-json-socket-" + strings.ReplaceAll(fault, ";", "-")
		t.Run(key, func(t *testing.T) {
			socketTurn(t, ts, key, fault)
			checkAdminAnswers(t, ts, key)
		})
	}
}

// What was sent survives in the journal: [DONE] and the malformed chunk
// come back as JSON strings flagged raw, the other events as they were.
func TestJournalKeepsNonJSONEventsAsSent(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := "sk-json-done"
	postModel(t, ts, conv.OpenAIChat, key, true, "malformed_chunk;after=1")
	checkAdminAnswers(t, ts, key)
	var got struct {
		Entries []struct {
			Events []struct {
				Event string          `json:"event"`
				Data  json.RawMessage `json:"data"`
				Raw   bool            `json:"raw"`
			} `json:"events"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(getAdminJSON(t, ts, "/_toolwire/sessions/"+key+"/journal"), &got); err != nil || len(got.Entries) != 1 {
		t.Fatalf("journal: %v %+v", err, got)
	}
	evs := got.Entries[0].Events
	if len(evs) < 4 {
		t.Fatalf("events %+v", evs)
	}
	var raws []string
	for _, ev := range evs {
		if ev.Raw {
			var s string
			if err := json.Unmarshal(ev.Data, &s); err != nil {
				t.Fatalf("raw event data %s is not a JSON string", ev.Data)
			}
			raws = append(raws, s)
		} else if len(ev.Data) == 0 || ev.Data[0] != '{' {
			t.Errorf("JSON event data %s", ev.Data)
		}
	}
	if len(raws) != 2 || raws[0] != `{"toolwire": malformed` || raws[1] != "[DONE]" {
		t.Errorf("raw events %q, want the malformed chunk and [DONE] as sent", raws)
	}
	// In process, the data is the bytes as sent.
	j := ts.Journal(key)
	last := j[0].Events[len(j[0].Events)-1]
	if string(last.Data) != "[DONE]" || !last.Raw {
		t.Errorf("last event in process: %+v", last)
	}
}

// Bodies that are not JSON are kept too, as strings flagged raw: a
// client's broken request, and a malformed_chunk fault's answer to a
// request that did not stream. Both were dropped from the journal.
func TestJournalKeepsBodiesThatAreNotJSON(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := "sk-json-raw-bodies"
	hdr := map[string]string{"Authorization": "Bearer " + key}
	rawPost(t, ts.OpenAIBaseURL()+"/chat/completions", hdr, `{"model": broken`)
	hdr[mockprovider.FaultHeader] = "malformed_chunk"
	rawPost(t, ts.OpenAIBaseURL()+"/chat/completions", hdr, validChat)
	checkAdminAnswers(t, ts, key)
	var got struct {
		Entries []struct {
			Request     json.RawMessage `json:"request"`
			RequestRaw  bool            `json:"request_raw"`
			Response    json.RawMessage `json:"response"`
			ResponseRaw bool            `json:"response_raw"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(getAdminJSON(t, ts, "/_toolwire/sessions/"+key+"/journal"), &got); err != nil || len(got.Entries) != 2 {
		t.Fatalf("journal: %v %+v", err, got)
	}
	var sent string
	if e := got.Entries[0]; !e.RequestRaw || json.Unmarshal(e.Request, &sent) != nil || sent != `{"model": broken` || e.ResponseRaw {
		t.Errorf("broken request kept as %s (raw %v), answer raw %v", e.Request, e.RequestRaw, e.ResponseRaw)
	}
	if e := got.Entries[1]; e.RequestRaw || !e.ResponseRaw || json.Unmarshal(e.Response, &sent) != nil || sent != `{"toolwire": malformed` {
		t.Errorf("malformed answer kept as %s (raw %v), request raw %v", e.Response, e.ResponseRaw, e.RequestRaw)
	}
}

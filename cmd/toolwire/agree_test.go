package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// A cassette whose accepted request and worded refusal the mock answers
// alike: exit 0, the embeddings call left out, the credential refusal
// skipped, not judged.
func TestAgreeOnACassette(t *testing.T) {
	out, err := runCmd(t, newAgreeCommand(), "testdata/agree-cassette.yaml")
	if err != nil {
		t.Fatalf("want exit 0, got %v\n%s", err, out)
	}
	for _, want := range []string{"3 exchanges: 2 agree, 0 false-refusal, 0 missed-refusal, 0 wrong-error, 1 skipped", "1 interactions with other endpoints not replayed", "agree-cassette.yaml#4: recorded 403"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := runCmd(t, newAgreeCommand(), "testdata/anthropic-good.json"); err == nil {
		t.Error("a file that is no recording was accepted")
	}
}

// A record-mode recording made through the mock against a stand-in
// upstream that accepts whatever it is sent: the request the mock refuses
// must come back as a false refusal naming the rule, the recorded answer
// and the part of the request at fault; the valid one agrees.
func TestAgreeOnARecordModeRecording(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn"}`)
	}))
	defer upstream.Close()
	dir := t.TempDir()
	rec, err := record.NewRecorder(dir, record.Upstreams{"anthropic": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	proxy := mockprovider.NewTestServer(t, mockprovider.Options{Recorder: rec})
	post := func(body string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("x-api-key", "sk-ant-test-recording-key")
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("Content-Type", "application/json")
		resp, err := proxy.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("recording through the proxy: %d", resp.StatusCode)
		}
	}
	post(`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`)
	post(`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"get_weather","input":{}}]},{"role":"user","content":"thanks"}]}`)
	files, _ := filepath.Glob(filepath.Join(dir, "*"+record.RecordingExt))
	if len(files) != 1 {
		t.Fatalf("want one recording, got %v", files)
	}

	out, err := runCmd(t, newAgreeCommand(), "--json", dir)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("want exit 1 on a disagreement, got %v\n%s", err, out)
	}
	var rep agreeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if rep.Exchanges != 2 || rep.Counts["agree"] != 1 || len(rep.Disagree) != 1 {
		t.Fatalf("want 2 exchanges, 1 agreeing, 1 disagreement: %+v", rep)
	}
	d := rep.Disagree[0]
	if d.Kind != "false-refusal" || d.Recorded.Status != 200 || d.Mock.Status != 400 || d.Mock.Rule != "anthropic.tool-use-answered" ||
		!strings.Contains(d.Mock.Message, "toolu_9") || !strings.HasSuffix(d.ID, "#2") || d.Path != "/v1/messages" {
		t.Errorf("disagreement not reported as it happened: %+v", d)
	}
	if !strings.HasPrefix(d.Excerpt, "messages.2: ") || !strings.Contains(d.Excerpt, "thanks") {
		t.Errorf("excerpt does not show the message at fault: %q", d.Excerpt)
	}

	text, _ := runCmd(t, newAgreeCommand(), dir)
	for _, want := range []string{"DISAGREE false-refusal", "recorded: 200", "mock:     400 anthropic.tool-use-answered: messages.2:", "2 exchanges: 1 agree, 1 false-refusal"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
}

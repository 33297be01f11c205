package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

var longSizes = []int{0, 10, 100, 400}

// TestLongBodiesAccepted: every dialect's request with 0, 10, 100 and 400
// earlier tool rounds is answered 200 by the mock, twice in one session
// (the bench repeats it there), breaks no rule, not even a SHOULD (the
// journal lists no violation), and grows with the rounds to the size
// issue 21 measured (a 400-round Chat request of about 234 KB).
func TestLongBodiesAccepted(t *testing.T) {
	mock, err := startServer(config{inProcess: true}, "mock", session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer mock.stop()
	client := &http.Client{}
	for _, d := range conv.Dialects {
		prev := 0
		for _, n := range longSizes {
			body := longBody(d, n)
			if !json.Valid(body) || len(body) <= prev {
				t.Errorf("%s, %d rounds: %d bytes after %d, valid JSON %v", d, n, len(body), prev, json.Valid(body))
			}
			prev = len(body)
			key := fmt.Sprintf("long-test-%s-%d", d, n)
			for range 2 {
				resp, err := client.Do(longRequest(mock.url, d, body, key))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s, %d rounds (%d bytes): status %d: %s", d, n, len(body), resp.StatusCode, b)
				}
			}
			resp, err := client.Get(mock.url + "/_toolwire/sessions/" + key + "/journal")
			if err != nil {
				t.Fatal(err)
			}
			var journal struct {
				Entries []struct {
					Violations []json.RawMessage `json:"violations"`
				} `json:"entries"`
			}
			err = json.NewDecoder(resp.Body).Decode(&journal)
			resp.Body.Close()
			if err != nil || len(journal.Entries) != 2 {
				t.Fatalf("%s, %d rounds: journal of %d entries, want 2 (%v)", d, n, len(journal.Entries), err)
			}
			for _, e := range journal.Entries {
				if len(e.Violations) > 0 {
					t.Errorf("%s, %d rounds: violations %s", d, n, e.Violations)
				}
			}
		}
		if d == conv.OpenAIChat && (prev < 180_000 || prev > 300_000) {
			t.Errorf("a 400-round Chat request is %d bytes, want about 234 KB", prev)
		}
	}
}

// TestLongBodiesNotMirrored: the baseline answers a recorded turn's
// (path, length) with the mock's recorded answer (mirror.go); no long
// request may share both, or the baseline would answer it with a
// recorded answer instead of its fixed reply.
func TestLongBodiesNotMirrored(t *testing.T) {
	turns := map[cannedKey]bool{}
	for _, d := range conv.Dialects {
		for i := range 2 {
			req := turnRequest("", d, false, "k", i)
			turns[cannedKey{req.URL.Path, int(req.ContentLength)}] = true
		}
	}
	for _, d := range conv.Dialects {
		for _, n := range longSizes {
			req := longRequest("", d, longBody(d, n), "k")
			if turns[cannedKey{req.URL.Path, int(req.ContentLength)}] {
				t.Errorf("%s, %d rounds: same path and length as a mirrored turn", d, n)
			}
		}
	}
}

// TestSummarize: each repetition's ratio is the mock's req/s over the
// baseline's measured beside it; the row reports their median, and the
// medians of each side's req/s and CPU.
func TestSummarize(t *testing.T) {
	reps := []pairRuns{
		{base: Run{RPS: 1000, CPUPerOp: 20}, mock: Run{RPS: 100, CPUPerOp: 900}},  // 0.10
		{base: Run{RPS: 2000, CPUPerOp: 22}, mock: Run{RPS: 500, CPUPerOp: 1000}}, // 0.25
		{base: Run{RPS: 800, CPUPerOp: 21}, mock: Run{RPS: 120, CPUPerOp: 950}},   // 0.15
	}
	got := summarize(conv.OpenAIChat, 400, 234000, reps)
	want := LongRow{Dialect: "openai-chat", Rounds: 400, BodyBytes: 234000, BaselineRPS: 1000, MockRPS: 120, Ratio: 0.15,
		RepRatios: []float64{0.1, 0.25, 0.15}, MockCPUPerOp: 950, BaselineCPUPerOp: 21, CPURatio: 0.022}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summarize = %+v\nwant        %+v", got, want)
	}
	// A baseline that served nothing gives a ratio of 0, not a division by zero.
	if r := summarize(conv.Gemini, 0, 1, []pairRuns{{mock: Run{RPS: 5}}}); r.Ratio != 0 || r.RepRatios[0] != 0 {
		t.Errorf("no baseline: %+v", r)
	}
}

// TestRunLongRefusesARefusedRequest: a request the target does not answer
// 200 stops the measurement with the status, rather than measuring an
// error path.
func TestRunLongRefusesARefusedRequest(t *testing.T) {
	refuse, stop, err := listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"no"}`, http.StatusBadRequest)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	base, err := startServer(config{inProcess: true}, "baseline", session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer base.stop()
	_, err = runLong(&http.Client{}, &server{url: refuse, stop: func() {}}, base, []conv.Dialect{conv.OpenAIChat}, []int{10}, 10*time.Millisecond, 1, 1)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("status 400")) {
		t.Errorf("runLong against a refusing mock: %v, want the 400 reported", err)
	}
}

// TestRunLongSmall measures a small table end to end against the
// in-process mock and checks every cell is filled; it asserts no time.
func TestRunLongSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("load run")
	}
	cfg := config{inProcess: true}
	mock, err := startServer(cfg, "mock", session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer mock.stop()
	base, err := startServer(cfg, "baseline", session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer base.stop()
	tab, err := runLong(&http.Client{}, mock, base, conv.Dialects, []int{0, 10}, 50*time.Millisecond, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2*len(conv.Dialects) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), 2*len(conv.Dialects))
	}
	for _, r := range tab.Rows {
		if r.BaselineRPS <= 0 || r.MockRPS <= 0 || r.Ratio <= 0 || len(r.RepRatios) != 2 || r.BodyBytes <= 0 {
			t.Errorf("incomplete row %+v", r)
		}
	}
	var out bytes.Buffer
	printLong(&out, tab)
	if !bytes.Contains(out.Bytes(), []byte(longSessions)) {
		t.Errorf("the table does not say how sessions are used:\n%s", out.String())
	}
}

func TestParseRounds(t *testing.T) {
	if got, err := parseRounds("0, 10,400"); err != nil || !reflect.DeepEqual(got, []int{0, 10, 400}) {
		t.Errorf("parseRounds = %v, %v", got, err)
	}
	if got, err := parseRounds(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"-1", "x", "10,ten"} {
		if _, err := parseRounds(bad); err == nil {
			t.Errorf("parseRounds(%q) accepted", bad)
		}
	}
}

// TestStatCPUMicros reads utime and stime from a /proc/PID/stat line
// whose command name holds spaces and a parenthesis, and a process's own
// line agrees with getrusage to within a few clock ticks.
func TestStatCPUMicros(t *testing.T) {
	line := []byte("4242 (tool wire) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 37 0 0 20 0 9 0 100 1000 200 18446744073709551615\n")
	if got := statCPUMicros(line); got != (250+37)*10_000 {
		t.Errorf("statCPUMicros = %d, want %d", got, (250+37)*10_000)
	}
	if got := statCPUMicros([]byte("garbage")); got != 0 {
		t.Errorf("statCPUMicros(garbage) = %d", got)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	// Work until this process has used 200 ms of CPU, so that both
	// clocks have something to count.
	x := 0
	for cpuMicros() < 200_000 {
		for i := range 1_000_000 {
			x += i
		}
	}
	_ = x
	proc, self := procStats(os.Getpid()).CPUMicros, cpuMicros()
	if proc < self-100_000 || proc > self+100_000 {
		t.Errorf("/proc says %d µs of CPU, getrusage %d", proc, self)
	}
}

// A cell's sessions are gone once it is measured, in every dialect (the
// session a dialect names by the key is the one dropped).
func TestDropSessions(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	status := func(key string) int {
		resp, err := http.Get(ts.URL + "/_toolwire/sessions/" + url.PathEscape(key))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, d := range conv.Dialects {
		keys := longKeys(d, 10, 2)
		for _, k := range keys {
			resp, err := http.DefaultClient.Do(longRequest(ts.URL, d, longBody(d, 10), k))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || status(k) != http.StatusOK {
				t.Fatalf("%s: answer %d, session %d", d, resp.StatusCode, status(k))
			}
		}
		dropSessions(http.DefaultClient, ts.URL, keys)
		for _, k := range keys {
			if got := status(k); got != http.StatusNotFound {
				t.Errorf("%s: session %s after the drop: %d", d, k, got)
			}
		}
	}
}

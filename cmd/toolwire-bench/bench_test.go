package main

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// TestBenchSmall runs the whole benchmark at a size that fits CI and checks
// every field of bench.json is filled and no request failed. It asserts no
// time: speed is reported by `make bench`, not judged here.
func TestBenchSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("load run")
	}
	res, err := run(config{each: 150 * time.Millisecond, concurrency: "1,4", soakRequests: 3000, soakSessions: 500, rounds: 1,
		longRounds: "0,10", longEach: 50 * time.Millisecond, longConcurrency: 2, longReps: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if res.BaselineRPS <= 0 {
		t.Fatal("baseline measured nothing")
	}
	for _, r := range res.Runs {
		if r.Requests == 0 || r.Errors != 0 {
			t.Errorf("%s stream=%v c=%d: %d requests, %d errors", r.Target, r.Stream, r.Concurrency, r.Requests, r.Errors)
		}
	}
	for _, d := range conv.Dialects {
		st, ok := res.Dialects[string(d)]
		if !ok || st.RPS <= 0 || st.Ratio <= 0 || st.P99 < st.P50 || len(st.RoundRatios) != 1 || st.RoundRatios[0] != st.Ratio {
			t.Errorf("%s: incomplete stats %+v", d, st)
		}
		if st.MirrorRatio <= 0 || st.MirrorCPURatio <= 0 || len(st.MirrorRoundRatios) != 1 || st.MirrorRoundRatios[0] != st.MirrorRatio {
			t.Errorf("%s: incomplete mirror stats %+v", d, st)
		}
	}
	if res.Soak.RSSMBStart <= 0 || res.Soak.RSSMBEnd <= 0 {
		t.Errorf("soak memory not measured: %+v", res.Soak)
	}
	b, _ := json.Marshal(res)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	mirrored := 0
	for _, r := range res.Runs {
		if strings.HasPrefix(r.Target, "mirror ") {
			mirrored++
		}
	}
	if mirrored != len(conv.Dialects) {
		t.Errorf("%d mirror runs in one round, want one per dialect (%d)", mirrored, len(conv.Dialects))
	}
	if res.Long == nil || len(res.Long.Rows) != 2*len(conv.Dialects) {
		t.Errorf("long conversations: %+v, want a row per dialect and size", res.Long)
	}
	for _, k := range []string{"baseline_rps", "dialects", "soak", "long_conversations"} {
		if _, ok := back[k]; !ok {
			t.Errorf("bench.json lacks %s", k)
		}
	}
}

// TestMain lets the test binary be the bench's server child process.
func TestMain(m *testing.M) {
	if role := os.Getenv(serveEnv); role != "" {
		serveChild(role)
		return
	}
	os.Exit(m.Run())
}

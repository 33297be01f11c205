package suite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
)

// runRAPMode judges the reference tool (or a broken variant) on loopback.
// The deadline is short so silent variants are judged quickly; the
// outcomes are read once the tool has sent everything it meant to.
func runRAPMode(t *testing.T, brk string) *reports.Run {
	t.Helper()
	tool, err := reftool.New(reftool.Options{Break: brk, CallbackBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tool)
	t.Cleanup(func() {
		tool.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run, err := suite.RunRAP(ctx, suite.RAPConfig{
		ToolURL: srv.URL,
		Runtime: rap.Options{Deadline: time.Second, Retry: rap.Retry{Initial: time.Millisecond}},
		SlowMS:  30,
		Settle:  func(context.Context) { tool.Wait() },
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// failing lists the rule IDs with a fail or warn outcome.
func failing(run *reports.Run) []string {
	var out []string
	for _, r := range run.Results {
		if (r.Outcome == reports.Fail || r.Outcome == reports.Warn) && !slices.Contains(out, r.Rule) {
			out = append(out, r.Rule)
		}
	}
	sort.Strings(out)
	return out
}

func describeFailures(run *reports.Run) string {
	var b strings.Builder
	for _, r := range run.Results {
		if r.Outcome != reports.Pass {
			b.WriteString("  " + reports.TestName(r) + " " + string(r.Outcome) + ": " + r.Message + "\n")
		}
	}
	return b.String()
}

// The honest reference tool is conformant: every applicable rule passes,
// SHOULDs included, for every operation with and without a call_id.
func TestRAPModeReferenceToolIsConformant(t *testing.T) {
	run := runRAPMode(t, "")
	if v := run.Verdict(); v != reports.VerdictConformant {
		t.Fatalf("verdict %s\n%s", v, describeFailures(run))
	}
	if f := failing(run); len(f) != 0 {
		t.Fatalf("failing rules %v\n%s", f, describeFailures(run))
	}
	if run.Mode != "tool-url" || !slices.Equal(run.Dialects, []string{"rap"}) {
		t.Errorf("run mode %q dialects %v", run.Mode, run.Dialects)
	}
	// Every operation was judged with and without a call_id, and every
	// rule the toolset exercises has a result (oauth is not part of it).
	scenarios, ruleIDs := map[string]bool{}, map[string]bool{}
	for _, r := range run.Results {
		if r.Dialect != "rap" {
			t.Errorf("result in dialect %q", r.Dialect)
		}
		scenarios[r.Scenario] = true
		ruleIDs[r.Rule] = true
	}
	for _, op := range []string{"echo", "fail", "edit", "subscribe", "slow"} {
		for _, s := range []string{op + "-call-id", op + "-no-call-id"} {
			if !scenarios[s] {
				t.Errorf("no results for %s", s)
			}
		}
	}
	for _, r := range append(rap.Rules(), suite.RAPRules()...) {
		if !ruleIDs[r.ID] && r.ID != rap.RuleOAuthHTTPS {
			t.Errorf("rule %s has no result", r.ID)
		}
	}
	// call-id-echo applies only where the invocation carried a call_id.
	for _, r := range run.Results {
		if r.Rule == rap.RuleCallIDEcho && !strings.HasSuffix(r.Scenario, "-call-id") || r.Rule == rap.RuleCallIDEcho && strings.HasSuffix(r.Scenario, "-no-call-id") {
			t.Errorf("%s judged for %s", r.Rule, r.Scenario)
		}
	}
}

// rapBreakRules is what each reference-tool variant must fail, exactly.
var rapBreakRules = map[string][]string{
	reftool.BreakWrongGroupID: {rap.RuleGroupIDMatch, rap.RuleNoSilentDrop,
		suite.RuleRAPEchoResult, suite.RuleRAPFailResult, suite.RuleRAPEditDisplay, suite.RuleRAPSubscribeEvents, suite.RuleRAPSlowDelay},
	reftool.BreakUnmatchedID: {rap.RuleIDMatch, rap.RuleNoSilentDrop,
		suite.RuleRAPEchoResult, suite.RuleRAPFailResult, suite.RuleRAPEditDisplay, suite.RuleRAPSubscribeEvents, suite.RuleRAPSlowDelay},
	reftool.BreakNoCallIDEcho:  {rap.RuleCallIDEcho},
	reftool.BreakMalformedDiff: {rap.RuleDiffPatch},
	reftool.BreakNoResult: {rap.RuleNoSilentDrop,
		suite.RuleRAPEchoResult, suite.RuleRAPFailResult, suite.RuleRAPEditDisplay, suite.RuleRAPSubscribeEvents, suite.RuleRAPSlowDelay},
	reftool.BreakDuplicate:     {rap.RuleDuplicateResult},
	reftool.BreakNoErrorPrefix: {rap.RuleErrorPrefix},
	reftool.BreakNon200: {rap.RuleInvocationAck,
		suite.RuleRAPEchoResult, suite.RuleRAPFailResult, suite.RuleRAPEditDisplay, suite.RuleRAPSubscribeEvents, suite.RuleRAPSlowDelay},
	reftool.BreakUnknownType: {rap.RuleCallbackType, rap.RuleNoSilentDrop,
		suite.RuleRAPEchoResult, suite.RuleRAPFailResult, suite.RuleRAPEditDisplay, suite.RuleRAPSubscribeEvents, suite.RuleRAPSlowDelay},
}

// Each broken variant fails exactly its intended rules (plus, for a tool
// that delivers nothing, the contract rule of every operation).
func TestRAPModeBrokenToolsFailTheirRules(t *testing.T) {
	if len(rapBreakRules) != len(reftool.Breaks) {
		t.Fatalf("%d cases for %d variants", len(rapBreakRules), len(reftool.Breaks))
	}
	for _, brk := range reftool.Breaks {
		t.Run(brk, func(t *testing.T) {
			t.Parallel()
			run := runRAPMode(t, brk)
			want := slices.Clone(rapBreakRules[brk])
			sort.Strings(want)
			if got := failing(run); !slices.Equal(got, want) {
				t.Errorf("failing rules %v\nwant %v\n%s", got, want, describeFailures(run))
			}
			wantVerdict := reports.VerdictFailures
			if brk == reftool.BreakDuplicate || brk == reftool.BreakNoErrorPrefix {
				wantVerdict = reports.VerdictConformant // SHOULD rules: warnings only
			}
			if v := run.Verdict(); v != wantVerdict {
				t.Errorf("verdict %s, want %s", v, wantVerdict)
			}
		})
	}
}

// rapRulesNoVariantFails are the rules no reference-tool variant breaks,
// with the reason; TestRAPModeScriptedToolsFailTheRest covers them with
// scripted tools instead.
var rapRulesNoVariantFails = map[string]string{
	rap.RuleToolsetManifest:         "every variant serves the same valid manifest",
	rap.RuleToolsetUnique:           "every variant serves the same manifest, names unique",
	suite.RuleRAPConformanceToolset: "every variant declares the whole toolset",
	rap.RuleCallbackJSON:            "every variant posts JSON with Content-Type application/json",
	rap.RuleCallbackFields:          "every variant sends the required fields (unknown-type fails before fields are read)",
	rap.RuleDisplaySegment:          "edit's segments are always well-formed objects (malformed-diff breaks the patch text only)",
	rap.RuleDisplayTextLast:         "edit always ends display_as with a text segment",
	rap.RuleDisplayTextShort:        "edit's text segment is always one short line",
	rap.RuleNoStackTrace:            "no variant puts a trace in its text",
	rap.RuleNoSecrets:               "no variant echoes its callback URL or a key",
	rap.RuleSingleResult:            "duplicate-delivery resends the identical result (rap.duplicate-result), never a different one",
	rap.RuleSubscriptionEvent:       "subscribe always sends subscription: true before its events and stops at the final one",
	rap.RuleOAuthHTTPS:              "the conformance toolset has no operation that asks for OAuth",
}

// Together the variants fail every rule except those listed above.
func TestRAPModeVariantsCoverTheCatalog(t *testing.T) {
	covered := map[string]bool{}
	for _, ids := range rapBreakRules {
		for _, id := range ids {
			covered[id] = true
		}
	}
	for _, r := range append(rap.Rules(), suite.RAPRules()...) {
		_, exempt := rapRulesNoVariantFails[r.ID]
		switch {
		case covered[r.ID] && exempt:
			t.Errorf("%s is failed by a variant but listed as not failable", r.ID)
		case !covered[r.ID] && !exempt:
			t.Errorf("no variant fails %s and no reason is given", r.ID)
		}
	}
}

// RAPRules adds only what rap.Rules lacks.
func TestRAPRulesComplementTheRuntime(t *testing.T) {
	have := map[string]bool{}
	for _, r := range rap.Rules() {
		have[r.ID] = true
	}
	for _, r := range suite.RAPRules() {
		if have[r.ID] {
			t.Errorf("%s repeats a runtime rule", r.ID)
		}
		if !strings.HasPrefix(r.ID, "rap.") || r.Dialect != "rap" || r.Source == "" || r.Summary == "" || r.Check != nil {
			t.Errorf("malformed rule %+v", r)
		}
		have[r.ID] = true
	}
}

// scriptedTool serves the conformance toolset's manifest and answers each
// operation with hand-written callbacks: the mistakes no reference-tool
// variant makes.
func scriptedTool(t *testing.T, script func(op string, inv map[string]any, post func(contentType string, msg map[string]any))) string {
	t.Helper()
	var wg sync.WaitGroup
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		wg.Wait()
		srv.Close()
	})
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	mux.HandleFunc("GET /.well-known/rap-toolset", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reftool.Manifest(srv.URL))
	})
	mux.HandleFunc("POST /invoke", func(w http.ResponseWriter, r *http.Request) {
		var inv map[string]any
		_ = json.NewDecoder(r.Body).Decode(&inv)
		w.WriteHeader(http.StatusOK)
		cb, _ := inv["callback_url"].(string)
		op, _ := inv["operation"].(string)
		wg.Add(1)
		go func() {
			defer wg.Done()
			script(op, inv, func(ct string, msg map[string]any) {
				b, _ := json.Marshal(msg)
				req, _ := http.NewRequest(http.MethodPost, cb, bytes.NewReader(b))
				req.Header.Set("Content-Type", ct)
				if resp, err := client.Do(req); err == nil {
					resp.Body.Close()
				}
			})
		}()
	})
	return srv.URL
}

// The rules no variant fails are judged too: a scripted tool breaks each
// of them and tool mode reports it, including rules outside an
// operation's usual set (an oauth message during echo).
func TestRAPModeScriptedToolsFailTheRest(t *testing.T) {
	const js = "application/json"
	url := scriptedTool(t, func(op string, inv map[string]any, post func(string, map[string]any)) {
		result := func(text string) map[string]any {
			return map[string]any{"type": "tool_result", "group_id": inv["group_id"], "id": inv["id"], "call_id": inv["call_id"], "text": text}
		}
		args, _ := inv["arguments"].(map[string]any)
		switch op {
		case "echo":
			post(js, map[string]any{"type": "oauth", "group_id": inv["group_id"], "id": inv["id"], "call_id": inv["call_id"], "auth_url": "http://auth.example/login"})
			post("text/plain", result(args["text"].(string)+" sk-proj-abcdefghijklmnopqrstuvwxyz0123"))
		case "fail":
			post(js, map[string]any{"type": "tool_result", "group_id": inv["group_id"], "id": inv["id"]}) // no text
			post(js, result("Error: "+args["message"].(string)+"\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d"))
		case "edit":
			r := result("Replaced text in " + args["path"].(string))
			r["display_as"] = []any{map[string]any{"type": "text", "content": strings.Repeat("long line ", 20)}, map[string]any{"type": "diff", "content": "not an object"}}
			post(js, r)
		case "subscribe":
			post(js, map[string]any{"type": "subscription_event", "group_id": inv["group_id"], "tool_call_id": inv["id"], "text": "too early"})
			post(js, result("no subscription after all"))
		case "slow":
			post(js, result("Slept 30 ms"))
			post(js, result("Slept for real this time"))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run, err := suite.RunRAP(ctx, suite.RAPConfig{ToolURL: url, SlowMS: 30, Grace: 100 * time.Millisecond,
		Runtime: rap.Options{Deadline: time.Second, Retry: rap.Retry{Initial: time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	got := failing(run)
	for id := range rapRulesNoVariantFails {
		switch id {
		case rap.RuleToolsetManifest, rap.RuleToolsetUnique, suite.RuleRAPConformanceToolset:
			continue // discovery: TestRAPModeRejectedToolsets
		}
		if !slices.Contains(got, id) {
			t.Errorf("%s not failed\n%s", id, describeFailures(run))
		}
	}
}

// A toolset rejected whole, or one missing an operation, fails the
// discovery rules; nothing else is judged for the calls never sent.
func TestRAPModeRejectedToolsets(t *testing.T) {
	serve := func(manifest func(base string) map[string]any) string {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		mux.HandleFunc("GET /.well-known/rap-toolset", func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewEncoder(w).Encode(manifest(srv.URL))
		})
		mux.HandleFunc("POST /invoke", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
		return srv.URL
	}
	withTools := func(edit func(tools []map[string]any) []map[string]any) func(string) map[string]any {
		return func(base string) map[string]any {
			m := reftool.Manifest(base)
			m["tools"] = edit(m["tools"].([]map[string]any))
			return m
		}
	}
	cases := []struct {
		name string
		url  string
		want []string
	}{
		{"duplicate names", serve(withTools(func(ts []map[string]any) []map[string]any { return append(ts, ts[0]) })), []string{rap.RuleToolsetUnique}},
		{"no endpoint", serve(func(base string) map[string]any { m := reftool.Manifest(base); delete(m, "endpoint"); return m }), []string{rap.RuleToolsetManifest}},
		{"no slow", serve(withTools(func(ts []map[string]any) []map[string]any { return ts[:4] })), []string{suite.RuleRAPConformanceToolset}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			run, err := suite.RunRAP(ctx, suite.RAPConfig{ToolURL: tc.url, Grace: time.Millisecond, Runtime: rap.Options{Deadline: 200 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			got := failing(run)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s not failed: %v\n%s", w, got, describeFailures(run))
				}
			}
			if tc.name != "no slow" {
				for _, r := range run.Results {
					if r.Rule != rap.RuleToolsetManifest && r.Rule != rap.RuleToolsetUnique {
						t.Errorf("%s judged for a rejected toolset", reports.TestName(r))
					}
				}
			}
		})
	}
}

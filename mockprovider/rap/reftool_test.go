package rap_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

func TestRulesCatalog(t *testing.T) {
	rs := rap.Rules()
	cat := rules.NewCatalog(rs) // panics on a malformed or duplicate entry
	if len(cat.ForDialect(conv.RAP)) != len(rs) {
		t.Fatal("catalog lost rules")
	}
	for _, r := range rs {
		if r.Check != nil || r.Dialect != conv.RAP || !strings.HasPrefix(r.ID, "rap.") {
			t.Errorf("%s: want dialect rap, nil Check", r.ID)
		}
	}
}

// The honest reference tool passes every rule, SHOULDs included, with and
// without a call_id, for every operation of the conformance toolset.
func TestReferenceToolPassesEveryRule(t *testing.T) {
	for _, rev := range rap.Revisions {
		t.Run(string(rev), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, rap.Options{Revision: rev})
			tool, url := startTool(t, "")
			for _, callID := range []*string{nil, ptr("cid-7")} {
				cases := []struct {
					op       string
					args     any
					wantText string
				}{
					{"echo", map[string]any{"text": "hello, tool"}, "hello, tool"},
					{"fail", map[string]any{"message": "disk full"}, "Error: disk full"},
					{"edit", map[string]any{"path": "src/main.rs"}, "Replaced text in src/main.rs"},
					{"subscribe", map[string]any{"count": 3}, "Subscribed: "},
					{"slow", map[string]any{"ms": 20}, "Slept 20 ms"},
				}
				for _, tc := range cases {
					out := invoke(t, h.rt, rap.InvokeRequest{ToolURL: url, Operation: tc.op, Arguments: args(tc.args), CallID: callID,
						ExpectError: tc.op == "fail", DeadlineMS: 10000})
					tool.Wait()
					out, _ = h.rt.Snapshot(out.GroupID, out.ID)
					if len(out.Violations) != 0 {
						t.Errorf("%s call_id=%v: violations %v", tc.op, callID, out.Violations)
					}
					if out.Result == nil || !strings.HasPrefix(out.Result.Text, tc.wantText) || out.Result.Synthetic {
						t.Fatalf("%s: result %+v", tc.op, out.Result)
					}
					if out.Status != rap.StatusCompleted || out.Duplicates+out.Discarded+out.Ignored != 0 {
						t.Errorf("%s: status %s counters %d/%d/%d", tc.op, out.Status, out.Duplicates, out.Discarded, out.Ignored)
					}
					switch tc.op {
					case "edit":
						if len(out.Result.DisplayAs) != 2 || out.Result.DisplayAs[0].Type != "diff" || out.Result.DisplayAs[1].Type != "text" {
							t.Errorf("edit display_as %+v", out.Result.DisplayAs)
						}
					case "subscribe":
						if len(out.Events) != 3 || !out.Events[2].Final || out.Events[0].Final || out.SubscriptionActive {
							t.Errorf("subscribe events %+v active=%v", out.Events, out.SubscriptionActive)
						}
						c, _ := h.rt.Conversation(out.GroupID)
						// call, result, then a synthetic call + result per event.
						if len(c.Turns) != 2+2*3 || c.Turns[2].Calls()[0].Name != "receive_event__injected" {
							t.Errorf("subscription conversation %+v", c.Turns)
						}
					}
				}
			}
		})
	}
}

// Each broken variant trips exactly the rules it should. Outcomes are read
// after the tool has finished sending, so late messages count too.
func TestBrokenVariantsTripTheirRules(t *testing.T) {
	cases := []struct {
		brk, op string
		args    any
		want    []string
		status  rap.Status
	}{
		{reftool.BreakWrongGroupID, "echo", map[string]any{"text": "x"}, []string{rap.RuleGroupIDMatch, rap.RuleNoSilentDrop}, rap.StatusTimeout},
		{reftool.BreakNoCallIDEcho, "echo", map[string]any{"text": "x"}, []string{rap.RuleCallIDEcho}, rap.StatusCompleted},
		{reftool.BreakMalformedDiff, "edit", map[string]any{"path": "a.go"}, []string{rap.RuleDiffPatch}, rap.StatusCompleted},
		{reftool.BreakNoResult, "echo", map[string]any{"text": "x"}, []string{rap.RuleNoSilentDrop}, rap.StatusTimeout},
		{reftool.BreakDuplicate, "echo", map[string]any{"text": "x"}, []string{rap.RuleDuplicateResult}, rap.StatusCompleted},
		{reftool.BreakUnmatchedID, "echo", map[string]any{"text": "x"}, []string{rap.RuleIDMatch, rap.RuleNoSilentDrop}, rap.StatusTimeout},
		{reftool.BreakNoErrorPrefix, "fail", map[string]any{"message": "quota exceeded"}, []string{rap.RuleErrorPrefix}, rap.StatusCompleted},
		{reftool.BreakNon200, "echo", map[string]any{"text": "x"}, []string{rap.RuleInvocationAck}, rap.StatusFailed},
		{reftool.BreakUnknownType, "echo", map[string]any{"text": "x"}, []string{rap.RuleCallbackType, rap.RuleNoSilentDrop}, rap.StatusTimeout},
	}
	if len(cases) != len(reftool.Breaks) {
		t.Fatalf("%d cases for %d variants", len(cases), len(reftool.Breaks))
	}
	for _, tc := range cases {
		t.Run(tc.brk, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, rap.Options{Deadline: 400 * time.Millisecond}) // silent tools are judged quickly
			tool, url := startTool(t, tc.brk)
			out := invoke(t, h.rt, rap.InvokeRequest{ToolURL: url, Operation: tc.op, Arguments: args(tc.args), CallID: ptr("cid-1")})
			tool.Wait()
			out, _ = h.rt.Snapshot(out.GroupID, out.ID)
			if got := sortedIDs(out); !sameRules(got, tc.want...) {
				t.Errorf("rules %v, want %v\n%v", got, tc.want, out.Violations)
			}
			if out.Status != tc.status {
				t.Errorf("status %s, want %s", out.Status, tc.status)
			}
			if out.Result == nil {
				t.Fatal("every invocation ends with a result in the conversation")
			}
			c, _ := h.rt.Conversation(out.GroupID)
			if len(c.Turns) != 2 || len(c.Turns[1].Results()) != 1 {
				t.Errorf("conversation should hold the call and exactly one result: %+v", c.Turns)
			}
			switch tc.brk {
			case reftool.BreakDuplicate:
				if out.Duplicates != 1 {
					t.Errorf("duplicates %d", out.Duplicates)
				}
			case reftool.BreakNon200:
				// 5xx is retried with backoff (the default 4 attempts), then
				// recorded as an error result.
				if out.Attempts != 4 || len(tool.Invocations()) != 4 || out.InvocationStatus != 500 || !out.Result.Synthetic {
					t.Errorf("non-200: attempts %d status %d synthetic %v", out.Attempts, out.InvocationStatus, out.Result.Synthetic)
				}
			case reftool.BreakWrongGroupID, reftool.BreakUnmatchedID, reftool.BreakUnknownType:
				if !out.Result.Synthetic || out.Discarded != 1 {
					t.Errorf("discarded message must not be delivered: %+v discarded=%d", out.Result, out.Discarded)
				}
			}
		})
	}
}

func TestUnknownBreakRejected(t *testing.T) {
	if _, err := reftool.New(reftool.Options{Break: "nope"}); err == nil {
		t.Fatal("want error")
	}
}

// The manifest the reference tool publishes passes discovery validation.
func TestReferenceManifestValid(t *testing.T) {
	b, _ := json.Marshal(reftool.Manifest("http://127.0.0.1:1"))
	ts, vs := rap.ParseToolset(b, "http://127.0.0.1:1/.well-known/rap-toolset")
	if len(vs) != 0 || len(ts.Tools) != 5 {
		t.Fatalf("%v", vs)
	}
	if err := ts.Tool("subscribe").ValidateArguments(json.RawMessage(`{"count":"3"}`)); err == nil {
		t.Error("schema should reject a string count")
	}
}

package reports

import (
	"bytes"
	"strings"
	"testing"
)

// One wrong result id: the request rule the mock rejected leads, with its
// expected vs got and fix, and each rule is one entry with a line per
// occurrence.
func TestSummaryGroupsByRuleCauseFirst(t *testing.T) {
	var results []Result
	for _, sc := range []string{"single-call", "parallel-same-tool", "multi-turn-chain"} {
		results = append(results,
			Result{Rule: "anthropic.final-text", Level: "MUST", Scenario: sc, Dialect: "anthropic", Outcome: Fail,
				Message: "driver failed", Expected: "the model's final answer", Got: "nothing", Fix: "finish the tool loop"},
			Result{Rule: "anthropic.tool-calls-answered", Level: "MUST", Scenario: sc, Dialect: "anthropic", Outcome: Fail, Cause: true,
				Message: "messages.2: tool_use ids were found without tool_result blocks", Expected: "a tool_result for toolu_1",
				Got: "the mock answered 400: messages.2: …", Fix: "answer every tool_use id"})
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, &Run{Dialects: []string{"anthropic"}, Results: results}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	cause := strings.Index(out, "- `anthropic.tool-calls-answered` (MUST), 3 occurrences — the mock rejected the request")
	effect := strings.Index(out, "- `anthropic.final-text` (MUST), 3 occurrences\n")
	if cause < 0 || effect < 0 || cause > effect {
		t.Fatalf("cause not first (%d, %d):\n%s", cause, effect, out)
	}
	for _, want := range []string{"### Failures (6 checks in 2 rules)", "  - expected: a tool\\_result for toolu\\_1\n",
		"  - got: the mock answered 400", "  - fix: answer every tool\\_use id\n", "  - multi-turn-chain / anthropic / nonstream: messages.2"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n- `"); n != 2 {
		t.Errorf("%d rule entries, want 2:\n%s", n, out)
	}
}

// report.html lists the rejected request before the checks that follow.
func TestHTMLListsCausesFirst(t *testing.T) {
	run := &Run{Dialects: []string{"anthropic"}, Results: []Result{
		{Rule: "anthropic.final-text", Level: "MUST", Scenario: "single-call", Dialect: "anthropic", Outcome: Fail, Message: "effect-message"},
		{Rule: "anthropic.tool-calls-answered", Level: "MUST", Scenario: "single-call", Dialect: "anthropic", Outcome: Fail, Cause: true, Message: "cause-message"},
	}}
	var b bytes.Buffer
	if err := WriteHTML(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	cause, effect := strings.Index(out, "cause-message"), strings.Index(out, "effect-message")
	if cause < 0 || effect < 0 || cause > effect {
		t.Errorf("cause at %d, effect at %d", cause, effect)
	}
}

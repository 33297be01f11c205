package suite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
)

// A driver command that does not exist, or one that exits without ever
// calling the mock, is a harness error carrying its stderr: the run's
// verdict is exit 2, not "20 pass, 1 fail".
func TestDriverThatNeverTalksIsAHarnessError(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"toolwire-no-such-driver-xyz", []string{"never talked to the mock", "driver failed", "toolwire-no-such-driver-xyz", "not found"}},
		{`echo '{"final_text": "done"}'; echo "base url unset" >&2`, []string{"never talked to the mock", "driver stderr: base url unset"}},
	} {
		h, err := suite.New(suite.Config{Driver: suite.Command{Line: tc.line}, Dialects: []conv.Dialect{conv.Gemini},
			Scenarios: []string{"single-call"}, Streams: []bool{false}})
		if err != nil {
			t.Fatal(err)
		}
		plan := h.Plan()
		if len(plan) != 1 {
			t.Fatalf("plan %v", plan)
		}
		results := h.Drive(context.Background(), plan[0]).Results()
		h.Close()
		run := &reports.Run{Results: results}
		if run.Verdict() != reports.VerdictHarnessError || run.Verdict().ExitCode() != 2 {
			t.Errorf("%s: verdict %v %+v", tc.line, run.Verdict(), run.Counts())
		}
		for _, res := range results {
			if res.Outcome != reports.Error {
				t.Errorf("%s: %s is %s, want error", tc.line, res.Rule, res.Outcome)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Message, w) {
					t.Errorf("%s: %s message lacks %q: %s", tc.line, res.Rule, w, res.Message)
				}
			}
		}
	}
}

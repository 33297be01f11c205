package suite_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/jsonview"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/reference"
)

// A driver that answers with the message id as tool_use_id: the failure
// names the path of that member, its excerpt holds it, and report.html
// highlights that member and no other.
func TestFailureExcerptHighlightsTheViolationPath(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.Break("anthropic-id-for-tool-use-id")), Dialects: []conv.Dialect{conv.Anthropic},
		Scenarios: []string{"single-call"}, Streams: []bool{false}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var run reports.Run
	for _, c := range h.Plan() {
		run.Results = append(run.Results, h.Drive(context.Background(), c).Results()...)
	}
	var res *reports.Result
	for i, r := range run.Results {
		if r.Rule == "anthropic.tool-result-matches-tool-use" && r.Outcome == reports.Fail {
			res = &run.Results[i]
		}
	}
	if res == nil {
		t.Fatalf("the msg_ id did not fail anthropic.tool-result-matches-tool-use: %+v", run.Results)
	}
	// messages.0 is the prompt, messages.1 the tool_use turn, messages.2
	// the results: the offending block is the first of those.
	if res.Path != "messages.2.content.0" {
		t.Errorf("path %q, want messages.2.content.0", res.Path)
	}
	lines, ok := jsonview.Lines([]byte(res.Excerpt))
	if !ok || !jsonview.Mark(lines, res.Path, "") {
		t.Fatalf("path %q not in the excerpt %s", res.Path, res.Excerpt)
	}
	var b bytes.Buffer
	if err := reports.WriteHTML(&b, &run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	start := strings.Index(out, `<mark title="`+res.Path+`">`)
	if start < 0 {
		t.Fatalf("report.html highlights nothing at %s", res.Path)
	}
	marked := out[start : start+strings.Index(out[start:], "</mark>")]
	if !strings.Contains(marked, `&#34;tool_use_id&#34;: &#34;msg_`) || strings.Contains(marked, `&#34;type&#34;: &#34;tool_use&#34;`) {
		t.Errorf("the highlight is not the tool_result block that names msg_…:\n%s", marked)
	}
}

// The suite's own checks point at the result they judge: with ids swapped
// between two parallel calls, matches-call fails at the tool result as
// sent, per dialect, and the excerpt holds that member.
func TestSuiteCheckFailuresNameTheResultPath(t *testing.T) {
	want := map[conv.Dialect]string{
		conv.OpenAIChat:      `^messages\.\d+$`,
		conv.OpenAIResponses: `^input\.\d+$`,
		conv.Anthropic:       `^messages\.\d+\.content\.\d+$`,
	}
	for d, pattern := range want {
		h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.SwappedIDs.Name), Dialects: []conv.Dialect{d},
			Scenarios: []string{"parallel-different-tools"}, Streams: []bool{false}})
		if err != nil {
			t.Fatal(err)
		}
		var res *reports.Result
		for _, c := range h.Plan() {
			for _, r := range h.Drive(context.Background(), c).Results() {
				if strings.HasSuffix(r.Rule, ".result-matches-call") && r.Outcome == reports.Fail && res == nil {
					res = &r
				}
			}
		}
		h.Close()
		if res == nil {
			t.Errorf("%s: swapped ids did not fail matches-call", d)
			continue
		}
		if !regexp.MustCompile(pattern).MatchString(res.Path) {
			t.Errorf("%s: path %q, want %s", d, res.Path, pattern)
			continue
		}
		lines, ok := jsonview.Lines([]byte(res.Excerpt))
		if !ok || !jsonview.Mark(lines, res.Path, "") {
			t.Errorf("%s: path %q not in the excerpt %s", d, res.Path, res.Excerpt)
		}
	}
}

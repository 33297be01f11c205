package suite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/refdriver/dialects"
)

func runFormatMode(t *testing.T, cfg suite.FormatConfig) *reports.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run, err := suite.RunFormat(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func referenceFormat(b formatdriver.Break) suite.FormatDriver {
	d := &formatdriver.Driver{Break: b, Dialects: dialects.Formats()}
	return suite.FormatFunc(d.Handle)
}

// The honest reference format driver is conformant in every dialect, and
// every format-mode rule and scenario check was judged.
func TestFormatModeReferenceDriverIsConformant(t *testing.T) {
	run := runFormatMode(t, suite.FormatConfig{Driver: referenceFormat(""), Dialects: conv.Dialects})
	if v := run.Verdict(); v != reports.VerdictConformant {
		t.Fatalf("verdict %s\n%s", v, describeFailures(run))
	}
	if f := failing(run); len(f) != 0 {
		t.Fatalf("failing rules %v\n%s", f, describeFailures(run))
	}
	judged := map[string]bool{}
	for _, r := range run.Results {
		if r.Outcome == reports.Pass {
			judged[r.Rule] = true
		}
	}
	for _, r := range suite.FormatRules() {
		if !judged[r.ID] {
			t.Errorf("%s was never judged", r.ID)
		}
	}
	for _, d := range conv.Dialects {
		for _, check := range []string{"result-carries-data", "result-matches-call", "error-flagged", "result-carries-media"} {
			if d == conv.OpenAIChat && check == "result-carries-media" {
				continue // tool messages take no media: no such rule
			}
			if id := string(d) + "." + check; !judged[id] {
				t.Errorf("%s was never judged", id)
			}
		}
	}
	if !judged["gemini.structured-response-object"] {
		t.Error("gemini.structured-response-object was never judged")
	}
}

// Each break variant fails exactly the rules it is documented to fail.
func TestFormatModeBreaksFailTheirRules(t *testing.T) {
	for _, b := range formatdriver.Breaks(dialects.Formats()) {
		t.Run(string(b.Name), func(t *testing.T) {
			t.Parallel()
			run := runFormatMode(t, suite.FormatConfig{Driver: referenceFormat(b.Name), Dialects: conv.Dialects})
			want := slices.Clone(b.Rules)
			sort.Strings(want)
			if got := failing(run); !slices.Equal(got, want) {
				t.Errorf("failing rules %v\nwant %v\n%s", got, want, describeFailures(run))
			}
		})
	}
}

// Undeclared features are not judged: the image case is reported
// not-supported, everything else still runs.
func TestFormatModeFeatures(t *testing.T) {
	run := runFormatMode(t, suite.FormatConfig{Driver: referenceFormat(""), Dialects: []conv.Dialect{conv.Anthropic}, Features: []string{"core", "errors"}})
	var images, structured int
	for _, r := range run.Results {
		if r.Dialect != "anthropic" {
			t.Fatalf("result for dialect %s", r.Dialect)
		}
		switch r.Scenario {
		case "format-image-result":
			images++
			if r.Outcome != reports.NotSupported {
				t.Errorf("%s: %s", reports.TestName(r), r.Outcome)
			}
		case "format-structured-result":
			structured++
		}
	}
	if images == 0 || structured == 0 {
		t.Errorf("image results %d, structured results %d", images, structured)
	}
	if v := run.Verdict(); v != reports.VerdictConformant {
		t.Errorf("verdict %s\n%s", v, describeFailures(run))
	}
}

// A driver that answers nothing useful fails, without hanging the run.
func TestFormatModeBadDrivers(t *testing.T) {
	cases := []struct {
		name   string
		driver suite.FormatDriver
		want   string
	}{
		{"error answers", suite.FormatFunc(func([]byte) any { return map[string]any{"error": "not implemented"} }), "not implemented"},
		{"non-object answers", suite.FormatFunc(func([]byte) any { return []int{1} }), "not a JSON object"},
		{"exits at once", &suite.FormatCommand{Line: "echo cannot start >&2; exit 3"}, "driver stderr: cannot start"},
		{"never answers", &suite.FormatCommand{Line: "cat > /dev/null"}, "did not answer in time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			defer tc.driver.Close()
			run := runFormatMode(t, suite.FormatConfig{Driver: tc.driver, Dialects: []conv.Dialect{conv.Gemini}, Timeout: 200 * time.Millisecond})
			if v := run.Verdict(); v != reports.VerdictFailures {
				t.Fatalf("verdict %s", v)
			}
			got := failing(run)
			if !slices.Equal(got, []string{"gemini.format-result-native", "gemini.normalize-calls"}) {
				t.Errorf("failing rules %v", got)
			}
			for _, r := range run.Results {
				if r.Outcome == reports.Fail && !strings.Contains(r.Message, tc.want) {
					t.Errorf("%s: message %q lacks %q", reports.TestName(r), r.Message, tc.want)
					break
				}
			}
		})
	}
}

// TestFormatDriverChild is the reference format driver as a process (the
// test binary re-executed), for the command-line contract tests.
func TestFormatDriverChild(t *testing.T) {
	brk, ok := os.LookupEnv("TOOLWIRE_FORMAT_DRIVER_CHILD")
	if !ok {
		t.Skip("runs only as a child of the format-driver tests")
	}
	args := []string{}
	if brk != "" {
		args = append(args, "--break", brk)
	}
	os.Exit(dialects.FormatMain(args, os.Stdin, os.Stdout, os.Stderr))
}

// childDriverLine is a shell command running the reference format driver.
func childDriverLine(brk string) string {
	return "TOOLWIRE_FORMAT_DRIVER_CHILD=" + brk + " exec '" + os.Args[0] + "' -test.run='^TestFormatDriverChild$' -test.count=1"
}

// The JSON-lines contract through a real process: one long-running
// driver answers every request.
func TestFormatModeProcess(t *testing.T) {
	drv := &suite.FormatCommand{Line: childDriverLine("")}
	defer drv.Close()
	run := runFormatMode(t, suite.FormatConfig{Driver: drv})
	if v := run.Verdict(); v != reports.VerdictConformant {
		t.Fatalf("verdict %s\n%s", v, describeFailures(run))
	}
}

// `toolwire conform --format-driver` and `--tool-url` end to end: exit
// codes and reports. Each run is a child process: Conform runs Ginkgo,
// once per process.
func TestConformFormatAndToolModes(t *testing.T) {
	conform := func(o suite.ConformOptions) (int, string) { return conformChild(t, o) }
	dir := t.TempDir()
	if code, out := conform(suite.ConformOptions{FormatDriver: childDriverLine(""), ReportDir: dir}); code != 0 {
		t.Fatalf("format driver exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Mode string `json:"mode"`
	}
	if json.Unmarshal(b, &rep) != nil || rep.Mode != "format-driver" {
		t.Errorf("report mode %q", rep.Mode)
	}
	for _, f := range []string{"junit.xml", "conformance-report.yaml", "summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("report %s: %v", f, err)
		}
	}
	if code, out := conform(suite.ConformOptions{FormatDriver: childDriverLine("gemini-ids-missing"), Dialects: []string{"gemini"}, ReportDir: t.TempDir()}); code != 1 {
		t.Errorf("broken format driver exit %d, want 1\n%s", code, out)
	}
	if code, _ := conform(suite.ConformOptions{FormatDriver: childDriverLine(""), Dialects: []string{"cobol"}, ReportDir: t.TempDir()}); code != 2 {
		t.Errorf("unknown dialect exit %d, want 2", code)
	}

	for _, tc := range []struct {
		brk  string
		want int
	}{{"", 0}, {reftool.BreakUnmatchedID, 1}} {
		tool, err := reftool.New(reftool.Options{Break: tc.brk, CallbackBackoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(tool)
		code, out := conform(suite.ConformOptions{ToolURL: srv.URL, Timeout: 500 * time.Millisecond, ReportDir: t.TempDir()})
		tool.Close()
		srv.Close()
		if code != tc.want {
			t.Errorf("tool %q exit %d, want %d\n%s", tc.brk, code, tc.want, out)
		}
	}
	// Nothing listens there: the harness cannot judge (exit 2).
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	if code, out := conform(suite.ConformOptions{ToolURL: url, ReportDir: t.TempDir()}); code != 2 {
		t.Errorf("unreachable tool exit %d, want 2\n%s", code, out)
	}
}

// Format and tool modes run the Ginkgo specs as the driver modes do: a
// label filter selects their specs, and Ginkgo reports the run.
func TestConformFormatAndToolModesRunTheSpecs(t *testing.T) {
	tool, err := reftool.New(reftool.Options{CallbackBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tool)
	defer srv.Close()
	defer tool.Close()
	for _, tc := range []struct {
		o    suite.ConformOptions
		rule string
		runs int
	}{
		{suite.ConformOptions{FormatDriver: childDriverLine("")}, "gemini.normalize-calls", 0},
		{suite.ConformOptions{ToolURL: srv.URL, Timeout: 500 * time.Millisecond}, "rap.echo-result", 2},
	} {
		tc.o.LabelFilter, tc.o.GinkgoOutput, tc.o.ReportDir = "rule:"+tc.rule, true, t.TempDir()
		code, out := conformChild(t, tc.o)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.rule, code, out)
		}
		if !strings.Contains(out, " specs ") || !strings.Contains(out, "SUCCESS!") {
			t.Errorf("%s: no Ginkgo report in the output:\n%s", tc.rule, out)
		}
		run, err := reports.LoadJSON(filepath.Join(tc.o.ReportDir, reports.JSONFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range run.Results {
			if r.Rule != tc.rule {
				t.Errorf("%s: the filter let %s through", tc.rule, reports.TestName(r))
			}
		}
		if tc.runs > 0 && len(run.Results) != tc.runs || len(run.Results) == 0 {
			t.Errorf("%s: %d results", tc.rule, len(run.Results))
		}
	}
}

// The command: --list-breaks, unknown breaks, one answer per request
// line, errors as {"error"} lines.
func TestFormatDriverMain(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dialects.FormatMain([]string{"--list-breaks"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("--list-breaks exit %d", code)
	}
	for _, b := range formatdriver.Breaks(dialects.Formats()) {
		if !strings.Contains(out.String(), string(b.Name)) {
			t.Errorf("--list-breaks lacks %s", b.Name)
		}
	}
	if code := dialects.FormatMain([]string{"--break", "nope"}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Errorf("unknown break exit %d", code)
	}
	out.Reset()
	in := `{"op":"normalize_calls","dialect":"anthropic","response":{"content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":1}}]}}

not json
{"op":"dance"}
{"op":"format_result","dialect":"gemini","call":{"name":"f","call_id":"gemini_0","arguments":{}},"result":{"content":[{"type":"text","text":"ok"}]}}
`
	if code := dialects.FormatMain(nil, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answers for 4 requests:\n%s", len(lines), out.String())
	}
	want := []string{`{"calls":[{"name":"f","call_id":"toolu_1","arguments":{"a":1}}]}`, `"error"`, `unknown op`, `{"parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}],"role":"user"}`}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("answer %d = %s, want %s", i, lines[i], w)
		}
	}
}

package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	yaml "go.yaml.in/yaml/v3"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/reports"
)

// ConformOptions are the `toolwire conform` settings. An options file
// (YAML, same keys) fills what the command line leaves unset.
type ConformOptions struct {
	Driver         string   `yaml:"driver"`
	DriverURL      string   `yaml:"driver-url"`
	FormatDriver   string   `yaml:"format-driver"`
	ToolURL        string   `yaml:"tool-url"`
	Reference      bool     `yaml:"reference"`       // the in-process reference driver
	ReferenceBreak string   `yaml:"reference-break"` // …with one deliberate mistake
	Dialects       []string `yaml:"dialects"`
	Features       []string `yaml:"features"`
	Scenarios      []string `yaml:"scenarios"`
	ScenarioDirs   []string `yaml:"scenario-dirs"`
	ReportDir      string   `yaml:"report-dir"`
	Baseline       string   `yaml:"baseline"`
	Strict         bool     `yaml:"strict"`
	Parallel       int      `yaml:"parallel"`
	Shard          string   `yaml:"shard"` // "i/n": this machine's part of a split run
	Timeout        time.Duration
	TimeoutText    string                 `yaml:"timeout"`
	LabelFilter    string                 `yaml:"label-filter"`
	NoStream       bool                   `yaml:"no-stream"`
	GinkgoOutput   bool                   `yaml:"ginkgo-output"` // show Ginkgo's own reporter
	Implementation reports.Implementation `yaml:"implementation"`
}

// LoadConformOptions reads an options file.
func LoadConformOptions(path string) (ConformOptions, error) {
	var o ConformOptions
	b, err := os.ReadFile(path)
	if err != nil {
		return o, err
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil && err != io.EOF {
		return o, fmt.Errorf("%s: %w", path, err)
	}
	if o.TimeoutText != "" {
		if o.Timeout, err = time.ParseDuration(o.TimeoutText); err != nil {
			return o, fmt.Errorf("%s: timeout: %w", path, err)
		}
	}
	return o, nil
}

// Conform runs the suite as `toolwire conform` does and returns the exit
// code: 0 conformant, 1 failures, 2 harness or configuration error. Every
// mode runs the Ginkgo specs, so it may be called once per process.
func Conform(ctx context.Context, o ConformOptions, stdout, stderr io.Writer) int {
	errf := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolwire conform: "+format+"\n", a...)
		return 2
	}
	modes := 0
	for _, set := range []bool{o.Driver != "", o.DriverURL != "", o.FormatDriver != "", o.ToolURL != "", o.Reference} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return errf("give exactly one of --driver, --driver-url, --format-driver, --tool-url, --reference")
	}
	if err := checkConformNames(o); err != nil {
		return errf("%v", err)
	}
	// Read the baseline before anything runs: a broken file is a
	// configuration error, not something to find after a long run.
	var baseline []reports.BaselineEntry
	if o.Baseline != "" {
		var err error
		if baseline, err = reports.LoadBaseline(o.Baseline); err != nil {
			return errf("%v", err)
		}
	}
	p, closePlan, err := conformPlan(ctx, o, reports.NewProgress(stderr, 0))
	if err != nil {
		return errf("%v", err)
	}
	defer closePlan()

	start := time.Now()
	rec := &Recorder{}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = o.LabelFilter
	reporterConfig.Succinct, reporterConfig.SilenceSkips = true, true
	if !o.GinkgoOutput {
		// The progress lines and the reports say it all; Ginkgo's dot per
		// spec would bury them.
		formatter.ColorableStdOut = io.Discard
	}
	if err := registerPlan(p, rec, o.LabelFilter); err != nil {
		return errf("%v", err)
	}
	ginkgo.RunSpecs(verdictFromReports{}, "toolwire conformance", suiteConfig, reporterConfig)
	code := finishConform(o, p.filled(rec, start), baseline, stdout, stderr)
	if ctx.Err() != nil {
		// An interrupted run judged only part of the plan.
		return errf("interrupted")
	}
	return code
}

// verdictFromReports is the GinkgoTestingT of a conform run: the exit
// code is the reports' verdict, not Ginkgo's (a SHOULD warning, a
// baselined failure pass; a harness error is not a failure).
type verdictFromReports struct{}

func (verdictFromReports) Fail() {}

// conformPlan sets up the mode o names and returns its plan and what to
// close after the run.
func conformPlan(ctx context.Context, o ConformOptions, progress *reports.Progress) (*plan, func(), error) {
	shard, err := reports.ParseShard(o.Shard)
	if err != nil {
		return nil, nil, err
	}
	if !shard.Whole() && (o.FormatDriver != "" || o.ToolURL != "") {
		return nil, nil, errors.New("--shard splits driver runs; --format-driver and --tool-url runs are not sharded")
	}
	impl := o.Implementation
	var dialects []conv.Dialect
	for _, d := range o.Dialects {
		dialects = append(dialects, conv.Dialect(d))
	}
	switch {
	case o.FormatDriver != "":
		impl.Command, impl.Name = firstNonEmpty(impl.Command, o.FormatDriver), firstNonEmpty(impl.Name, o.FormatDriver)
		drv := &FormatCommand{Line: o.FormatDriver}
		p, err := formatPlan(ctx, FormatConfig{Driver: drv, Dialects: dialects, Features: o.Features, Timeout: o.Timeout, Strict: o.Strict,
			Implementation: impl, Progress: progress})
		return p, func() { _ = drv.Close() }, err
	case o.ToolURL != "":
		impl.URL, impl.Name = firstNonEmpty(impl.URL, o.ToolURL), firstNonEmpty(impl.Name, o.ToolURL)
		cfg := RAPConfig{ToolURL: o.ToolURL, Strict: o.Strict, Implementation: impl, Progress: progress}
		// Invocations all run at once unless --parallel asks for more
		// than one at a time.
		if o.Parallel > 1 {
			cfg.Parallel = o.Parallel
		}
		if o.Timeout > 0 {
			cfg.Runtime.Deadline = o.Timeout
		}
		p, err := rapPlan(ctx, cfg)
		return p, func() {}, err
	}
	cfg := Config{Strict: o.Strict, Parallel: o.Parallel, Timeout: o.Timeout, Features: o.Features, Scenarios: o.Scenarios,
		Dialects: dialects, Shard: shard, Implementation: impl, Progress: progress}
	switch {
	case o.Driver != "":
		cfg.Driver, cfg.Mode = Command{Line: o.Driver}, "driver"
		cfg.Implementation.Command = firstNonEmpty(impl.Command, o.Driver)
	case o.DriverURL != "":
		cfg.Driver, cfg.Mode = URL{Endpoint: o.DriverURL}, "driver-url"
		cfg.Implementation.URL = firstNonEmpty(impl.URL, o.DriverURL)
	case o.Reference:
		build := referenceDriver
		if build == nil {
			build = referenceProcess
		}
		if cfg.Driver, err = build(o.ReferenceBreak); err != nil {
			return nil, nil, err
		}
		cfg.Mode = "driver"
		if cfg.Implementation.Name == "" {
			cfg.Implementation.Name = "toolwire-refdriver"
			if o.ReferenceBreak != "" {
				cfg.Implementation.Name += " --break " + o.ReferenceBreak
			}
		}
	}
	cfg.Implementation.Name = firstNonEmpty(cfg.Implementation.Name, cfg.Implementation.Command, cfg.Implementation.URL)
	if o.NoStream {
		cfg.Streams = []bool{false}
	}
	if len(o.ScenarioDirs) > 0 {
		if cfg.Mock.Scenarios, err = mockprovider.LoadScenarios(o.ScenarioDirs...); err != nil {
			return nil, nil, err
		}
	}
	h, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return h.specPlan(ctx), h.Close, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// finishConform applies the baseline, writes the reports and prints the
// verdict; it returns the exit code. Every conform mode ends here.
func finishConform(o ConformOptions, run *reports.Run, baseline []reports.BaselineEntry, stdout, stderr io.Writer) int {
	if baseline != nil {
		reports.ApplyBaseline(run, baseline)
	}
	if run.Date.IsZero() {
		run.Date = time.Now().UTC()
	}
	dir := o.ReportDir
	if dir == "" {
		dir = "reports/out"
	}
	if err := reports.WriteAll(dir, run); err != nil {
		// A report that cannot be written must not hide the verdict.
		fmt.Fprintf(stderr, "toolwire conform: writing reports: %v\n", err)
	} else {
		fmt.Fprintf(stderr, "toolwire conform: reports in %s\n", dir)
	}
	printHarnessErrors(run, stderr)
	fmt.Fprintln(stdout, reports.VerdictLine(run))
	return run.Verdict().ExitCode()
}

// printHarnessErrors prints each distinct harness error once (the same
// broken driver breaks every run), so the cause is on the terminal and
// not only in the reports.
func printHarnessErrors(run *reports.Run, stderr io.Writer) {
	const most = 3
	var seen []string
	for _, res := range run.Results {
		if res.Outcome != reports.Error || slices.Contains(seen, res.Message) {
			continue
		}
		seen = append(seen, res.Message)
		if len(seen) <= most {
			fmt.Fprintf(stderr, "toolwire conform: harness error (%s/%s): %s\n", res.Scenario, res.Dialect, res.Message)
		}
	}
	if n := len(seen) - most; n > 0 {
		fmt.Fprintf(stderr, "toolwire conform: %d more distinct harness errors in the reports\n", n)
	}
}

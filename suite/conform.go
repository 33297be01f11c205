package suite

import (
	"context"
	"fmt"
	"io"
	"os"
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

// ginkgoT receives Ginkgo's suite-level failure signal; the exit code
// comes from the reports' verdict instead.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

// Conform runs the suite as `toolwire conform` does and returns the exit
// code: 0 conformant, 1 failures, 2 harness or configuration error. It
// runs Ginkgo, so it may be called once per process.
func Conform(ctx context.Context, o ConformOptions, stdout, stderr io.Writer) int {
	errf := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolwire conform: "+format+"\n", a...)
		return 2
	}
	cfg := Config{Strict: o.Strict, Parallel: o.Parallel, Timeout: o.Timeout, Features: o.Features, Scenarios: o.Scenarios, Implementation: o.Implementation}
	shard, err := reports.ParseShard(o.Shard)
	if err != nil {
		return errf("%v", err)
	}
	cfg.Shard = shard
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
		if baseline, err = reports.LoadBaseline(o.Baseline); err != nil {
			return errf("%v", err)
		}
	}
	switch {
	case o.Driver != "":
		cfg.Driver, cfg.Mode = Command{Line: o.Driver}, "driver"
		if cfg.Implementation.Command == "" {
			cfg.Implementation.Command = o.Driver
		}
	case o.DriverURL != "":
		cfg.Driver, cfg.Mode = URL{Endpoint: o.DriverURL}, "driver-url"
		if cfg.Implementation.URL == "" {
			cfg.Implementation.URL = o.DriverURL
		}
	case o.Reference:
		build := referenceDriver
		if build == nil {
			build = referenceProcess
		}
		if cfg.Driver, err = build(o.ReferenceBreak); err != nil {
			return errf("%v", err)
		}
		cfg.Mode = "driver"
		if cfg.Implementation.Name == "" {
			cfg.Implementation.Name = "toolwire-refdriver"
			if o.ReferenceBreak != "" {
				cfg.Implementation.Name += " --break " + o.ReferenceBreak
			}
		}
	case o.FormatDriver != "" && !shard.Whole(), o.ToolURL != "" && !shard.Whole():
		return errf("--shard splits driver runs; --format-driver and --tool-url runs are not sharded")
	case o.FormatDriver != "":
		return conformFormat(ctx, o, baseline, stdout, stderr)
	case o.ToolURL != "":
		return conformRAP(ctx, o, baseline, stdout, stderr)
	}
	if cfg.Implementation.Name == "" {
		cfg.Implementation.Name = firstNonEmpty(cfg.Implementation.Command, cfg.Implementation.URL)
	}
	for _, d := range o.Dialects {
		cfg.Dialects = append(cfg.Dialects, conv.Dialect(d))
	}
	if o.NoStream {
		cfg.Streams = []bool{false}
	}
	if len(o.ScenarioDirs) > 0 {
		set, err := mockprovider.LoadScenarios(o.ScenarioDirs...)
		if err != nil {
			return errf("%v", err)
		}
		cfg.Mock.Scenarios = set
	}
	cfg.Progress = reports.NewProgress(stderr, 0)
	h, err := New(cfg)
	if err != nil {
		return errf("%v", err)
	}
	defer h.Close()

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
	if err := RegisterSpecs(h, rec, o.LabelFilter); err != nil {
		return errf("%v", err)
	}
	ginkgo.RunSpecs(&ginkgoT{}, "toolwire conformance", suiteConfig, reporterConfig)

	run := h.NewRun()
	run.Results = rec.Results()
	run.Duration = time.Since(start)
	return finishConform(o, run, baseline, stdout, stderr)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

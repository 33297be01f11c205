package suite_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/reference"
)

// TestConformanceSpecs runs the Ginkgo specs with the reference driver in
// process. Build it into a binary with `go test -c ./suite` and select
// with --ginkgo.label-filter, e.g. 'dialect:anthropic && level:MUST'.
// TOOLWIRE_REF_BREAK picks a break variant (the specs then fail).
func TestConformanceSpecs(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.Break(os.Getenv("TOOLWIRE_REF_BREAK"))), Parallel: 4, Mock: selftestMock(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rec := &suite.Recorder{}
	if err := suite.RegisterSpecs(h, rec, suiteConfig.LabelFilter); err != nil {
		t.Fatal(err)
	}
	reporterConfig.Succinct = !reporterConfig.Verbose && !reporterConfig.VeryVerbose
	RunSpecs(t, "toolwire conformance", suiteConfig, reporterConfig)
	if len(rec.Results()) == 0 && suiteConfig.LabelFilter == "" {
		t.Error("no spec recorded a result")
	}
	for _, r := range rec.Results() {
		if r.Outcome == reports.Error {
			t.Errorf("harness error in %s", r.Rule)
		}
	}
	_ = Expect
}

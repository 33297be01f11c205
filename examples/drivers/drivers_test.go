// Package drivers_test proves the README's minimal drivers are complete:
// each runs the whole suite, for every feature it declares, and passes.
package drivers_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolwire/toolwire/examples/drivers"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
)

func TestMinimalDrivers(t *testing.T) {
	for _, d := range []struct {
		name string
		// line gives the driver command, building the driver if it must.
		line  func(t *testing.T) string
		needs string
	}{
		{"python", func(*testing.T) string { return "python3 driver.py" }, "python3"},
		{"node", func(*testing.T) string { return "node driver.mjs" }, "node"},
		{"go", buildGoDriver, "go"},
	} {
		t.Run(d.name, func(t *testing.T) {
			if _, err := exec.LookPath(d.needs); err != nil {
				t.Skipf("%s not installed", d.needs)
			}
			line := d.line(t)
			// The minimal drivers speak the four dialects of raw-HTTP keys;
			// Bedrock is left to the reference driver on the AWS SDK.
			h, err := suite.New(suite.Config{Driver: suite.Command{Line: line}, Features: drivers.MinimalFeatures, Parallel: 4,
				Dialects: []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic, conv.Gemini}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			run := h.RunAll(context.Background())
			c := run.Counts()
			t.Logf("%s: %+v", line, c)
			if c.Passed == 0 || run.Verdict() != reports.VerdictConformant {
				for _, r := range run.Results {
					if r.Outcome == reports.Fail || r.Outcome == reports.Error {
						t.Errorf("%s %s/%s: %s", r.Rule, r.Scenario, r.Dialect, r.Message)
					}
				}
				t.Fatalf("%s: verdict %v, counts %+v", line, run.Verdict(), c)
			}
		})
	}
}

// buildGoDriver builds go/driver.go on its own, as a user who copied it
// out would, and returns the binary's path.
func buildGoDriver(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "driver")
	if out, err := exec.Command("go", "build", "-o", bin, "./go/driver.go").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

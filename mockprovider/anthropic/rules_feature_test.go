package anthropic

import (
	"testing"

	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// TestRuleFeaturesAreScenarioFeatures: the suite counts a rule tagged with
// a feature as exercised only on scenarios of that feature, and leaves it
// unjudged for a driver that does not declare it, so a tag no built-in
// scenario carries makes a rule that never passes anywhere and that a
// driver declaring the scenario's feature does not get.
func TestRuleFeaturesAreScenarioFeatures(t *testing.T) {
	scenarios, err := scenario.LoadFS(fixtures.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"": true, "core": true, "streaming": true}
	for _, sc := range scenarios {
		for _, f := range sc.Features {
			known[f] = true
		}
	}
	if !known[scenario.FeatureStructuredOutput] {
		t.Fatalf("no built-in scenario has the %s feature", scenario.FeatureStructuredOutput)
	}
	for _, r := range catalog() {
		if !known[r.Feature] {
			t.Errorf("%s is tagged with feature %q, which no built-in scenario has", r.ID, r.Feature)
		}
	}
}

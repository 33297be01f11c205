package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

// A --fixtures (or --scenarios-dir) error names the path the user gave,
// not ".".
func TestFixturesErrorsNameThePathGiven(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	_, err := mockprovider.LoadScenarios(missing)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: %v", err)
	}
	_, err = mockprovider.LoadScenarios("testdata/anthropic-good.json")
	if err == nil || !strings.Contains(err.Error(), "testdata/anthropic-good.json: not a directory") {
		t.Errorf("file given as dir: %v", err)
	}
}

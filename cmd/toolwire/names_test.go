package main

import (
	"errors"
	"strings"
	"testing"
)

// A misspelt name is a configuration error that lists the valid names,
// never a run that silently selects nothing.
func TestUnknownNamesListTheValidOnes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--features", "streaming,streming"}, []string{`unknown feature "streming"`, "streaming", "images"}},
		{[]string{"--dialects", "gemni"}, []string{`unknown dialect "gemni"`, "openai-chat, openai-responses, anthropic, gemini"}},
		{[]string{"--label-filter", "family:pairng && dialect:gemini"}, []string{`unknown family "pairng"`, "pairing", "loop"}},
		{[]string{"--label-filter", "level:MUST && dialect:gemni"}, []string{`unknown dialect "gemni"`, "gemini"}},
		{[]string{"--label-filter", "feature:streming"}, []string{`unknown feature "streming"`, "streaming"}},
		{[]string{"--label-filter", "level:MAY"}, []string{`unknown level "MAY"`, "MUST, SHOULD"}},
	} {
		args := append([]string{"--driver", "true", "--report-dir", t.TempDir()}, tc.args...)
		out, err := runCmd(t, newConformCommand(), args...)
		var ee exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("%v: want exit 2, got %v\n%s", tc.args, err, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}

	out, err := runCmd(t, newRulesCommand(), "--dialect", "gemni")
	if err == nil || !strings.Contains(err.Error(), `unknown dialect "gemni"`) || !strings.Contains(err.Error(), "rap") || strings.Contains(out, "SUMMARY") {
		t.Errorf("rules --dialect gemni: %v\n%s", err, out)
	}
	if _, err := runCmd(t, newCheckCommand(), "--dialect", "gemni", "testdata/anthropic-good.json"); err == nil || !strings.Contains(err.Error(), "gemini") {
		t.Errorf("check --dialect gemni: %v", err)
	}
}

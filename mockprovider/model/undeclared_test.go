package model

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// A scripted call to a tool the request did not declare is still played
// (the unknown-tool scenario tests drivers with it) and carries a warning
// naming the tool, the turn and what was declared; a declared call none.
func TestScriptedUndeclaredCallIsNotedNotDropped(t *testing.T) {
	e := builtinEngine(t)
	r := next(t, e, conversation(conv.Anthropic, "claude-sonnet-4-5", userText("weather?")), "unknown-tool")
	if got := callNames(r); len(got) != 1 || got[0] != "get_forecast" {
		t.Fatalf("calls %q: the undeclared call must still be played", got)
	}
	want := `warning: scenario unknown-tool turn 1 calls tool "get_forecast", which the request did not declare (declared: "get_weather", "get_time"); the scenario marks it undeclared on purpose`
	if len(r.Notes) != 1 || r.Notes[0] != want {
		t.Errorf("notes %q\nwant [%q]", r.Notes, want)
	}

	declared := next(t, e, conversation(conv.Anthropic, "claude-sonnet-4-5", userText("weather?")), "single-call")
	for _, n := range declared.Notes {
		if strings.Contains(n, "did not declare") {
			t.Errorf("a declared call was noted: %q", n)
		}
	}
}

func TestUndeclaredCallWarningWithNoToolsDeclared(t *testing.T) {
	e := builtinEngine(t)
	c := conversation(conv.OpenAIChat, "gpt-4.1", userText("weather?"))
	c.Tools = nil
	r := next(t, e, c, "unknown-tool")
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], `calls tool "get_forecast", which the request did not declare (declared: none)`) {
		t.Errorf("notes %q", r.Notes)
	}
}

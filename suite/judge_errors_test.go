package suite

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/task"
)

func sentText(s string) *conv.Result {
	return &conv.Result{Content: []conv.Content{{Type: conv.ContentText, Text: s}}}
}

// On the OpenAI APIs (no error flag) an error result is told by what it
// says, in whatever wrapping a library gives it — not by an "Error"
// prefix. These wordings come from popular agent frameworks.
func TestOpenAIErrorsAreJudgedByTheirWording(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Error: Location 'Atlantis' not found.", true},
		{"An error occurred while parsing tool arguments. Please try again with valid JSON.", true},
		{`Tool "get_forecast" not found. Available tools: get_weather`, true},
		{`{"error": "quota exceeded"}`, true},
		{`{"isError": true, "content": "x"}`, true},
		{`{"location":"Oslo","temperature":3}`, false},
		{"null", false},
		{"", false},
	} {
		for _, d := range []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses} {
			if got := errorFlagged(d, sentText(tc.text)); got != tc.want {
				t.Errorf("%s: errorFlagged(%q) = %v, want %v", d, tc.text, got, tc.want)
			}
		}
	}
	// Where the API has a flag, the flag decides.
	if errorFlagged(conv.Anthropic, sentText("Error: no")) {
		t.Error("anthropic: an unflagged result counted as an error")
	}
	if !errorFlagged(conv.Gemini, &conv.Result{Structured: map[string]any{"error": "no"}}) {
		t.Error(`gemini: {"error": …} not counted as an error`)
	}
}

// A scripted error reaches the model when its text does, verbatim or by
// its opening words in another wrapping; a generic failure notice does
// not carry it.
func TestErrorReachedByItsSubstance(t *testing.T) {
	exp := task.ErrorResult("Location 'Atlantis' not found. Please provide a valid city name.")
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Location 'Atlantis' not found. Please provide a valid city name.", true},
		{"An error occurred while running get_weather: Location 'Atlantis' not found. Please provide a valid city name.", true},
		{`Error executing tool get_weather: LOCATION "ATLANTIS" NOT FOUND`, true},
		{`{"error": "Location 'Atlantis' not found."}`, true},
		{"Error: the tool call failed", false},
		{"Location found", false},
	} {
		if got := errorReached(exp, sentText(tc.text)); got != tc.want {
			t.Errorf("errorReached(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	// A lone "Error:" opening is not the message: at least three words are.
	if got := errorHead("Error: city not found: Atlantis"); got != "error city not" {
		t.Errorf("errorHead = %q", got)
	}
	if errorReached(task.ErrorResult("Error: city not found"), sentText("Error: something else broke")) {
		t.Error(`"Error:" alone counted as the error's substance`)
	}
}

// A call the driver answers with its own error (an undeclared tool,
// arguments that break the schema) may say what is wrong without an
// error word on the OpenAI APIs: naming the tool or the arguments is
// enough there; where the API has a flag, the flag decides.
func TestOwnErrorsNameTheProblem(t *testing.T) {
	unknown := expectation{synthetic: true, names: []string{"get_forecast"}}
	args := expectation{synthetic: true, names: argumentWords}
	for _, tc := range []struct {
		exp  expectation
		text string
		want bool
	}{
		{unknown, "get_forecast is not one of the tools: get_weather", true},
		{args, "Please send the arguments as one JSON object.", true},
		{args, `{"location":"Oslo"}`, false},
		{unknown, "ok", false},
	} {
		if got := reportsProblem(conv.OpenAIChat, tc.exp, sentText(tc.text)); got != tc.want {
			t.Errorf("reportsProblem(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	if reportsProblem(conv.Anthropic, args, sentText("Please send the arguments as one JSON object.")) {
		t.Error("anthropic: an unflagged result counted as an error")
	}
}

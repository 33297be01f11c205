package gemini_test

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
)

// controlsAnswer is one answer's text, calls and finish reason.
type controlsAnswer struct {
	text   string
	calls  []*genai.FunctionCall
	finish genai.FinishReason
}

// bothForms asks a built-in scenario with cfg, whole and streamed.
func bothForms(t *testing.T, scenarioName, prompt string, cfg *genai.GenerateContentConfig) map[string]controlsAnswer {
	t.Helper()
	ts := newServer(t, mockprovider.Options{})
	client := newClient(t, ts, "controls", map[string]string{mockprovider.ScenarioHeader: scenarioName}, nil)
	ctx := context.Background()
	history := []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]controlsAnswer{}
	whole := controlsAnswer{calls: resp.FunctionCalls(), finish: resp.Candidates[0].FinishReason}
	if len(whole.calls) == 0 {
		whole.text = resp.Text()
	}
	out["whole"] = whole
	text, calls, chunks, err := streamText(client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, cfg))
	if err != nil {
		t.Fatal(err)
	}
	out["streamed"] = controlsAnswer{text: text, calls: calls, finish: chunks[len(chunks)-1].Candidates[0].FinishReason}
	for _, v := range ts.Violations("controls") {
		t.Errorf("violation: %s", v)
	}
	return out
}

// TestSDKMaxOutputTokensDropsCutCall: 16 tokens (64 characters) hold the
// first of parallel-same-tool's calls and part of the second: the finish
// reason is MAX_TOKENS and the cut call is not sent (Gemini sends args
// whole).
func TestSDKMaxOutputTokensDropsCutCall(t *testing.T) {
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}, MaxOutputTokens: 16}
	for form, a := range bothForms(t, "parallel-same-tool", "Compare the weather in Paris and London.", cfg) {
		if a.finish != genai.FinishReasonMaxTokens || len(a.calls) != 1 || a.calls[0].Args["location"] != "Paris, France" {
			t.Errorf("%s: finish %s calls %+v", form, a.finish, a.calls)
		}
	}
}

// TestSDKMaxOutputTokensCutsText: 2 tokens cut the text to 8 characters
// and send no call.
func TestSDKMaxOutputTokensCutsText(t *testing.T) {
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: 2}
	for form, a := range bothForms(t, "text-alongside-call", "Conjugate 'eat'.", cfg) {
		if a.finish != genai.FinishReasonMaxTokens || a.text != "Let me c" || len(a.calls) != 0 {
			t.Errorf("%s: finish %s text %q calls %d", form, a.finish, a.text, len(a.calls))
		}
	}
}

// TestSDKStopSequence: a stop sequence ends the text before it; the call
// after it is not sent and the finish reason is STOP.
func TestSDKStopSequence(t *testing.T) {
	cfg := &genai.GenerateContentConfig{StopSequences: []string{"###", " conjugation"}}
	for form, a := range bothForms(t, "text-alongside-call", "Conjugate 'eat'.", cfg) {
		if a.finish != genai.FinishReasonStop || a.text != "Let me check that" || len(a.calls) != 0 {
			t.Errorf("%s: finish %s text %q calls %d", form, a.finish, a.text, len(a.calls))
		}
	}
}

package openaichat_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
)

// controlsAnswer is one answer's finish reason, text and calls, read the
// same way from the whole completion and from the accumulated stream.
type controlsAnswer struct {
	finish, text string
	calls        []openai.ChatCompletionMessageToolCallUnion
}

// bothForms asks the parallel-weather scenario (text, then two calls) with
// params, once whole and once streamed.
func bothForms(t *testing.T, params openai.ChatCompletionNewParams) map[string]controlsAnswer {
	t.Helper()
	ts := scenarioServer(t)
	client := newClient(ts, sessionKey(t), option.WithHeader(mockprovider.ScenarioHeader, "parallel-weather"))
	resp, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	acc := accumulate(t, client, params)
	out := map[string]controlsAnswer{}
	for form, c := range map[string]openai.ChatCompletion{"whole": *resp, "streamed": acc.ChatCompletion} {
		m := c.Choices[0].Message
		out[form] = controlsAnswer{finish: c.Choices[0].FinishReason, text: m.Content, calls: m.ToolCalls}
	}
	return out
}

// TestSDKMaxTokensCutsCall: 8 tokens (32 characters) hold "Checking both."
// and the start of the first call: finish_reason "length", one call whose
// arguments stop inside the JSON text.
func TestSDKMaxTokensCutsCall(t *testing.T) {
	params := weatherParams("Paris and Rome?")
	params.MaxCompletionTokens = openai.Int(8)
	for form, a := range bothForms(t, params) {
		if a.finish != "length" || a.text != "Checking both." || len(a.calls) != 1 {
			t.Fatalf("%s: finish %q text %q %d calls", form, a.finish, a.text, len(a.calls))
		}
		if got := a.calls[0].Function.Arguments; got != `{"city"` {
			t.Errorf("%s: cut arguments %q", form, got)
		}
	}
}

// TestSDKMaxTokensCutsText: the legacy max_tokens limits too; 2 tokens cut
// the text to 8 characters and send no call.
func TestSDKMaxTokensCutsText(t *testing.T) {
	params := weatherParams("Paris and Rome?")
	params.MaxTokens = openai.Int(2)
	for form, a := range bothForms(t, params) {
		if a.finish != "length" || a.text != "Checking" || len(a.calls) != 0 {
			t.Errorf("%s: finish %q text %q %d calls", form, a.finish, a.text, len(a.calls))
		}
	}
}

// TestSDKParallelOff: parallel_tool_calls false keeps the first of the
// scenario's two calls.
func TestSDKParallelOff(t *testing.T) {
	params := weatherParams("Paris and Rome?")
	params.ParallelToolCalls = openai.Bool(false)
	for form, a := range bothForms(t, params) {
		if a.finish != "tool_calls" || len(a.calls) != 1 || a.calls[0].Function.Arguments != `{"city":"Paris"}` {
			t.Errorf("%s: finish %q calls %+v", form, a.finish, a.calls)
		}
	}
}

// TestSDKStopSequence: stop ends the text before the sequence, and what
// follows it (the calls) is not sent; finish_reason stays "stop". Both the
// string and the list form are read.
func TestSDKStopSequence(t *testing.T) {
	for name, stop := range map[string]openai.ChatCompletionNewParamsStopUnion{
		"string": {OfString: openai.String(" both")},
		"list":   {OfStringArray: []string{"zzz", " both"}},
	} {
		params := weatherParams("Paris and Rome?")
		params.Stop = stop
		for form, a := range bothForms(t, params) {
			if a.finish != "stop" || a.text != "Checking" || len(a.calls) != 0 {
				t.Errorf("%s %s: finish %q text %q %d calls", name, form, a.finish, a.text, len(a.calls))
			}
		}
	}
}

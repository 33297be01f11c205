package openairesp_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
)

// controlled asks the built-in parallel-same-tool scenario (two
// get_weather calls) with params changed by set, whole and streamed, and
// returns both final responses and the stream's last event type.
func controlled(t *testing.T, set func(*responses.ResponseNewParams)) (whole, streamed *responses.Response, lastEvent string) {
	t.Helper()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-controls", option.WithHeader(mockprovider.ScenarioHeader, "parallel-same-tool"))
	params := responses.ResponseNewParams{Model: "gpt-4.1", Tools: []responses.ToolUnionParam{weatherTool()},
		Input: inputList(userText("Compare the weather in Paris and London."))}
	set(&params)
	ctx := context.Background()
	whole, err := c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	stream := c.Responses.NewStreaming(ctx, params)
	defer stream.Close()
	for stream.Next() {
		ev := stream.Current()
		lastEvent = ev.Type
		if ev.Type == "response.completed" || ev.Type == "response.incomplete" {
			r := ev.Response
			streamed = &r
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if streamed == nil {
		t.Fatal("stream ended without a final response")
	}
	noViolations(t, ts, "sk-controls")
	return whole, streamed, lastEvent
}

// TestSDKMaxOutputTokensCutsCall: 16 tokens (64 characters) hold the first
// call and the start of the second: the response is incomplete with
// reason max_output_tokens, the second call is cut inside its arguments
// and marked incomplete, and the stream ends with response.incomplete.
func TestSDKMaxOutputTokensCutsCall(t *testing.T) {
	whole, streamed, last := controlled(t, func(p *responses.ResponseNewParams) { p.MaxOutputTokens = openai.Int(16) })
	if last != "response.incomplete" {
		t.Errorf("stream ended with %s", last)
	}
	for form, r := range map[string]*responses.Response{"whole": whole, "streamed": streamed} {
		cs := calls(r)
		if r.Status != "incomplete" || r.IncompleteDetails.Reason != "max_output_tokens" || r.CompletedAt != 0 || len(cs) != 2 {
			t.Fatalf("%s: %s", form, r.RawJSON())
		}
		if cs[0].Arguments != `{"location":"Paris, France"}` || cs[0].Status != "completed" {
			t.Errorf("%s: first call %s", form, cs[0].RawJSON())
		}
		if cs[1].Arguments != `{"location":"L` || cs[1].Status != "incomplete" {
			t.Errorf("%s: cut call %s", form, cs[1].RawJSON())
		}
	}
}

// TestSDKParallelToolCallsOff: parallel_tool_calls false keeps the first
// of the scenario's two calls; the response is complete.
func TestSDKParallelToolCallsOff(t *testing.T) {
	whole, streamed, last := controlled(t, func(p *responses.ResponseNewParams) { p.ParallelToolCalls = openai.Bool(false) })
	if last != "response.completed" {
		t.Errorf("stream ended with %s", last)
	}
	for form, r := range map[string]*responses.Response{"whole": whole, "streamed": streamed} {
		cs := calls(r)
		if r.Status != "completed" || r.JSON.IncompleteDetails.Raw() != "null" || len(cs) != 1 || cs[0].Arguments != `{"location":"Paris, France"}` {
			t.Errorf("%s: %s", form, r.RawJSON())
		}
	}
}

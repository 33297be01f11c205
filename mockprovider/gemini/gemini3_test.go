package gemini_test

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
)

// collect runs one request, streamed or not, and returns the model turn
// and the usage of the (last) answer.
func collect(t *testing.T, c *genai.Client, stream bool, modelName string, history []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.Content, *genai.GenerateContentResponseUsageMetadata, error) {
	t.Helper()
	ctx := context.Background()
	if !stream {
		resp, err := c.Models.GenerateContent(ctx, modelName, history, cfg)
		if err != nil {
			return nil, nil, err
		}
		return resp.Candidates[0].Content, resp.UsageMetadata, nil
	}
	turn := &genai.Content{Role: genai.RoleModel}
	var usage *genai.GenerateContentResponseUsageMetadata
	for chunk, err := range c.Models.GenerateContentStream(ctx, modelName, history, cfg) {
		if err != nil {
			return nil, nil, err
		}
		turn.Parts = append(turn.Parts, chunk.Candidates[0].Content.Parts...)
		usage = chunk.UsageMetadata
	}
	return turn, usage, nil
}

// TestSDKGemini3CallsIDsAndSignatures: on Gemini 3 every call the mock
// makes carries an id and a signature the mock can verify; the loop
// passes them back and succeeds, a tampered signature is refused with the
// API's text, and usage reports thinking tokens — streamed and not.
func TestSDKGemini3CallsIDsAndSignatures(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	for _, stream := range []bool{false, true} {
		c := newClient(t, ts, "gemini3", nil, nil)
		history := []*genai.Content{genai.NewContentFromText("What is the weather in Paris?", genai.RoleUser)}
		turn, usage, err := collect(t, c, stream, "gemini-3-flash-preview", history, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var call *genai.Part
		for _, p := range turn.Parts {
			if p.FunctionCall != nil {
				call = p
			}
		}
		if call == nil || call.FunctionCall.ID == "" || len(call.ThoughtSignature) == 0 {
			t.Fatalf("stream=%v: call %+v", stream, call)
		}
		if usage.ThoughtsTokenCount == 0 || usage.TotalTokenCount != usage.PromptTokenCount+usage.CandidatesTokenCount+usage.ThoughtsTokenCount {
			t.Fatalf("stream=%v: usage %+v", stream, usage)
		}
		reply := genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: call.FunctionCall.ID, Name: call.FunctionCall.Name, Response: map[string]any{"output": "sunny"}}}}, genai.RoleUser)
		if _, _, err := collect(t, c, stream, "gemini-3-flash-preview", append(history, turn, reply), cfg); err != nil {
			t.Fatalf("stream=%v: passing the call back: %v", stream, err)
		}

		tampered := append([]byte(nil), call.ThoughtSignature...)
		tampered[len(tampered)-1] ^= 1
		call.ThoughtSignature = tampered
		_, _, err = collect(t, c, stream, "gemini-3-flash-preview", append(history, turn, reply), cfg)
		if ae := apiError(t, err); ae.Code != 400 || ae.Message != "Corrupted thought signature." {
			t.Fatalf("stream=%v: tampered signature: %+v", stream, ae)
		}
	}
}

// TestSDKThinkingUsage: 2.5 Flash thinks unless its budget is 0; Flash-Lite
// does not by default.
func TestSDKThinkingUsage(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := newClient(t, ts, "thinking", nil, nil)
	ask := genai.Text("Hello")
	zero := int32(0)
	for _, tc := range []struct {
		model    string
		cfg      *genai.GenerateContentConfig
		thinking bool
	}{
		{"gemini-2.5-flash", nil, true},
		{"gemini-2.5-flash", &genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingBudget: &zero}}, false},
		{"gemini-2.5-flash-lite", nil, false},
		{"gemini-2.0-flash", nil, false},
	} {
		resp, err := c.Models.GenerateContent(context.Background(), tc.model, ask, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.UsageMetadata.ThoughtsTokenCount > 0; got != tc.thinking {
			t.Fatalf("%s %+v: thoughtsTokenCount %d", tc.model, tc.cfg, resp.UsageMetadata.ThoughtsTokenCount)
		}
	}
}

// TestSDKGemini3ReorderedResponsesWithIDs: Gemini 3 calls carry ids, so a
// batch answered out of call order, each response naming its call's id,
// is answered (and journaled as a SHOULD), where the same swap without ids
// on 2.5 is a 400 (TestSDKParallelCalls).
func TestSDKGemini3ReorderedResponsesWithIDs(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool(), timeTool()}}
	client := newClient(t, ts, "reordered", map[string]string{mockprovider.ScenarioHeader: "gemini-parallel-two-tools"}, nil)
	history := []*genai.Content{genai.NewContentFromText("Weather and time in Paris?", genai.RoleUser)}
	resp, err := client.Models.GenerateContent(context.Background(), "gemini-3-flash-preview", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	reply := answer(resp, weatherResult)
	if len(reply.Parts) != 2 || reply.Parts[0].FunctionResponse.ID == "" {
		t.Fatalf("want two calls with ids: %+v", resp.FunctionCalls())
	}
	reply.Parts[0], reply.Parts[1] = reply.Parts[1], reply.Parts[0]
	if _, err := client.Models.GenerateContent(context.Background(), "gemini-3-flash-preview", append(history, resp.Candidates[0].Content, reply), cfg); err != nil {
		t.Fatalf("reordered responses with ids: %v", err)
	}
	found := false
	for _, v := range ts.Violations("reordered") {
		found = found || v.Rule == "gemini.function-response-order-ids" && v.Level == "SHOULD"
	}
	if !found {
		t.Fatalf("not journaled: %v", ts.Violations("reordered"))
	}
}

// TestSDKFunctionCallingConfig: forced calling (mode ANY) naming a function
// nobody declared is journaled (no public source shows a 400), a calling
// config without any tool is a 400 and one beside Google Search only is
// accepted; the same config over declared functions forces the call.
func TestSDKFunctionCallingConfig(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := newClient(t, ts, "calling-config", nil, nil)
	ask := genai.Text("What is the weather in Paris?")
	anyOf := func(names ...string) *genai.ToolConfig {
		return &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: names}}
	}
	for _, stream := range []bool{false, true} {
		if _, _, err := collect(t, c, stream, "gemini-2.5-flash", ask, &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}, ToolConfig: anyOf("get_time")}); err != nil {
			t.Fatalf("stream=%v undeclared: %v", stream, err)
		}
		assertJournaled(t, ts, "calling-config", "gemini.allowed-function-names-declared")
		_, _, err := collect(t, c, stream, "gemini-2.5-flash", ask, &genai.GenerateContentConfig{ToolConfig: anyOf()})
		if ae := apiError(t, err); ae.Code != 400 || ae.Message != "Function calling config is set without function_declarations." {
			t.Fatalf("stream=%v no tools: %+v", stream, ae)
		}
		search := &genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}},
			ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}}}
		if _, _, err := collect(t, c, stream, "gemini-2.5-flash", ask, search); err != nil {
			t.Fatalf("stream=%v config beside Google Search only: %v", stream, err)
		}
		turn, _, err := collect(t, c, stream, "gemini-2.5-flash", ask, &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool(), timeTool()}, ToolConfig: anyOf("get_weather")})
		if err != nil {
			t.Fatal(err)
		}
		called := ""
		for _, p := range turn.Parts {
			if p.FunctionCall != nil {
				called = p.FunctionCall.Name
			}
		}
		if called != "get_weather" {
			t.Fatalf("stream=%v: forced call %q", stream, called)
		}
	}
}

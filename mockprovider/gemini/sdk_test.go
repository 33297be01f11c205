package gemini_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
)

// answer builds the user turn answering every call of resp, in call order,
// with result(name, args).
func answer(resp *genai.GenerateContentResponse, result func(*genai.FunctionCall) map[string]any) *genai.Content {
	var parts []*genai.Part
	for _, fc := range resp.FunctionCalls() {
		p := genai.NewPartFromFunctionResponse(fc.Name, result(fc))
		p.FunctionResponse.ID = fc.ID
		parts = append(parts, p)
	}
	return genai.NewContentFromParts(parts, genai.RoleUser)
}

func weatherResult(fc *genai.FunctionCall) map[string]any {
	return map[string]any{"output": map[string]any{"location": fc.Args["location"], "temperature": 18}}
}

// TestSDKDefaultToolLoop: default mode calls the declared tool with
// arguments from its schema, then quotes the result; the call carries a
// signature on 2.5 and no id, as the real API sends it.
func TestSDKDefaultToolLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	client := newClient(t, ts, "sdk-default", nil, nil)
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	history := []*genai.Content{genai.NewContentFromText("What's the weather in Tokyo?", genai.RoleUser)}

	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.FunctionCalls()
	if len(calls) != 1 || calls[0].Name != "get_weather" || calls[0].Args["location"] == nil || calls[0].ID != "" {
		t.Fatalf("calls = %+v", calls)
	}
	cand := resp.Candidates[0]
	if cand.FinishReason != genai.FinishReasonStop || len(cand.Content.Parts[0].ThoughtSignature) == 0 {
		t.Fatalf("candidate = %+v", cand)
	}
	// go-genai drops finishMessage on the Gemini API backend; check the wire.
	if wireBody := string(ts.Journal("sdk-default")[0].Response); !contains(wireBody, `"finishMessage":"Model generated function call(s)."`) || contains(wireBody, `"id"`) {
		t.Fatalf("wire response = %s", wireBody)
	}
	if resp.ModelVersion != "gemini-2.5-flash" || resp.ResponseID == "" || resp.UsageMetadata == nil || resp.UsageMetadata.TotalTokenCount == 0 {
		t.Fatalf("response metadata = %+v", resp)
	}

	history = append(history, cand.Content, answer(resp, weatherResult))
	resp, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.FunctionCalls()) != 0 || !contains(resp.Text(), "get_weather") || !contains(resp.Text(), `temperature`) {
		t.Fatalf("final text = %q", resp.Text())
	}
	if vs := ts.Violations("sdk-default"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

// TestSDKScenarioLoop: the built-in single-call scenario through the SDK.
func TestSDKScenarioLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	client := newClient(t, ts, "sdk-scenario", map[string]string{mockprovider.ScenarioHeader: "single-call"}, nil)
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	history := []*genai.Content{genai.NewContentFromText("What's the weather in Tokyo?", genai.RoleUser)}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if calls := resp.FunctionCalls(); len(calls) != 1 || calls[0].Args["location"] != "Tokyo, Japan" {
		t.Fatalf("calls = %+v", calls)
	}
	history = append(history, resp.Candidates[0].Content, answer(resp, weatherResult))
	resp, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Text(), "The weather: get_weather: ") || !contains(resp.Text(), "Tokyo, Japan") {
		t.Fatalf("final text = %q", resp.Text())
	}
}

// TestSDKParallelCalls: a parallel batch of one tool answered together in
// call order passes and both results come back in that order; a batch of
// two tools answered out of order is rejected.
func TestSDKParallelCalls(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool(), timeTool()}}

	client := newClient(t, ts, "parallel-ok", map[string]string{mockprovider.ScenarioHeader: "gemini-parallel-same-tool"}, nil)
	history := []*genai.Content{genai.NewContentFromText("Weather in Paris and Rome?", genai.RoleUser)}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Candidates[0].Content.Parts
	if len(parts) != 2 || len(parts[0].ThoughtSignature) == 0 || len(parts[1].ThoughtSignature) != 0 {
		t.Fatalf("want two calls, only the first signed: %+v", parts)
	}
	history = append(history, resp.Candidates[0].Content, answer(resp, weatherResult))
	resp, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Text()
	if i, j := strings.Index(text, "Paris"), strings.Index(text, "Rome"); i < 0 || j < i {
		t.Fatalf("results not quoted in call order: %q", text)
	}

	client = newClient(t, ts, "parallel-swapped", map[string]string{mockprovider.ScenarioHeader: "gemini-parallel-two-tools"}, nil)
	history = []*genai.Content{genai.NewContentFromText("Weather and time in Paris?", genai.RoleUser)}
	resp, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	reply := answer(resp, weatherResult)
	reply.Parts[0], reply.Parts[1] = reply.Parts[1], reply.Parts[0]
	history = append(history, resp.Candidates[0].Content, reply)
	// No public source shows the API refusing a reordered batch: journaled.
	if _, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg); err != nil {
		t.Fatalf("swapped answers: %v", err)
	}
	assertJournaled(t, ts, "parallel-swapped", "gemini.function-response-order")
}

// TestSDKGemini3Signatures: on Gemini 3 the SDK passes the signature back
// and the loop completes; the same loop with the signature stripped gets
// the verbatim thought_signature error.
func TestSDKGemini3Signatures(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	client := newClient(t, ts, "g3", nil, nil)
	ctx := context.Background()
	const g3 = "gemini-3-flash-preview"
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	history := []*genai.Content{genai.NewContentFromText("What's the weather in Tokyo?", genai.RoleUser)}
	resp, err := client.Models.GenerateContent(ctx, g3, history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	modelTurn := resp.Candidates[0].Content
	if len(modelTurn.Parts[0].ThoughtSignature) == 0 {
		t.Fatalf("Gemini 3 call without signature: %+v", modelTurn.Parts[0])
	}
	reply := answer(resp, weatherResult)

	if _, err := client.Models.GenerateContent(ctx, g3, append(history, modelTurn, reply), cfg); err != nil {
		t.Fatalf("signed loop: %v", err)
	}

	stripped := &genai.Content{Role: modelTurn.Role}
	for _, p := range modelTurn.Parts {
		cp := *p
		cp.ThoughtSignature = nil
		stripped.Parts = append(stripped.Parts, &cp)
	}
	_, err = client.Models.GenerateContent(ctx, g3, append(history, stripped, reply), cfg)
	ae := apiError(t, err)
	want := "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
	if ae.Code != 400 || ae.Status != "INVALID_ARGUMENT" || ae.Message != want {
		t.Fatalf("stripped: %+v", ae)
	}
}

// TestSDKScriptedCallIDAndSignature: a scenario's id and signature are sent
// as scripted and the id must come back on the response.
func TestSDKScriptedCallIDAndSignature(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	client := newClient(t, ts, "scripted", map[string]string{mockprovider.ScenarioHeader: "gemini-scripted-ids"}, nil)
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	history := []*genai.Content{genai.NewContentFromText("Weather in Oslo?", genai.RoleUser)}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Candidates[0].Content.Parts[0]
	if p.FunctionCall.ID != "tool_0" || string(p.ThoughtSignature) != "scripted" {
		t.Fatalf("part = %+v (signature %q)", p.FunctionCall, p.ThoughtSignature)
	}
	reply := answer(resp, weatherResult)
	reply.Parts[0].FunctionResponse.ID = "wrong"
	// No public source shows the API refusing another id: journaled.
	if _, err = client.Models.GenerateContent(ctx, "gemini-2.5-flash", append(history, resp.Candidates[0].Content, reply), cfg); err != nil {
		t.Fatalf("wrong id: %v", err)
	}
	assertJournaled(t, ts, "scripted", "gemini.function-response-id")
	reply.Parts[0].FunctionResponse.ID = "tool_0"
	if _, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", append(history, resp.Candidates[0].Content, reply), cfg); err != nil {
		t.Fatal(err)
	}
}

// TestSDKGemini3MultimodalFunctionResponse: https://ai.google.dev/gemini-api/docs/function-calling#multimodal's image function
// response (inlineData + {"$ref"}) is accepted on Gemini 3, reaches the
// model as media content, and is refused on 2.5.
func TestSDKGemini3MultimodalFunctionResponse(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	client := newClient(t, ts, "multimodal", nil, nil)
	ctx := context.Background()
	photo := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "get_product_photo", Description: "Retrieves the product photo for a specific item.",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"product_id": {Type: genai.TypeString}}, Required: []string{"product_id"}},
	}}}
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{photo}}
	history := []*genai.Content{genai.NewContentFromText("Show me the photo of product PRD-001.", genai.RoleUser)}

	for _, tc := range []struct {
		model string
		ok    bool
	}{{"gemini-3-flash-preview", true}, {"gemini-2.5-flash", false}} {
		resp, err := client.Models.GenerateContent(ctx, tc.model, history, cfg)
		if err != nil {
			t.Fatal(err)
		}
		fc := resp.FunctionCalls()[0]
		fr := genai.NewPartFromFunctionResponseWithParts(fc.Name,
			map[string]any{"product_id": fc.Args["product_id"], "image_ref": map[string]any{"$ref": "product_photo.png"}},
			[]*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n"), DisplayName: "product_photo.png"}}})
		fr.FunctionResponse.ID = fc.ID
		full := append(append([]*genai.Content(nil), history...), resp.Candidates[0].Content, genai.NewContentFromParts([]*genai.Part{fr}, genai.RoleUser))
		final, err := client.Models.GenerateContent(ctx, tc.model, full, cfg)
		if !tc.ok {
			if ae := apiError(t, err); ae.Code != 400 || ae.Message != "Multimodal function responses are not supported for this model" {
				t.Fatalf("%s: %+v", tc.model, ae)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if !contains(final.Text(), "[image product_photo.png]") {
			t.Fatalf("the image did not reach the model: %q", final.Text())
		}
		j := ts.Journal("multimodal")
		res := j[len(j)-1].Conversation.LastTurn().Results()[0]
		if len(res.Content) != 1 || res.Content[0].Type != conv.ContentImage || res.Content[0].DisplayName != "product_photo.png" || res.Structured["image_ref"] == nil {
			t.Fatalf("decoded result = %+v", res)
		}
	}
}

// streamText drains a stream, returning the joined text, the calls, the
// number of chunks and the first error.
func streamText(seq func(func(*genai.GenerateContentResponse, error) bool)) (text string, calls []*genai.FunctionCall, chunks []*genai.GenerateContentResponse, err error) {
	for resp, e := range seq {
		if e != nil {
			return text, calls, chunks, e
		}
		chunks = append(chunks, resp)
		fcs := resp.FunctionCalls()
		if len(fcs) == 0 { // Text() logs a warning on call parts
			text += resp.Text()
		}
		calls = append(calls, fcs...)
	}
	return text, calls, chunks, nil
}

// TestSDKStreaming: the scenario loop streamed at the default fragment size
// and one byte at a time gives the same calls and text as unstreamed.
func TestSDKStreaming(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}

	for _, size := range []string{"", "1"} {
		headers := map[string]string{mockprovider.ScenarioHeader: "single-call"}
		if size != "" {
			headers[mockprovider.StreamHeader] = "fragment_size=" + size
		}
		client := newClient(t, ts, "stream-"+size, headers, nil)
		history := []*genai.Content{genai.NewContentFromText("What's the weather in Tokyo?", genai.RoleUser)}
		_, calls, chunks, err := streamText(client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, cfg))
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || calls[0].Args["location"] != "Tokyo, Japan" || len(chunks) != 1 {
			t.Fatalf("size %q: calls %+v in %d chunks", size, calls, len(chunks))
		}
		modelTurn := chunks[0].Candidates[0].Content
		history = append(history, modelTurn, genai.NewContentFromParts([]*genai.Part{genai.NewPartFromFunctionResponse("get_weather", map[string]any{"output": "18C"})}, genai.RoleUser))
		text, _, chunks, err := streamText(client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, cfg))
		if err != nil {
			t.Fatal(err)
		}
		want := `The weather: get_weather: "{\"output\":\"18C\"}"`
		if text != want {
			t.Fatalf("size %q: text %q, want %q", size, text, want)
		}
		if size == "1" && len(chunks) != len(want) {
			t.Fatalf("fragment_size=1: %d chunks for %d bytes", len(chunks), len(want))
		}
		last := chunks[len(chunks)-1].Candidates[0]
		if last.FinishReason != genai.FinishReasonStop || chunks[0].Candidates[0].FinishReason != "" && len(chunks) > 1 {
			t.Fatalf("finishReason only on the last chunk: first %q last %q", chunks[0].Candidates[0].FinishReason, last.FinishReason)
		}
	}

	// Multi-byte characters are never split, even at one byte per chunk.
	client := newClient(t, ts, "stream-utf8", map[string]string{mockprovider.ScenarioHeader: "gemini-long-text", mockprovider.StreamHeader: "fragment_size=1"}, nil)
	text, _, _, err := streamText(client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, nil))
	if err != nil || text != "Streaming text arrives in fragments — even multi-byte ones like é and 東京." {
		t.Fatalf("text %q err %v", text, err)
	}
}

// TestSDKUnsignedScriptAndMintedIDs: a scenario call scripted with
// signature "-" arrives unsigned (so a Gemini 3 client replaying it is
// rejected, as the real API would), and EmitCallIDs mints call ids that
// the SDK echoes back.
func TestSDKUnsignedScriptAndMintedIDs(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Scenarios: testScenarios(t)})
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	history := []*genai.Content{genai.NewContentFromText("Weather?", genai.RoleUser)}
	client := newClient(t, ts, "unsigned", map[string]string{mockprovider.ScenarioHeader: "gemini-unsigned-call"}, nil)
	resp, err := client.Models.GenerateContent(ctx, "gemini-3-pro-preview", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sig := resp.Candidates[0].Content.Parts[0].ThoughtSignature; len(sig) != 0 {
		t.Fatalf("signature %q, want none", sig)
	}
	_, err = client.Models.GenerateContent(ctx, "gemini-3-pro-preview", append(history, resp.Candidates[0].Content, answer(resp, weatherResult)), cfg)
	if ae := apiError(t, err); ae.Code != 400 || !contains(ae.Message, "missing a thought_signature") {
		t.Fatalf("unsigned replay: %+v", ae)
	}

	ts = newServer(t, mockprovider.Options{Dialects: []dialect.Dialect{&gemini.Dialect{EmitCallIDs: true}}})
	client = newClient(t, ts, "ids", nil, nil)
	resp, err = client.Models.GenerateContent(ctx, "gemini-3-flash-preview", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if id := resp.FunctionCalls()[0].ID; id == "" {
		t.Fatal("EmitCallIDs: call without id")
	}
	if _, err := client.Models.GenerateContent(ctx, "gemini-3-flash-preview", append(history, resp.Candidates[0].Content, answer(resp, weatherResult)), cfg); err != nil {
		t.Fatal(err)
	}
}

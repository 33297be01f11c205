package gemini_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/gemini"
)

// The requests of this file are ones the real API answers 200 and the
// mock once refused; each must come back 200 with nothing answered as a
// MUST.

func assertNoMUST(t *testing.T, ts *mockprovider.TestServer, key string) {
	t.Helper()
	for _, v := range ts.Violations(key) {
		if v.Level == "MUST" {
			t.Fatalf("MUST violation journaled: %v", v)
		}
	}
}

func weatherCall(city string, sig []byte) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{Name: "get_weather", Args: map[string]any{"city": city}}, ThoughtSignature: sig}
}

func weatherResponse(output string) *genai.Part {
	return genai.NewPartFromFunctionResponse("get_weather", map[string]any{"output": output})
}

// TestSDKDummySignatureAsBytes: the documented dummy thought signatures
// held as bytes (what google-genai for Python sends, and the Go SDK for a
// []byte) reach the API base64-encoded; they bypass validation as their
// plain text does.
func TestSDKDummySignatureAsBytes(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := newClient(t, ts, "dummy-bytes", nil, nil)
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	for _, dummy := range []string{"context_engineering_is_the_way_to_go", "skip_thought_signature_validator"} {
		history := []*genai.Content{
			genai.NewContentFromText("What is the weather in Paris?", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{weatherCall("Paris", []byte(dummy))}},
			{Role: genai.RoleUser, Parts: []*genai.Part{weatherResponse("sunny")}},
		}
		if _, err := c.Models.GenerateContent(context.Background(), "gemini-3-pro-preview", history, cfg); err != nil {
			t.Fatalf("%s as bytes: %v", dummy, err)
		}
	}
	// The request carried the base64 form, not the text.
	if body := string(ts.Journal("dummy-bytes")[0].Request); !strings.Contains(body, base64.StdEncoding.EncodeToString([]byte("context_engineering_is_the_way_to_go"))) {
		t.Fatalf("the SDK sent %s", body)
	}
	assertNoMUST(t, ts, "dummy-bytes")
}

// TestSDKFileDataInFunctionResponse: on Gemini 3 a multimodal function
// response part may reference an uploaded file (fileData) instead of
// carrying its bytes, and the $ref names it by its displayName.
func TestSDKFileDataInFunctionResponse(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := newClient(t, ts, "file-data", nil, nil)
	photo := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_product_photo", Description: "Retrieves the product photo.",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"product_id": {Type: genai.TypeString}}}}}}
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{photo}}
	history := []*genai.Content{genai.NewContentFromText("Show me the photo of product PRD-001. Use get_product_photo.", genai.RoleUser)}
	resp, err := c.Models.GenerateContent(context.Background(), "gemini-3-pro-preview", history, cfg)
	if err != nil {
		t.Fatal(err)
	}
	call := resp.Candidates[0].Content
	if len(call.Parts) == 0 || call.Parts[0].FunctionCall == nil {
		t.Fatalf("no call: %+v", call.Parts)
	}
	history = append(history, call, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID:       call.Parts[0].FunctionCall.ID,
		Name:     "get_product_photo",
		Response: map[string]any{"image_ref": map[string]any{"$ref": "product_photo.png"}},
		Parts: []*genai.FunctionResponsePart{{FileData: &genai.FunctionResponseFileData{
			FileURI: "https://generativelanguage.googleapis.com/v1beta/files/p4o2x1", MIMEType: "image/png", DisplayName: "product_photo.png"}}},
	}}}})
	if _, err := c.Models.GenerateContent(context.Background(), "gemini-3-pro-preview", history, cfg); err != nil {
		t.Fatal(err)
	}
	assertNoMUST(t, ts, "file-data")
	res := ts.Journal("file-data")[1].Conversation.Turns[2].Parts[0].Result
	if len(res.Content) != 1 || res.Content[0].URL == "" {
		t.Fatalf("the model did not get the file: %+v", res)
	}
}

// TestSDKConsecutiveCallTurnsAnsweredTogether: two model turns of one call
// each, then one user turn answering both, in call order (Gemini 2.5, and
// Gemini 3 with each step signed).
func TestSDKConsecutiveCallTurnsAnsweredTogether(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := newClient(t, ts, "two-steps", nil, nil)
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	for _, model := range []string{"gemini-2.5-flash", "gemini-3-pro-preview"} {
		sig := []byte("skip_thought_signature_validator")
		history := []*genai.Content{
			genai.NewContentFromText("What is the weather in Paris and in Rome?", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{weatherCall("Paris", sig)}},
			{Role: genai.RoleModel, Parts: []*genai.Part{weatherCall("Rome", sig)}},
			{Role: genai.RoleUser, Parts: []*genai.Part{weatherResponse("sunny"), weatherResponse("rainy")}},
		}
		if _, err := c.Models.GenerateContent(context.Background(), model, history, cfg); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
	}
	assertNoMUST(t, ts, "two-steps")
}

// TestSingleValueForRepeatedField: a repeated field given one value
// instead of a list (tools, contents, parts, functionDeclarations,
// allowedFunctionNames, stopSequences) is read as a list of one, as
// Google's proto-JSON parser does; a wrong value inside still gets the
// field-types 400 at its element's path.
func TestSingleValueForRepeatedField(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	body := `{"contents":{"role":"user","parts":{"text":"What is the weather in Paris?"}},` +
		`"tools":{"functionDeclarations":{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":"city"}}},` +
		`"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":"get_weather"}},` +
		`"generationConfig":{"stopSequences":"END"}}`
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "single", []byte(body), nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"name":"get_weather"`) {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	assertNoMUST(t, ts, "single")
	conv := ts.Journal("single")[0].Conversation
	if len(conv.Turns) != 1 || len(conv.Tools) != 1 || conv.Tools[0].Name != "get_weather" || len(conv.Controls.StopSequences) != 1 {
		t.Fatalf("conversation %+v", conv)
	}

	resp, b = postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "single", []byte(`{"contents":{"parts":{"text":5}}}`), nil)
	if ge := parseGoogleError(t, http.StatusBadRequest, b); resp.Header.Get("X-Toolwire-Rule") != "gemini.field-types" ||
		ge.Error.Message != "Invalid JSON payload received. Invalid value at 'contents[0].parts[0].text' (TYPE_STRING), 5" {
		t.Fatalf("%s: %s", resp.Header.Get("X-Toolwire-Rule"), b)
	}
}

// TestSDKResponsesInConsecutiveUserContents: one model turn of three
// parallel calls answered by three consecutive user contents of one
// functionResponse each, then a user text: what crewAI sends and
// gemini-2.5-flash answers 200 (testdata/corpus/crewai.jsonl,
// TestGeminiNativeToolCalling parallel cassettes #2). The API reads the
// consecutive user contents as one turn, so a run that answers only two
// of the three calls still gets the count 400.
func TestSDKResponsesInConsecutiveUserContents(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := newClient(t, ts, "spread-responses", nil, nil)
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}}
	history := func(answered ...string) []*genai.Content {
		h := []*genai.Content{
			genai.NewContentFromText("What is the weather in Paris, Rome and Oslo?", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{weatherCall("Paris", nil), weatherCall("Rome", nil), weatherCall("Oslo", nil)}},
		}
		for _, output := range answered {
			h = append(h, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{weatherResponse(output)}})
		}
		return append(h, genai.NewContentFromText("Analyze the tool results.", genai.RoleUser))
	}
	if _, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", history("sunny", "rainy", "snowy"), cfg); err != nil {
		t.Fatalf("three responses in three user contents: %v", err)
	}
	assertNoMUST(t, ts, "spread-responses")

	_, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", history("sunny", "rainy"), cfg)
	if err == nil {
		t.Fatal("two responses to three calls accepted")
	}
	if ae := apiError(t, err); ae.Code != http.StatusBadRequest || ae.Message != gemini.MsgResponseCount {
		t.Fatalf("two responses to three calls: %d %q, want 400 %q", ae.Code, ae.Message, gemini.MsgResponseCount)
	}
}

// TestSafetySettingsByNumber: generative-ai-go (under langchaingo) sends
// safety settings' enums as numbers, which proto JSON reads as well as
// names; a string or a fraction there is still refused.
func TestSafetySettingsByNumber(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, c := range []struct {
		settings string
		want     int
	}{
		{`[{"category":10,"threshold":3}]`, http.StatusOK},
		{`[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","threshold":"BLOCK_ONLY_HIGH"}]`, http.StatusOK},
		{`[{"category":1.5,"threshold":3}]`, http.StatusBadRequest},
		{`[{"category":[10],"threshold":3}]`, http.StatusBadRequest},
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"safetySettings":` + c.settings + `}`
		resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "safety", []byte(body), nil)
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %s", c.settings, resp.StatusCode, b)
		}
	}
}

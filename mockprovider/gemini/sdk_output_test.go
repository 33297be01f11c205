package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// forecast is what the structured final answers unmarshal into.
type forecast struct {
	Summary     string  `json:"summary"`
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
	Conditions  string  `json:"conditions"`
}

// toolLoop runs the default model's weather loop through the SDK, whole or
// streamed: a call, its result, then the final answer, whose text and
// candidates are returned (streamed: every chunk's candidates).
func toolLoop(t *testing.T, client *genai.Client, modelName string, cfg *genai.GenerateContentConfig, stream bool) (string, [][]*genai.Candidate) {
	t.Helper()
	ctx := context.Background()
	history := []*genai.Content{genai.NewContentFromText("What's the weather in Tokyo?", genai.RoleUser)}
	for step := 0; step < 2; step++ {
		var text string
		var calls []*genai.FunctionCall
		var cands [][]*genai.Candidate
		turn := &genai.Content{Role: genai.RoleModel}
		if stream {
			var chunks []*genai.GenerateContentResponse
			var err error
			text, calls, chunks, err = streamText(client.Models.GenerateContentStream(ctx, modelName, history, cfg))
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range chunks {
				turn.Parts = append(turn.Parts, ch.Candidates[0].Content.Parts...)
				cands = append(cands, ch.Candidates)
			}
		} else {
			resp, err := client.Models.GenerateContent(ctx, modelName, history, cfg)
			if err != nil {
				t.Fatal(err)
			}
			calls = resp.FunctionCalls()
			if len(calls) == 0 {
				text = resp.Text()
			}
			turn = resp.Candidates[0].Content
			cands = append(cands, resp.Candidates)
		}
		if step == 1 {
			if len(calls) != 0 {
				t.Fatalf("second step still calls: %+v", calls)
			}
			return text, cands
		}
		if len(calls) != 1 || calls[0].Name != "get_weather" {
			t.Fatalf("first step: calls %+v, text %q", calls, text)
		}
		response := genai.NewPartFromFunctionResponse("get_weather", weatherResult(calls[0]))
		response.FunctionResponse.ID = calls[0].ID
		history = append(history, turn, genai.NewContentFromParts([]*genai.Part{response}, genai.RoleUser))
	}
	return "", nil
}

// forms runs f whole and streamed.
func forms(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		if stream {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) { f(t, stream) })
	}
}

// keysInOrder reports whether the object text's top-level keys come in
// the order given.
func keysInOrder(t *testing.T, text string, want ...string) bool {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %q", text)
	}
	var got []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(got, ",") == strings.Join(want, ",")
}

// TestSDKResponseSchemaAfterToolLoop: with responseMimeType
// application/json and a responseSchema, the call step is unchanged and
// the final answer is the JSON the schema describes, its keys in
// propertyOrdering's order, whole and streamed. Gemini 3: earlier models
// refuse JSON mode beside function declarations.
func TestSDKResponseSchemaAfterToolLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	schema := &genai.Schema{
		Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{
			"summary":     {Type: genai.TypeString},
			"city":        {Type: genai.TypeString},
			"temperature": {Type: genai.TypeNumber},
			"conditions":  {Type: genai.TypeString, Format: "enum", Enum: []string{"sunny", "cloudy", "rain"}},
		},
		Required:         []string{"summary", "city", "temperature", "conditions"},
		PropertyOrdering: []string{"summary", "city", "temperature", "conditions"},
	}
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}, ResponseMIMEType: "application/json", ResponseSchema: schema}
	forms(t, func(t *testing.T, stream bool) {
		key := "schema-" + t.Name()
		text, _ := toolLoop(t, newClient(t, ts, key, nil, nil), "gemini-3-flash-preview", cfg, stream)
		var f forecast
		if err := json.Unmarshal([]byte(text), &f); err != nil {
			t.Fatalf("final text is not the schema's JSON: %v: %q", err, text)
		}
		if f.Summary == "" || f.City == "" || (f.Conditions != "sunny" && f.Conditions != "cloudy" && f.Conditions != "rain") {
			t.Errorf("value %+v does not fill the schema", f)
		}
		if !keysInOrder(t, text, "summary", "city", "temperature", "conditions") {
			t.Errorf("keys not in propertyOrdering's order: %s", text)
		}
		if vs := ts.Violations(key); len(vs) != 0 {
			t.Errorf("violations: %v", vs)
		}
	})
}

// TestSDKResponseJSONSchemaAfterToolLoop: responseJsonSchema works the same
// way, the keys in the order the schema reaches the API in: go-genai turns
// the config into a map before sending it, so that is name order
// (TestJSONSchemaKeyOrder checks the order of a schema sent as written).
func TestSDKResponseJSONSchemaAfterToolLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	schema := json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"},"temperature":{"type":"number"},"city":{"type":"string"}},"required":["summary","temperature","city"],"additionalProperties":false}`)
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}, ResponseMIMEType: "application/json", ResponseJsonSchema: schema}
	forms(t, func(t *testing.T, stream bool) {
		key := "jsonschema-" + t.Name()
		text, _ := toolLoop(t, newClient(t, ts, key, nil, nil), "gemini-3-flash-preview", cfg, stream)
		var f forecast
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil || f.Summary == "" || f.City == "" {
			t.Fatalf("final text %q: %v", text, err)
		}
		if !keysInOrder(t, text, "city", "summary", "temperature") {
			t.Errorf("keys not in the schema's order: %s", text)
		}
		if vs := ts.Violations(key); len(vs) != 0 {
			t.Errorf("violations: %v", vs)
		}
	})
}

// TestSDKJSONModeAndEnum: application/json with no schema answers a JSON
// value; text/x.enum answers one enum value as bare text.
func TestSDKJSONModeAndEnum(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	ctx := context.Background()
	ask := []*genai.Content{genai.NewContentFromText("Which instrument family is the oboe?", genai.RoleUser)}
	enum := &genai.GenerateContentConfig{ResponseMIMEType: "text/x.enum", ResponseSchema: &genai.Schema{Type: genai.TypeString, Format: "enum", Enum: []string{"Percussion", "String", "Woodwind"}}}
	forms(t, func(t *testing.T, stream bool) {
		client := newClient(t, ts, "enum-"+t.Name(), nil, nil)
		for name, cfg := range map[string]*genai.GenerateContentConfig{"json mode": {ResponseMIMEType: "application/json"}, "enum": enum} {
			var text string
			if stream {
				var err error
				if text, _, _, err = streamText(client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", ask, cfg)); err != nil {
					t.Fatal(err)
				}
			} else {
				resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", ask, cfg)
				if err != nil {
					t.Fatal(err)
				}
				text = resp.Text()
			}
			switch name {
			case "json mode":
				if !json.Valid([]byte(text)) {
					t.Errorf("json mode: %q is not JSON", text)
				}
			case "enum":
				if text != "Percussion" && text != "String" && text != "Woodwind" {
					t.Errorf("enum: %q is not one of the values, bare", text)
				}
			}
		}
	})
}

// TestSDKCandidateCount: candidateCount 2 on gemini-2.5-flash gives two
// candidates, indexed 0 and 1, in every chunk, whole and streamed, on the
// call step and the final answer alike.
func TestSDKCandidateCount(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}, CandidateCount: 2}
	forms(t, func(t *testing.T, stream bool) {
		key := "candidates-" + t.Name()
		_, cands := toolLoop(t, newClient(t, ts, key, nil, nil), "gemini-2.5-flash", cfg, stream)
		for i, cs := range cands {
			if len(cs) != 2 || cs[0].Index != 0 || cs[1].Index != 1 {
				t.Fatalf("chunk %d: %d candidates %+v", i, len(cs), cs)
			}
			a, _ := json.Marshal(cs[0].Content)
			b, _ := json.Marshal(cs[1].Content)
			if string(a) != string(b) {
				t.Errorf("chunk %d: candidates differ: %s vs %s", i, a, b)
			}
		}
		last := cands[len(cands)-1]
		if last[0].FinishReason != genai.FinishReasonStop || last[1].FinishReason != genai.FinishReasonStop {
			t.Errorf("finish reasons %s %s", last[0].FinishReason, last[1].FinishReason)
		}
		if vs := ts.Violations(key); len(vs) != 0 {
			t.Errorf("violations: %v", vs)
		}
	})
}

// TestSDKValidatedAllowedNames: mode VALIDATED with allowedFunctionNames
// limits calls to those names though the prompt names another tool; mode
// ANY with two names does too.
func TestSDKValidatedAllowedNames(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	ctx := context.Background()
	ask := []*genai.Content{genai.NewContentFromText("Use get_weather for Paris.", genai.RoleUser)}
	for _, mode := range []genai.FunctionCallingConfigMode{genai.FunctionCallingConfigModeValidated, genai.FunctionCallingConfigModeAny} {
		cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool(), timeTool()},
			ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: mode, AllowedFunctionNames: []string{"get_time"}}}}
		t.Run(string(mode), func(t *testing.T) {
			forms(t, func(t *testing.T, stream bool) {
				key := "validated-" + strings.ReplaceAll(t.Name(), "/", "-")
				client := newClient(t, ts, key, nil, nil)
				var calls []*genai.FunctionCall
				if stream {
					var err error
					if _, calls, _, err = streamText(client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", ask, cfg)); err != nil {
						t.Fatal(err)
					}
				} else {
					resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", ask, cfg)
					if err != nil {
						t.Fatal(err)
					}
					calls = resp.FunctionCalls()
				}
				if len(calls) != 1 || calls[0].Name != "get_time" {
					t.Errorf("calls %+v, want one get_time", calls)
				}
				if vs := ts.Violations(key); len(vs) != 0 {
					t.Errorf("violations: %v", vs)
				}
			})
		})
	}
}

// TestJSONSchemaKeyOrder: a responseJsonSchema sent as written lays the
// answer's keys out in its order (Gemini 2.5 and later keep it), with
// propertyOrdering first where given, nested objects and array items
// included.
func TestJSONSchemaKeyOrder(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	const schema = `{"type":"object","properties":{
		"zeta":{"type":"string"},
		"alpha":{"type":"array","items":{"type":"object","properties":{"y":{"type":"integer"},"b":{"type":"integer"}},"required":["y","b"]},"minItems":1},
		"mid":{"type":"object","properties":{"q":{"type":"boolean"},"c":{"type":"boolean"},"k":{"type":"boolean"}},"required":["q","c","k"],"propertyOrdering":["k"]}},
		"required":["zeta","alpha","mid"]}`
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":` + schema + `}}`
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "order", []byte(body), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var out struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Candidates) != 1 || len(out.Candidates[0].Content.Parts) != 1 {
		t.Fatalf("answer %s: %v", b, err)
	}
	text := out.Candidates[0].Content.Parts[0].Text
	if !keysInOrder(t, text, "zeta", "alpha", "mid") {
		t.Errorf("top-level keys not in the schema's order: %s", text)
	}
	var v struct {
		Alpha []json.RawMessage `json:"alpha"`
		Mid   json.RawMessage   `json:"mid"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil || len(v.Alpha) == 0 {
		t.Fatalf("%s: %v", text, err)
	}
	if !keysInOrder(t, string(v.Alpha[0]), "y", "b") {
		t.Errorf("item keys not in the schema's order: %s", v.Alpha[0])
	}
	if !keysInOrder(t, string(v.Mid), "k", "q", "c") {
		t.Errorf("nested keys not propertyOrdering then the schema's order: %s", v.Mid)
	}
}

// TestSDKOutputRefusals: what the API refuses reaches the SDK as a
// genai.APIError with the API's words, whole and streamed — JSON mode
// beside a function before Gemini 3, several candidates on Gemini 3 —
// and the SHOULD breaches are answered and journaled.
func TestSDKOutputRefusals(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	ctx := context.Background()
	ask := []*genai.Content{genai.NewContentFromText("What's the weather in Tokyo?", genai.RoleUser)}
	refusals := []struct {
		model, rule, message string
		cfg                  *genai.GenerateContentConfig
	}{
		{"gemini-2.5-flash", "gemini.function-calling-json-mime", gemini.MsgFunctionCallingJSONMime,
			&genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()}, ResponseMIMEType: "application/json"}},
		{"gemini-3-flash-preview", "gemini.candidate-count-model", gemini.MsgMultipleCandidates,
			&genai.GenerateContentConfig{CandidateCount: 2}},
	}
	for _, r := range refusals {
		t.Run(r.rule, func(t *testing.T) {
			forms(t, func(t *testing.T, stream bool) {
				client := newClient(t, ts, "refusal", nil, nil)
				var err error
				if stream {
					_, _, _, err = streamText(client.Models.GenerateContentStream(ctx, r.model, ask, r.cfg))
				} else {
					_, err = client.Models.GenerateContent(ctx, r.model, ask, r.cfg)
				}
				ae := apiError(t, err)
				if ae.Code != 400 || ae.Status != "INVALID_ARGUMENT" || ae.Message != r.message {
					t.Errorf("error %+v, want 400 INVALID_ARGUMENT %q", ae, r.message)
				}
			})
		})
	}
	journaled := []struct {
		rule string
		cfg  *genai.GenerateContentConfig
	}{
		{"gemini.response-schema-needs-mime", &genai.GenerateContentConfig{ResponseSchema: &genai.Schema{Type: genai.TypeString}}},
		{"gemini.response-one-schema", &genai.GenerateContentConfig{ResponseMIMEType: "application/json", ResponseSchema: &genai.Schema{Type: genai.TypeString}, ResponseJsonSchema: map[string]any{"type": "string"}}},
		{"gemini.candidate-count-range", &genai.GenerateContentConfig{CandidateCount: 9}},
		{"gemini.response-json-schema-subset", &genai.GenerateContentConfig{ResponseMIMEType: "application/json",
			ResponseJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string", "minLength": 1}}}}},
		{"gemini.allowed-function-names-mode", &genai.GenerateContentConfig{Tools: []*genai.Tool{weatherTool()},
			ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto, AllowedFunctionNames: []string{"get_weather"}}}}},
	}
	for _, j := range journaled {
		key := "journaled-" + j.rule
		if _, err := newClient(t, ts, key, nil, nil).Models.GenerateContent(ctx, "gemini-2.5-flash", ask, j.cfg); err != nil {
			t.Fatalf("%s: %v", j.rule, err)
		}
		assertJournaled(t, ts, key, j.rule)
	}
}

// TestScriptedOutput: a scenario turn's scripted output is the answer,
// laid out in the schema's key order; one that breaks the schema is still
// sent and the journal names it a scenario error.
func TestScriptedOutput(t *testing.T) {
	set := testScenarios(t)
	for _, sc := range []*scenario.Scenario{
		{Name: "gemini-scripted-output", Description: "A scripted structured answer.",
			Turns: []scenario.Turn{{Output: map[string]any{"city": "Paris", "summary": "mild"}}}},
		{Name: "gemini-scripted-output-wrong", Description: "A scripted answer that misses a required key.",
			Turns: []scenario.Turn{{Output: map[string]any{"city": "Paris"}}}},
	} {
		if err := set.Add(sc); err != nil {
			t.Fatal(err)
		}
	}
	ts := newServer(t, mockprovider.Options{Scenarios: set})
	ctx := context.Background()
	ask := []*genai.Content{genai.NewContentFromText("Summarise the weather.", genai.RoleUser)}
	cfg := &genai.GenerateContentConfig{ResponseMIMEType: "application/json", ResponseSchema: &genai.Schema{Type: genai.TypeObject,
		Properties:       map[string]*genai.Schema{"city": {Type: genai.TypeString}, "summary": {Type: genai.TypeString}},
		Required:         []string{"summary", "city"},
		PropertyOrdering: []string{"summary", "city"}}}
	for name, want := range map[string]string{"gemini-scripted-output": `{"summary":"mild","city":"Paris"}`, "gemini-scripted-output-wrong": `{"city":"Paris"}`} {
		client := newClient(t, ts, name, map[string]string{mockprovider.ScenarioHeader: name}, nil)
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", ask, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text() != want {
			t.Errorf("%s: text %s, want %s", name, resp.Text(), want)
		}
		noted := false
		for _, n := range ts.Journal(name)[0].Notes {
			noted = noted || strings.Contains(n, "scenario error")
		}
		if noted != (name == "gemini-scripted-output-wrong") {
			t.Errorf("%s: notes %v", name, ts.Journal(name)[0].Notes)
		}
	}
}

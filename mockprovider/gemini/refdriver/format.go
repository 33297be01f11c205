package refdriver

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Format is the generateContent half of the reference format driver. It
// works on raw JSON, not the SDK, so it and the SDK loop check each other.
func Format() formatdriver.FormatDialect { return geminiFormat{} }

type geminiFormat struct{}

func (geminiFormat) Name() string { return "gemini" }

// The mistakes only this wire can make.
const (
	// stringifyResponse sends structured output as a JSON string under
	// "output" instead of the response object.
	stringifyResponse formatdriver.Break = "stringify-gemini-response"
	// idsMissing gives calls the functionCall's own id (empty when it has
	// none) instead of the synthetic gemini_N ids.
	idsMissing formatdriver.Break = "gemini-ids-missing"
)

func (geminiFormat) Breaks() []formatdriver.BreakInfo {
	return []formatdriver.BreakInfo{
		{Name: stringifyResponse, Summary: "Gemini structured output sent as a JSON string under \"output\"", Rules: []string{"gemini.structured-response-object"}},
		{Name: formatdriver.OmitIsError, Rules: []string{"gemini.error-flagged"}},
		{Name: idsMissing, Summary: "Gemini calls left without the synthetic gemini_N ids", Rules: []string{"gemini.normalize-calls"}},
	}
}

// FormatResult is a user content holding one functionResponse part:
// response is always an object — structured content as is, text under
// "output", errors under "error" (go-genai FunctionResponse.Response doc);
// media travel as inlineData parts referenced by {"$ref": displayName} on
// Gemini 3 models (https://ai.google.dev/gemini-api/docs/function-calling#multimodal)
// and as a note on older models, which reject them.
func (geminiFormat) FormatResult(brk formatdriver.Break, call formatdriver.Call, r task.CallToolResult, model string) (map[string]any, error) {
	fr := map[string]any{"name": call.Name}
	// gemini_N ids are local; only a call's own id goes back to the API.
	if call.CallID != "" && !strings.HasPrefix(call.CallID, "gemini_") {
		fr["id"] = call.CallID
	}
	multimodal := strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3")
	t := formatdriver.Text(r)
	if !multimodal {
		t = formatdriver.PlainText(brk, task.CallToolResult{Content: r.Content, StructuredContent: r.StructuredContent})
	}
	var response map[string]any
	switch {
	case r.IsError && brk != formatdriver.OmitIsError:
		response = map[string]any{"error": t}
	case r.StructuredContent != nil && brk == stringifyResponse:
		b, _ := json.Marshal(r.StructuredContent)
		response = map[string]any{"output": string(b)}
	case r.StructuredContent != nil:
		response = maps.Clone(r.StructuredContent)
	default:
		response = map[string]any{"output": t}
	}
	if multimodal {
		var parts []any
		for i, m := range r.Media() {
			name := fmt.Sprintf("attachment-%d", i+1)
			parts = append(parts, map[string]any{"inlineData": map[string]any{"mimeType": m.MimeType, "data": m.Data, "displayName": name}})
			response[fmt.Sprintf("attachment_%d", i+1)] = map[string]any{"$ref": name}
		}
		if parts != nil {
			fr["parts"] = parts
		}
	}
	fr["response"] = response
	return map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": fr}}}, nil
}

// NormalizeCalls reads the first candidate's functionCall parts, giving
// them the synthetic ids gemini_0, gemini_1, … (calls before Gemini 3 have
// none; https://ai.google.dev/gemini-api/docs/function-calling).
func (geminiFormat) NormalizeCalls(brk formatdriver.Break, raw json.RawMessage) ([]formatdriver.Call, error) {
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					FunctionCall *struct {
						ID   string         `json:"id"`
						Name string         `json:"name"`
						Args map[string]any `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("not a generateContent response: %v", err)
	}
	calls := []formatdriver.Call{}
	if len(resp.Candidates) == 0 {
		return calls, nil
	}
	for _, p := range resp.Candidates[0].Content.Parts {
		fc := p.FunctionCall
		if fc == nil {
			continue
		}
		id := fmt.Sprintf("gemini_%d", len(calls))
		if brk == idsMissing {
			id = fc.ID
		}
		calls = append(calls, formatdriver.Call{Name: fc.Name, CallID: id, Arguments: formatdriver.ObjectArguments(fc.Args)})
	}
	return calls, nil
}

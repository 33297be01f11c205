package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// formatMode: format_result answers a user content with functionResponse
// parts (a bare part is accepted too).
type formatMode struct{}

// Format is what the conformance suite's format mode knows of the Gemini
// API.
func (d *Dialect) Format() dialect.Format { return formatMode{} }

func (formatMode) NativeRule() (string, string) {
	return "format_result answers a user content whose functionResponse part names the call's function", guide
}

func (formatMode) NormalizeWording() (string, string) {
	return `synthetic ids "gemini_0", "gemini_1", … in call order (the calls' own ids are accepted where they have one)`, "the args object ({} when absent)"
}

// Model is Gemini 3 for the cases whose results carry media: only it
// takes multimodal function responses.
func (formatMode) Model(c *dialect.FormatCase) string {
	if c.Media {
		return "gemini-3-flash-preview"
	}
	return "gemini-2.5-flash"
}

// CallID: Gemini (before 3) gives calls no id, so the adapter's synthetic
// one.
func (formatMode) CallID(_ string, i int) string { return fmt.Sprintf("gemini_%d", i) }

func (formatMode) NativeShape(m map[string]any) string {
	if _, ok := m["functionResponse"]; ok {
		return ""
	}
	parts, _ := m["parts"].([]any)
	if len(parts) == 0 {
		return "not a content with parts (nor a functionResponse part)"
	}
	if r := dialect.StringField(m, "role"); r != "user" {
		return fmt.Sprintf("role is %q, want \"user\"", r)
	}
	for _, p := range parts {
		if pm, _ := p.(map[string]any); pm["functionResponse"] != nil {
			return ""
		}
	}
	return "the content holds no functionResponse part"
}

func (formatMode) NativeFix() string {
	return `answer {"role": "user", "parts": [{"functionResponse": {"name": <name>, "response": {...}}}]}`
}

func (formatMode) Tool(name, description string, schema map[string]any) any {
	return map[string]any{"name": name, "description": description, "parametersJsonSchema": schema}
}

func (formatMode) Request(_ string, c *dialect.FormatCase, tools []any, outputs []json.RawMessage) ([]byte, error) {
	var calls []any
	for i, call := range c.Calls {
		p := map[string]any{"functionCall": map[string]any{"name": call.Name, "args": call.Args}}
		if i == 0 && c.Media {
			// The documented dummy signature for Gemini 3: the call turn
			// is built here, not replayed from a real response.
			p["thoughtSignature"] = "skip_thought_signature_validator"
		}
		calls = append(calls, p)
	}
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": dialect.FormatPrompt}}}, map[string]any{"role": "model", "parts": calls}}
	// All responses to one turn's calls travel in one content
	// (https://ai.google.dev/gemini-api/docs/function-calling).
	var parts []any
	var other []any
	for _, o := range outputs {
		var m map[string]any
		_ = json.Unmarshal(o, &m)
		if _, ok := m["functionResponse"]; ok {
			parts = append(parts, m)
		} else if list, ok := m["parts"].([]any); ok && m["role"] == "user" {
			parts = append(parts, list...)
		} else {
			other = append(other, m)
		}
	}
	if len(parts) > 0 {
		contents = append(contents, map[string]any{"role": "user", "parts": parts})
	}
	contents = append(contents, other...)
	return json.Marshal(map[string]any{"contents": contents, "tools": []any{map[string]any{"functionDeclarations": tools}}})
}

// OwnCallIDs lists the functionCall ids the response carries (empty
// strings where a call has none): a call's own id is accepted as well as
// the synthetic one.
func (formatMode) OwnCallIDs(response json.RawMessage) []string {
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					FunctionCall *struct {
						ID string `json:"id"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if json.Unmarshal(response, &resp) != nil || len(resp.Candidates) == 0 {
		return nil
	}
	var out []string
	for _, p := range resp.Candidates[0].Content.Parts {
		if p.FunctionCall != nil {
			out = append(out, p.FunctionCall.ID)
		}
	}
	return out
}

func (formatMode) CallIDFix() string {
	return "give Gemini calls the synthetic ids gemini_0, gemini_1, … in call order (https://ai.google.dev/gemini-api/docs/function-calling)"
}

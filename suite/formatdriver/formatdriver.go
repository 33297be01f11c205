// Package formatdriver is the reference format driver: the two pure
// functions an adapter library is made of, behind the JSON-lines contract
// of `toolwire conform --format-driver CMD`.
//
//   - format_result: {op, dialect, call: {name, call_id, arguments},
//     result: MCP CallToolResult, model} → the dialect's native result: an
//     OpenAI Chat tool message, a Responses function_call_output item, an
//     Anthropic user message holding a tool_result block, a Gemini user
//     content holding a functionResponse part.
//   - normalize_calls: {op, dialect, response: raw provider response} →
//     {calls: [{name, call_id, arguments}]}, arguments always an object,
//     Gemini calls given the synthetic ids gemini_0, gemini_1, … (https://ai.google.dev/gemini-api/docs/function-calling
//     §Hands-on exercise).
//
// Each request is one line on stdin, each answer one line on stdout; a
// request the driver cannot serve is answered {"error": "…"}. Break
// variants commit one classic mistake each, so the suite can prove its
// checks catch them. The package works on raw JSON, independently of the
// SDK-based reference driver, so the two check each other.
package formatdriver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolwire/toolwire/suite/task"
)

// Break names a deliberate mistake.
type Break string

const (
	// StringifyGeminiResponse sends structured output to Gemini as a JSON
	// string under "output" instead of the response object.
	StringifyGeminiResponse Break = "stringify-gemini-response"
	// OmitIsError drops the error marking: no is_error (Anthropic), the
	// error under "output" (Gemini), no "Error: " prefix (OpenAI, where
	// the error's own text still tells the model: not a mistake there).
	OmitIsError Break = "omit-is-error"
	// ErrorAsNull sends "null" as the OpenAI output of a tool error (the
	// JSON of the structured content errors lack): the error is lost.
	ErrorAsNull Break = "error-as-null"
	// IDForToolUseID names the Anthropic tool_result's call reference "id"
	// instead of "tool_use_id".
	IDForToolUseID Break = "id-for-tool-use-id"
	// ArgumentsAsObject assumes OpenAI arguments already are an object and
	// passes the JSON string through unparsed.
	ArgumentsAsObject Break = "arguments-as-object"
	// GeminiIDsMissing gives Gemini calls the functionCall's own id (empty
	// when it has none) instead of the synthetic gemini_N ids.
	GeminiIDsMissing Break = "gemini-ids-missing"
)

// BreakInfo describes a break variant and the rules it should fail.
type BreakInfo struct {
	Name    Break
	Summary string
	Rules   []string
}

var breaks = []BreakInfo{
	{StringifyGeminiResponse, "Gemini structured output sent as a JSON string under \"output\"", []string{"gemini.structured-response-object"}},
	{OmitIsError, "tool errors sent as ordinary results", []string{"anthropic.error-flagged", "bedrock.error-flagged", "gemini.error-flagged"}},
	{ErrorAsNull, `OpenAI tool errors sent as the output "null"`, []string{"openai-chat.error-flagged", "openai-chat.result-carries-data", "openai-responses.error-flagged", "openai-responses.result-carries-data"}},
	{IDForToolUseID, "Anthropic tool_result references its call with \"id\", not \"tool_use_id\"", []string{"anthropic.format-result-native"}},
	{ArgumentsAsObject, "OpenAI arguments passed through as the JSON string", []string{"openai-chat.normalize-arguments", "openai-responses.normalize-arguments"}},
	{GeminiIDsMissing, "Gemini calls left without the synthetic gemini_N ids", []string{"gemini.normalize-calls"}},
}

// Breaks lists the variants.
func Breaks() []BreakInfo { return append([]BreakInfo(nil), breaks...) }

// LookupBreak finds a variant ("" is the honest driver).
func LookupBreak(name string) (BreakInfo, bool) {
	if name == "" {
		return BreakInfo{}, true
	}
	for _, b := range breaks {
		if string(b.Name) == name {
			return b, true
		}
	}
	return BreakInfo{}, false
}

// Request is one line of the contract.
type Request struct {
	Op       string          `json:"op"`
	Dialect  string          `json:"dialect"`
	Call     *Call           `json:"call,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Model    string          `json:"model,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// Call is a normalized function call.
type Call struct {
	Name      string `json:"name"`
	CallID    string `json:"call_id"`
	Arguments any    `json:"arguments"`
}

// Driver answers requests; Break selects a mistake ("" = honest).
type Driver struct{ Break Break }

// Handle answers one request line.
func (d *Driver) Handle(line []byte) any {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return map[string]any{"error": "request is not a JSON object: " + err.Error()}
	}
	switch req.Op {
	case "format_result":
		if req.Call == nil {
			return map[string]any{"error": "format_result needs call"}
		}
		var r task.CallToolResult
		if err := json.Unmarshal(req.Result, &r); err != nil {
			return map[string]any{"error": "result is not an MCP CallToolResult: " + err.Error()}
		}
		out, err := d.FormatResult(req.Dialect, *req.Call, r, req.Model)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return out
	case "normalize_calls":
		calls, err := d.NormalizeCalls(req.Dialect, req.Response)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return map[string]any{"calls": calls}
	}
	return map[string]any{"error": fmt.Sprintf("unknown op %q (want format_result or normalize_calls)", req.Op)}
}

// Serve reads request lines until EOF and answers each on its own line.
func (d *Driver) Serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	bw := bufio.NewWriter(w)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		b, err := json.Marshal(d.Handle([]byte(line)))
		if err != nil {
			b, _ = json.Marshal(map[string]any{"error": err.Error()})
		}
		bw.Write(b)
		bw.WriteByte('\n')
		// One answer per request, flushed: the caller waits for it.
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// FormatResult converts an MCP CallToolResult into the dialect's native
// result for the given call.
func (d *Driver) FormatResult(dialect string, call Call, r task.CallToolResult, model string) (map[string]any, error) {
	switch dialect {
	case "openai-chat":
		// Tool messages carry text only (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
		return map[string]any{"role": "tool", "tool_call_id": call.CallID, "content": d.plainText(r)}, nil
	case "openai-responses":
		return map[string]any{"type": "function_call_output", "call_id": call.CallID, "output": d.responsesOutput(r)}, nil
	case "anthropic":
		block := map[string]any{"type": "tool_result", "tool_use_id": call.CallID, "content": anthropicContent(r)}
		if d.Break == IDForToolUseID {
			delete(block, "tool_use_id")
			block["id"] = call.CallID
		}
		if r.IsError && d.Break != OmitIsError {
			block["is_error"] = true
		}
		return map[string]any{"role": "user", "content": []any{block}}, nil
	case "gemini":
		return map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": d.geminiResponse(call, r, model)}}}, nil
	case "bedrock":
		block := map[string]any{"toolUseId": call.CallID, "content": bedrockContent(r)}
		if r.IsError && d.Break != OmitIsError {
			block["status"] = "error"
		}
		return map[string]any{"role": "user", "content": []any{map[string]any{"toolResult": block}}}, nil
	}
	return nil, fmt.Errorf("unknown dialect %q", dialect)
}

// errorText prefixes an error's text for wires without an error flag
// (https://platform.openai.com/docs/guides/function-calling).
func (d *Driver) errorText(r task.CallToolResult, text string) string {
	if r.IsError && d.Break == ErrorAsNull {
		return "null"
	}
	if !r.IsError || d.Break == OmitIsError || strings.HasPrefix(strings.ToLower(text), "error") {
		return text
	}
	return "Error: " + text
}

// text is the result's text, or its structured content as JSON.
func text(r task.CallToolResult) string {
	t := r.Text()
	if t == "" && r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		t = string(b)
	}
	return t
}

// plainText is the text form for text-only wires: media become a note.
func (d *Driver) plainText(r task.CallToolResult) string {
	t := d.errorText(r, text(r))
	for _, m := range r.Media() {
		if t != "" {
			t += "\n"
		}
		t += fmt.Sprintf("[%s attachment omitted: this API takes no media in tool results]", m.MimeType)
	}
	return t
}

// responsesOutput is a string, or input_text/input_image/input_file items
// when the result carries media (https://platform.openai.com/docs/guides/function-calling).
func (d *Driver) responsesOutput(r task.CallToolResult) any {
	media := r.Media()
	if len(media) == 0 {
		return d.errorText(r, text(r))
	}
	var items []any
	if t := d.errorText(r, text(r)); t != "" {
		items = append(items, map[string]any{"type": "input_text", "text": t})
	}
	for i, m := range media {
		url := "data:" + m.MimeType + ";base64," + m.Data
		if m.IsImage() {
			items = append(items, map[string]any{"type": "input_image", "image_url": url})
		} else {
			items = append(items, map[string]any{"type": "input_file", "filename": fmt.Sprintf("attachment-%d", i+1), "file_data": url})
		}
	}
	return items
}

// anthropicContent is the tool_result content: text, image and document
// blocks (https://platform.openai.com/docs/guides/function-calling).
func anthropicContent(r task.CallToolResult) []any {
	var out []any
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			out = append(out, map[string]any{"type": "text", "text": c.Text})
		case c.Type == "image" && c.Data != "":
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": c.MimeType, "data": c.Data}})
		case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
			out = append(out, map[string]any{"type": "text", "text": c.Resource.Text})
		case c.Type == "resource" && c.Resource != nil && c.Resource.MimeType == "application/pdf":
			out = append(out, map[string]any{"type": "document", "source": map[string]any{"type": "base64", "media_type": "application/pdf", "data": c.Resource.Blob}})
		case c.Type == "resource" && c.Resource != nil && strings.HasPrefix(c.Resource.MimeType, "image/"):
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": c.Resource.MimeType, "data": c.Resource.Blob}})
		}
	}
	if len(out) == 0 {
		out = append(out, map[string]any{"type": "text", "text": text(r)})
	}
	return out
}

// bedrockContent is the toolResult content: text, image and document
// blocks, structured content as a json block
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultContentBlock.html).
func bedrockContent(r task.CallToolResult) []any {
	var out []any
	image := func(mime, data string) {
		out = append(out, map[string]any{"image": map[string]any{"format": strings.TrimPrefix(mime, "image/"), "source": map[string]any{"bytes": data}}})
	}
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			out = append(out, map[string]any{"text": c.Text})
		case c.Type == "image" && c.Data != "":
			image(c.MimeType, c.Data)
		case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
			out = append(out, map[string]any{"text": c.Resource.Text})
		case c.Type == "resource" && c.Resource != nil && c.Resource.MimeType == "application/pdf":
			out = append(out, map[string]any{"document": map[string]any{"format": "pdf", "name": "document", "source": map[string]any{"bytes": c.Resource.Blob}}})
		case c.Type == "resource" && c.Resource != nil && strings.HasPrefix(c.Resource.MimeType, "image/"):
			image(c.Resource.MimeType, c.Resource.Blob)
		}
	}
	if r.StructuredContent != nil {
		out = append(out, map[string]any{"json": r.StructuredContent})
	}
	if len(out) == 0 {
		out = append(out, map[string]any{"text": text(r)})
	}
	return out
}

// geminiResponse builds a functionResponse: response is always an object —
// structured content as is, text under "output", errors under "error"
// (go-genai FunctionResponse.Response doc); media travel as inlineData
// parts referenced by {"$ref": displayName} on Gemini 3 models (https://ai.google.dev/gemini-api/docs/function-calling#multimodal)
// and as a note on older models, which reject them.
func (d *Driver) geminiResponse(call Call, r task.CallToolResult, model string) map[string]any {
	fr := map[string]any{"name": call.Name}
	// gemini_N ids are local; only a call's own id goes back to the API.
	if call.CallID != "" && !strings.HasPrefix(call.CallID, "gemini_") {
		fr["id"] = call.CallID
	}
	multimodal := strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3")
	t := text(r)
	if !multimodal {
		t = d.plainText(task.CallToolResult{Content: r.Content, StructuredContent: r.StructuredContent})
	}
	var response map[string]any
	switch {
	case r.IsError && d.Break != OmitIsError:
		response = map[string]any{"error": t}
	case r.StructuredContent != nil && d.Break == StringifyGeminiResponse:
		b, _ := json.Marshal(r.StructuredContent)
		response = map[string]any{"output": string(b)}
	case r.StructuredContent != nil:
		response = map[string]any{}
		for k, v := range r.StructuredContent {
			response[k] = v
		}
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
	return fr
}

// NormalizeCalls extracts the function calls of a raw provider response,
// in order, with object arguments.
func (d *Driver) NormalizeCalls(dialect string, raw json.RawMessage) ([]Call, error) {
	calls := []Call{}
	switch dialect {
	case "openai-chat":
		var resp struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("not a chat completion: %v", err)
		}
		if len(resp.Choices) == 0 {
			return calls, nil
		}
		for _, tc := range resp.Choices[0].Message.ToolCalls {
			if tc.Type != "" && tc.Type != "function" {
				continue
			}
			calls = append(calls, Call{Name: tc.Function.Name, CallID: tc.ID, Arguments: d.openAIArgs(tc.Function.Arguments)})
		}
	case "openai-responses":
		var resp struct {
			Output []struct {
				Type      string `json:"type"`
				CallID    string `json:"call_id"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"output"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("not a response: %v", err)
		}
		for _, it := range resp.Output {
			if it.Type == "function_call" {
				// call_id, not the fc_ item id (https://platform.openai.com/docs/guides/function-calling).
				calls = append(calls, Call{Name: it.Name, CallID: it.CallID, Arguments: d.openAIArgs(it.Arguments)})
			}
		}
	case "anthropic":
		var resp struct {
			Content []struct {
				Type  string         `json:"type"`
				ID    string         `json:"id"`
				Name  string         `json:"name"`
				Input map[string]any `json:"input"`
			} `json:"content"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("not a message: %v", err)
		}
		for _, b := range resp.Content {
			if b.Type == "tool_use" {
				args := b.Input
				if args == nil {
					args = map[string]any{}
				}
				calls = append(calls, Call{Name: b.Name, CallID: b.ID, Arguments: args})
			}
		}
	case "bedrock":
		var resp struct {
			Output struct {
				Message struct {
					Content []struct {
						ToolUse *struct {
							ToolUseID string         `json:"toolUseId"`
							Name      string         `json:"name"`
							Input     map[string]any `json:"input"`
						} `json:"toolUse"`
					} `json:"content"`
				} `json:"message"`
			} `json:"output"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("not a Converse response: %v", err)
		}
		for _, b := range resp.Output.Message.Content {
			if u := b.ToolUse; u != nil {
				args := u.Input
				if args == nil {
					args = map[string]any{}
				}
				calls = append(calls, Call{Name: u.Name, CallID: u.ToolUseID, Arguments: args})
			}
		}
	case "gemini":
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
		if len(resp.Candidates) == 0 {
			return calls, nil
		}
		for _, p := range resp.Candidates[0].Content.Parts {
			fc := p.FunctionCall
			if fc == nil {
				continue
			}
			args := fc.Args
			if args == nil {
				args = map[string]any{}
			}
			id := fmt.Sprintf("gemini_%d", len(calls))
			if d.Break == GeminiIDsMissing {
				id = fc.ID
			}
			calls = append(calls, Call{Name: fc.Name, CallID: id, Arguments: args})
		}
	default:
		return nil, errors.New("unknown dialect " + dialect)
	}
	return calls, nil
}

// openAIArgs parses the JSON-encoded arguments; unparseable ones become
// {} (https://platform.openai.com/docs/guides/function-calling).
func (d *Driver) openAIArgs(s string) any {
	if d.Break == ArgumentsAsObject {
		return s
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

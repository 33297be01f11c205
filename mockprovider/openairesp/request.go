package openairesp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Request is a decoded POST /v1/responses body: the checks' input. Fields
// whose JSON type varies on the wire stay raw so a check can report the
// type it found instead of the decoder failing first.
type Request struct {
	Model              string            `json:"model"`
	Input              json.RawMessage   `json:"input"`
	Instructions       json.RawMessage   `json:"instructions"`
	ToolsRaw           []json.RawMessage `json:"tools"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Store              *bool             `json:"store"`
	Include            []string          `json:"include"`
	Stream             bool              `json:"stream"`
	ParallelToolCalls  *bool             `json:"parallel_tool_calls"`
	MaxOutputTokens    json.RawMessage   `json:"max_output_tokens"`
	Metadata           json.RawMessage   `json:"metadata"`
	Reasoning          json.RawMessage   `json:"reasoning"`
	Text               json.RawMessage   `json:"text"`

	// Tools are the decoded tools (ToolsRaw keeps each as sent, to echo
	// hosted tools unchanged).
	Tools []Tool `json:"-"`
	// Items are the request's own input items, in order (a string input
	// becomes one user message).
	Items []Item `json:"-"`
	// Prior are the stored effective items of previous_response_id, which
	// the API prepends to Items.
	Prior []Item `json:"-"`
	// PreviousMissing is set when previous_response_id names no stored
	// response of the session (only known online).
	PreviousMissing bool `json:"-"`
	// InputString is set when input was a plain string.
	InputString bool `json:"-"`
}

// Tool is one entry of tools. Only function tools are checked; other
// (hosted) tool types are accepted and ignored.
type Tool struct {
	Type        string          `json:"type"`
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// Item is one input item. Index is its position in the request's input
// array, or -1 for an item taken from a stored response.
type Item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Status           string          `json:"status"`
	CallID           *string         `json:"call_id"`
	Name             *string         `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent *string         `json:"encrypted_content"`
	Summary          json.RawMessage `json:"summary"`

	Raw   json.RawMessage `json:"-"`
	Index int             `json:"-"`
}

// Kind is the item type, with the type-less "easy" message form resolved.
func (it *Item) Kind() string {
	if it.Type == "" && it.Role != "" {
		return "message"
	}
	return it.Type
}

// Assistant reports whether the item is model output replayed as input:
// such items group into one assistant turn.
func (it *Item) Assistant() bool {
	switch it.Kind() {
	case "reasoning", "function_call":
		return true
	case "message":
		return it.Role == "assistant"
	}
	return false
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Effective is the conversation the API sees: stored items, then the
// request's own. Callers only read it; without stored items it is the
// request's own slice (capped, so an append copies) rather than a copy
// made for every check that asks.
func (r *Request) Effective() []Item {
	if len(r.Prior) == 0 && r.Items != nil {
		return r.Items[:len(r.Items):len(r.Items)]
	}
	out := make([]Item, 0, len(r.Prior)+len(r.Items))
	out = append(out, r.Prior...)
	return append(out, r.Items...)
}

// Decode parses the body, resolves previous_response_id from the session
// and builds the neutral conversation.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	var req Request
	if !fastRequest(body, &req) {
		if aerr := decodeObject(body, &req, ""); aerr != nil {
			return nil, nil, aerr
		}
	}
	for i, raw := range req.ToolsRaw {
		var t Tool
		if fastTool(raw, &t) {
			req.Tools = append(req.Tools, t)
			continue
		}
		if aerr := decodeObject(raw, &t, "tools["+strconv.Itoa(i)+"]"); aerr != nil {
			return nil, nil, aerr
		}
		req.Tools = append(req.Tools, t)
	}
	if aerr := req.decodeInput(); aerr != nil {
		return nil, nil, aerr
	}
	if req.PreviousResponseID != nil && *req.PreviousResponseID != "" && x != nil && x.Session != nil {
		stored, ok := x.Session.Response(*req.PreviousResponseID)
		if !ok || stored.Body == nil {
			req.PreviousMissing = true
		} else {
			for _, raw := range stored.Items {
				var it Item
				if json.Unmarshal(raw, &it) == nil {
					it.Raw, it.Index = raw, -1
					req.Prior = append(req.Prior, it)
				}
			}
		}
	}
	req.resolveReferences()
	return &req, req.conversation(), nil
}

// decodeObject unmarshals one JSON object. A value of the wrong JSON type
// is answered the way the API words type errors ("Invalid type for
// 'input[1].name': expected a string, but got an integer instead."); a
// body that is not JSON gets the API's parse error.
func decodeObject(raw []byte, v any, prefix string) *wire.APIError {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	te, ok := err.(*json.UnmarshalTypeError)
	if !ok {
		return openaiwire.InvalidJSON()
	}
	param := te.Field
	if prefix != "" {
		param = prefix + "." + te.Field
	}
	if te.Field == "" {
		param = prefix
	}
	got := jsonKind(kindOfValue(gjson.GetBytes(raw, te.Field).Raw))
	if te.Field == "" {
		got = jsonKind(kindOfValue(string(raw)))
	}
	if param == "" {
		return openaiwire.InvalidJSON()
	}
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: param, Code: "invalid_type",
		Message: fmt.Sprintf("Invalid type for '%s': expected %s, but got %s instead.", param, expected(te.Type.String()), got)}
}

// expected names the JSON type a Go field wants.
func expected(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"), strings.HasPrefix(goType, "*[]"):
		return "an array"
	case strings.HasSuffix(goType, "string"):
		return "a string"
	case strings.HasSuffix(goType, "bool"):
		return "a boolean"
	case strings.Contains(goType, "int") || strings.Contains(goType, "float"):
		return "a number"
	}
	return "an object"
}

// jsonKind names a JSON value kind as the API's messages do.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "integer":
		return "an integer"
	case "number":
		return "a decimal"
	case "bool":
		return "a boolean"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return "null"
}

// kindOfValue is kindOfRaw with integers told apart from decimals.
func kindOfValue(raw string) string {
	k := kindOfRaw(json.RawMessage(raw))
	if k == "number" && !strings.ContainsAny(raw, ".eE") {
		return "integer"
	}
	return k
}

func kindOfRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// decodeInput reads input: a string (one user message) or an array of
// items. Anything else is answered at once, as the API's schema
// validation does.
func (r *Request) decodeInput() *wire.APIError {
	switch kindOfRaw(r.Input) {
	case "", "null":
		return nil // missing input: reported by the required-fields rule
	case "string":
		var s string
		_ = json.Unmarshal(r.Input, &s)
		raw, _ := json.Marshal(map[string]any{"role": "user", "content": s})
		r.Items = []Item{{Role: "user", Content: mustJSON(s), Raw: raw, Index: 0}}
		r.InputString = true
		return nil
	case "array":
		// Input came out of the decoded (so valid) body: it is split
		// without being validated again.
		raws, ok := jsonscan.ParseArray(r.Input)
		if !ok {
			return openaiwire.InvalidJSON()
		}
		for i, span := range raws {
			raw := jsonscan.Clone(span) // kept by stored responses: its own copy
			at := "input[" + strconv.Itoa(i) + "]"
			if kindOfRaw(raw) != "object" {
				return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: at, Code: "invalid_type",
					Message: fmt.Sprintf("Invalid type for '%s': expected an object, but got %s instead.", at, jsonKind(kindOfValue(string(raw))))}
			}
			var it Item
			if !fastItem(raw, &it) {
				if aerr := decodeObject(raw, &it, at); aerr != nil {
					return aerr
				}
			}
			it.Raw, it.Index = raw, i
			r.Items = append(r.Items, it)
		}
		return nil
	}
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: "input", Code: "invalid_type",
		Message: fmt.Sprintf("Invalid type for 'input': expected one of a string or array of input items, but got %s instead.", jsonKind(kindOfValue(string(r.Input))))}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// resolveReferences replaces item_reference items whose id names an
// earlier item of the effective conversation by that item; unresolvable
// references are left in place and ignored by the conversation.
func (r *Request) resolveReferences() {
	byID := map[string]Item{}
	for _, it := range r.Prior {
		if it.ID != "" {
			byID[it.ID] = it
		}
	}
	for i, it := range r.Items {
		if it.Type == "item_reference" {
			if ref, ok := byID[it.ID]; ok {
				ref.Index = it.Index
				r.Items[i] = ref
			}
			continue
		}
		if it.ID != "" {
			byID[it.ID] = it
		}
	}
}

// conversation builds the neutral form: adjacent assistant-side items
// (reasoning, calls, assistant messages) make one assistant turn, adjacent
// user-side items (user messages, call outputs) one user turn, since the
// model's scenario cursor counts assistant turns.
func (r *Request) conversation() *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.OpenAIResponses, Model: r.Model, Stream: r.Stream, ToolChoice: r.toolChoice()}
	if r.PreviousResponseID != nil {
		c.PreviousResponseID = *r.PreviousResponseID
	}
	if instr, ok := jsonscan.ToString(r.Instructions); ok {
		c.System = instr
	}
	for _, t := range r.Tools {
		if t.Type != "function" || t.Name == nil {
			continue
		}
		c.Tools = append(c.Tools, conv.Tool{Name: *t.Name, Description: str(t.Description), Parameters: t.Parameters, Strict: t.Strict != nil && *t.Strict})
	}
	names := map[string]string{} // call_id → function name, for results
	add := func(role conv.Role, p conv.Part) {
		if last := c.LastTurn(); last != nil && last.Role == role {
			last.Parts = append(last.Parts, p)
			return
		}
		c.Turns = append(c.Turns, conv.Turn{Role: role, Parts: []conv.Part{p}})
	}
	for _, it := range r.Effective() {
		switch it.Kind() {
		case "message":
			switch it.Role {
			case "system", "developer":
				if s := textOf(it.Content); s != "" {
					c.System = joinNonEmpty(c.System, s)
				}
			case "assistant":
				for _, p := range contentParts(it.Content) {
					add(conv.Assistant, p)
				}
			default:
				for _, p := range contentParts(it.Content) {
					add(conv.User, p)
				}
			}
		case "reasoning":
			add(conv.Assistant, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{ID: it.ID, EncryptedContent: str(it.EncryptedContent), Summary: summaryText(it.Summary)}})
		case "function_call":
			args := jsonscan.String(it.Arguments)
			m := map[string]any{}
			_ = json.Unmarshal([]byte(args), &m)
			if m == nil {
				m = map[string]any{}
			}
			names[str(it.CallID)] = str(it.Name)
			add(conv.Assistant, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: str(it.CallID), Name: str(it.Name), Arguments: m, ItemID: it.ID}})
		case "function_call_output":
			id := str(it.CallID)
			add(conv.User, conv.Part{Kind: conv.KindResult, Result: &conv.Result{CallID: id, Name: names[id], Content: outputContent(it.Output)}})
		}
	}
	return c
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func (r *Request) toolChoice() conv.ToolChoice {
	if s, ok := jsonscan.ToString(r.ToolChoice); ok {
		switch s {
		case "none":
			return conv.ToolChoice{Mode: conv.ToolChoiceNone}
		case "required":
			return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		}
		return conv.ToolChoice{Mode: conv.ToolChoiceAuto}
	}
	var o struct {
		Type string `json:"type"`
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if json.Unmarshal(r.ToolChoice, &o) == nil {
		switch {
		case o.Type == "function" && o.Name != "":
			return conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: o.Name}
		case o.Type == "allowed_tools" && o.Mode == "required":
			return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		}
	}
	return conv.ToolChoice{Mode: conv.ToolChoiceAuto}
}

// contentPart is one part of message content or of an output array.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"` // string; {"url"} in the seed's older form
	FileID   string          `json:"file_id"`
	FileData string          `json:"file_data"`
	FileURL  string          `json:"file_url"`
	Filename string          `json:"filename"`
}

func parseParts(raw json.RawMessage) ([]contentPart, string, bool) {
	if s, ok := jsonscan.ToString(raw); ok {
		return nil, s, true
	}
	var parts []contentPart
	_ = json.Unmarshal(raw, &parts)
	return parts, "", false
}

func textOf(raw json.RawMessage) string {
	parts, s, isString := parseParts(raw)
	if isString {
		return s
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

func contentParts(raw json.RawMessage) []conv.Part {
	parts, s, isString := parseParts(raw)
	if isString {
		return []conv.Part{{Kind: conv.KindText, Text: s}}
	}
	var out []conv.Part
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, conv.Part{Kind: conv.KindText, Text: p.Text})
		case "refusal":
			out = append(out, conv.Part{Kind: conv.KindRefusal, Text: p.Refusal})
		case "input_image", "input_file", "image_url":
			ct := mediaContent(p)
			out = append(out, conv.Part{Kind: conv.KindMedia, Media: &ct})
		}
	}
	return out
}

// outputContent reads a function_call_output's output: a string, or an
// array of input_text / input_image / input_file items.
func outputContent(raw json.RawMessage) []conv.Content {
	parts, s, isString := parseParts(raw)
	if isString {
		return []conv.Content{{Type: conv.ContentText, Text: s}}
	}
	var out []conv.Content
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, conv.Content{Type: conv.ContentText, Text: p.Text})
		case "input_image", "input_file", "image_url":
			out = append(out, mediaContent(p))
		}
	}
	return out
}

func mediaContent(p contentPart) conv.Content {
	if p.Type == "input_file" {
		ct := conv.Content{Type: conv.ContentDocument, URL: p.FileURL, DisplayName: p.Filename}
		if p.FileData != "" {
			ct.MIMEType, ct.Data = splitDataURL(p.FileData)
		}
		if ct.URL == "" && p.FileID != "" {
			ct.URL = "file:" + p.FileID
		}
		return ct
	}
	url, ok := jsonscan.ToString(p.ImageURL)
	if !ok {
		var o struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(p.ImageURL, &o)
		url = o.URL
	}
	ct := conv.Content{Type: conv.ContentImage}
	switch {
	case strings.HasPrefix(url, "data:"):
		ct.MIMEType, ct.Data = splitDataURL(url)
	case url != "":
		ct.URL = url
	case p.FileID != "":
		ct.URL = "file:" + p.FileID
	}
	return ct
}

// splitDataURL splits "data:image/png;base64,AAAA" into its MIME type and
// payload; a bare payload is returned as is.
func splitDataURL(s string) (mime, data string) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return "", s
	}
	head, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", rest
	}
	mime, _, _ = strings.Cut(head, ";")
	return mime, payload
}

func summaryText(raw json.RawMessage) string {
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

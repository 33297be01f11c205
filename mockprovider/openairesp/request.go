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

	// decls memoizes toolDecls for the checks of this request (a request
	// is checked by one goroutine).
	decls     []openaiwire.ToolDecl
	declsDone bool
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
	if len(req.ToolsRaw) > 0 {
		req.Tools = make([]Tool, len(req.ToolsRaw))
		for i, raw := range req.ToolsRaw {
			// fastTool leaves the tool untouched when it declines.
			if t := &req.Tools[i]; !fastTool(raw, t) {
				if aerr := decodeObject(raw, t, "tools["+strconv.Itoa(i)+"]"); aerr != nil {
					return nil, nil, aerr
				}
			}
		}
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
				// fastItem is json.Unmarshal for valid JSON when it accepts.
				if (jsonscan.Valid(raw) && fastItem(raw, &it)) || json.Unmarshal(raw, &it) == nil {
					it.Raw, it.Index = raw, -1
					if req.Prior == nil {
						req.Prior = make([]Item, 0, len(stored.Items))
					}
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
		// The one user message the API reads a string as. Its raw form is
		// what json.Marshal gives the map {"role":"user","content":s}
		// (keys sorted; appendString quotes as json.Marshal does).
		s := stringValue(r.Input)
		content := jsonscan.AppendString(nil, s)
		raw := make([]byte, 0, len(content)+len(`{"content":,"role":"user"}`))
		raw = append(append(append(raw, `{"content":`...), content...), `,"role":"user"}`...)
		r.Items = []Item{{Role: "user", Content: content, Raw: raw, Index: 0}}
		r.InputString = true
		return nil
	case "array":
		// Stored responses keep every input item, so the items need their
		// own copy, not spans of the body: one copy of the whole array,
		// each item (and each field of it) a span of that. Input came out
		// of the decoded (so valid) body: it is split without being
		// validated again.
		raws, ok := jsonscan.ParseArray(jsonscan.Clone(r.Input))
		if !ok {
			return openaiwire.InvalidJSON()
		}
		if len(raws) > 0 {
			r.Items = make([]Item, len(raws))
		}
		for i, raw := range raws {
			if kindOfRaw(raw) != "object" {
				at := "input[" + strconv.Itoa(i) + "]"
				return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: at, Code: "invalid_type",
					Message: fmt.Sprintf("Invalid type for '%s': expected an object, but got %s instead.", at, jsonKind(kindOfValue(string(raw))))}
			}
			// fastItem leaves the item untouched when it declines.
			it := &r.Items[i]
			if !fastItem(raw, it) {
				if aerr := decodeObject(raw, it, "input["+strconv.Itoa(i)+"]"); aerr != nil {
					return aerr
				}
			}
			it.Raw, it.Index = raw, i
		}
		return nil
	}
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: "input", Code: "invalid_type",
		Message: fmt.Sprintf("Invalid type for 'input': expected one of a string or array of input items, but got %s instead.", jsonKind(kindOfValue(string(r.Input))))}
}

// resolveReferences replaces item_reference items whose id names an
// earlier item of the effective conversation by that item; unresolvable
// references are left in place and ignored by the conversation.
func (r *Request) resolveReferences() {
	if !r.hasReferences() {
		return // nothing to resolve: the map of ids is not built
	}
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

func (r *Request) hasReferences() bool {
	for i := range r.Items {
		if r.Items[i].Type == "item_reference" {
			return true
		}
	}
	return false
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
	if instr, ok := toString(r.Instructions); ok {
		c.System = instr
	}
	for _, t := range r.Tools {
		if t.Type != "function" || t.Name == nil {
			continue
		}
		if c.Tools == nil {
			c.Tools = make([]conv.Tool, 0, len(r.Tools))
		}
		c.Tools = append(c.Tools, conv.Tool{Name: *t.Name, Description: str(t.Description), Parameters: t.Parameters, Strict: t.Strict != nil && *t.Strict})
	}
	items := r.Effective()
	names := map[string]string{} // call_id → function name, for results
	// The parts of every turn go into one array: each turn's Parts is a
	// capped span of it (so an append to one turn cannot write into the
	// next), instead of a slice grown per turn. Parts are only ever added
	// to the last turn, so its span always ends at the end of the array.
	// A turn needs at least one item, so len(items) turns always fit.
	var parts []conv.Part
	start := 0 // where the last turn's parts begin
	add := func(role conv.Role, p conv.Part) {
		if n := len(c.Turns); n == 0 || c.Turns[n-1].Role != role {
			if c.Turns == nil {
				c.Turns = make([]conv.Turn, 0, len(items))
				parts = make([]conv.Part, 0, len(items))
			}
			c.Turns = append(c.Turns, conv.Turn{Role: role})
			start = len(parts)
		}
		parts = append(parts, p)
		c.Turns[len(c.Turns)-1].Parts = parts[start:len(parts):len(parts)]
	}
	for i := range items {
		it := &items[i]
		switch it.Kind() {
		case "message":
			switch it.Role {
			case "system", "developer":
				if s := textOf(it.Content); s != "" {
					c.System = joinNonEmpty(c.System, s)
				}
			case "assistant":
				eachContentPart(it.Content, func(p conv.Part) { add(conv.Assistant, p) })
			default:
				eachContentPart(it.Content, func(p conv.Part) { add(conv.User, p) })
			}
		case "reasoning":
			add(conv.Assistant, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{ID: it.ID, EncryptedContent: str(it.EncryptedContent), Summary: summaryText(it.Summary)}})
		case "function_call":
			m := callArguments(stringValue(it.Arguments))
			names[str(it.CallID)] = str(it.Name)
			add(conv.Assistant, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: str(it.CallID), Name: str(it.Name), Arguments: m, ItemID: it.ID}})
		case "function_call_output":
			id := str(it.CallID)
			add(conv.User, conv.Part{Kind: conv.KindResult, Result: &conv.Result{CallID: id, Name: names[id], Content: outputContent(it.Output)}})
		}
	}
	return c
}

// callArguments is what json.Unmarshal([]byte(args), &m) leaves in a
// fresh map m, an empty map where it leaves nil (for null): the arguments
// of an object, nothing for invalid JSON or any other value. It decodes
// without reflection (jsonscan.ObjectFloat, after jsonscan.Valid, which
// report exactly what encoding/json does); replayed calls carry arguments
// on nearly every request.
func callArguments(args string) map[string]any {
	var m map[string]any
	if b := []byte(args); jsonscan.Valid(b) {
		m = jsonscan.ObjectFloat(b)
	} else {
		m = map[string]any{}
	}
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func (r *Request) toolChoice() conv.ToolChoice {
	if s, ok := toString(r.ToolChoice); ok {
		switch s {
		case "none":
			return conv.ToolChoice{Mode: conv.ToolChoiceNone}
		case "required":
			return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		}
		return conv.ToolChoice{Mode: conv.ToolChoiceAuto}
	}
	if kindOfRaw(r.ToolChoice) != "object" {
		// Absent, null, or a value json.Unmarshal would refuse: auto,
		// without the failed decode.
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
	if s, ok := toString(raw); ok {
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

// eachContentPart hands each part of message content to add, in order
// (the caller adds them to a turn; no list of them is built).
func eachContentPart(raw json.RawMessage, add func(conv.Part)) {
	parts, s, isString := parseParts(raw)
	if isString {
		add(conv.Part{Kind: conv.KindText, Text: s})
		return
	}
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			add(conv.Part{Kind: conv.KindText, Text: p.Text})
		case "refusal":
			add(conv.Part{Kind: conv.KindRefusal, Text: p.Refusal})
		case "input_image", "input_file", "image_url":
			ct := mediaContent(p)
			add(conv.Part{Kind: conv.KindMedia, Media: &ct})
		}
	}
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
	url, ok := toString(p.ImageURL)
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

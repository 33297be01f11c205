package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Request is a decoded generateContent body plus what the path said. The
// checks read it. Fields whose JSON type varies in the wild (args,
// response) stay raw, so a string where an object belongs is detectable.
type Request struct {
	Contents          []Content       `json:"contents"`
	SystemInstruction *Content        `json:"systemInstruction,omitempty"`
	Tools             []Tool          `json:"tools,omitempty"`
	ToolConfig        *ToolConfig     `json:"toolConfig,omitempty"`
	GenerationConfig  json.RawMessage `json:"generationConfig,omitempty"`
	SafetySettings    json.RawMessage `json:"safetySettings,omitempty"`
	CachedContent     string          `json:"cachedContent,omitempty"`

	// Model is the model named in the path (without "models/").
	Model string `json:"-"`
	// Method is "generateContent" or "streamGenerateContent".
	Method string `json:"-"`
	// SSE is set when a stream was asked for with ?alt=sse; without it the
	// API streams one JSON array instead.
	SSE bool `json:"-"`
}

// Content is one turn.
type Content struct {
	Role  string `json:"role,omitempty"`
	Parts []Part `json:"parts"`
}

// Part is one piece of a turn; exactly one data field is expected set.
type Part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
	InlineData       *Blob             `json:"inlineData,omitempty"`
	FileData         *FileData         `json:"fileData,omitempty"`
}

// FunctionCall is a call the model made, as sent back in history.
type FunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// FunctionResponse is a tool's answer.
type FunctionResponse struct {
	ID           string                 `json:"id,omitempty"`
	Name         string                 `json:"name"`
	Response     json.RawMessage        `json:"response,omitempty"`
	Parts        []FunctionResponsePart `json:"parts,omitempty"`
	WillContinue *bool                  `json:"willContinue,omitempty"`
	Scheduling   string                 `json:"scheduling,omitempty"`
}

// FunctionResponsePart is a multimodal attachment of a function response
// (Gemini 3, seed 003).
type FunctionResponsePart struct {
	InlineData *Blob     `json:"inlineData,omitempty"`
	FileData   *FileData `json:"fileData,omitempty"`
}

// Blob is inline base64 media.
type Blob struct {
	MIMEType    string `json:"mimeType"`
	Data        string `json:"data"`
	DisplayName string `json:"displayName,omitempty"`
}

// FileData is media by URI.
type FileData struct {
	MIMEType    string `json:"mimeType,omitempty"`
	FileURI     string `json:"fileUri"`
	DisplayName string `json:"displayName,omitempty"`
}

// Tool groups function declarations (other tool kinds stay unread).
type Tool struct {
	FunctionDeclarations []FunctionDeclaration `json:"functionDeclarations,omitempty"`
}

// FunctionDeclaration declares one function; parameters is Google's
// OpenAPI subset, parametersJsonSchema plain JSON Schema.
type FunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	Parameters           json.RawMessage `json:"parameters,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

// ToolConfig constrains function calling.
type ToolConfig struct {
	FunctionCallingConfig *FunctionCallingConfig `json:"functionCallingConfig,omitempty"`
}

// FunctionCallingConfig is mode AUTO, ANY, NONE or VALIDATED.
type FunctionCallingConfig struct {
	Mode                 string   `json:"mode,omitempty"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

// Methods the route serves.
const (
	methodGenerate = "generateContent"
	methodStream   = "streamGenerateContent"
)

// invalidJSONPrefix starts every Google JSON-parse error.
const invalidJSONPrefix = "Invalid JSON payload received."

// Decode parses the path's model and method and the body.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	model, method, aerr := parseAction(x.R)
	if aerr != nil {
		return nil, nil, aerr
	}
	req, aerr := decodeBody(body)
	if aerr != nil {
		return nil, nil, aerr
	}
	req.Model, req.Method = model, method
	req.SSE = method == methodStream && x.R.URL.Query().Get("alt") == "sse"
	return req, toConversation(req), nil
}

// parseAction splits "gemini-2.5-flash:generateContent".
func parseAction(r *http.Request) (model, method string, _ *wire.APIError) {
	action := r.PathValue("action")
	model, method, ok := cutLast(action, ":")
	if !ok || model == "" {
		return "", "", &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound,
			Message: fmt.Sprintf("The requested URL %s was not found on this server.", r.URL.Path)}
	}
	switch method {
	case methodGenerate, methodStream:
		return strings.TrimPrefix(model, "models/"), method, nil
	}
	// An unknown custom method is a missing route on Google's front end.
	return "", "", &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound,
		Message: fmt.Sprintf("Method %q is not found for models/%s. Supported methods: generateContent, streamGenerateContent.", method, model)}
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// decodeBody parses the JSON body, answering the Google-style parse errors.
func decodeBody(body []byte) (*Request, *wire.APIError) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		// An empty body is an empty message: the rules then report the
		// missing contents, as the API does.
		return &Request{}, nil
	}
	if trimmed[0] == '{' {
		if req, ok := fastDecode(trimmed); ok {
			return req, nil
		}
	}
	return decodeWithEncodingJSON(trimmed)
}

// decodeWithEncodingJSON is the reference decoder of a non-empty trimmed
// body: every body fastDecode turns down, with the parse errors Google
// words, and the snake_case renaming.
func decodeWithEncodingJSON(trimmed []byte) (*Request, *wire.APIError) {
	bad := func(msg string) *wire.APIError {
		return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, Message: invalidJSONPrefix + " " + msg}
	}
	// The common body (an object without snake_case keys) is validated
	// by json.Unmarshal alone: it reports a *json.SyntaxError exactly when
	// json.Valid would fail, so the separate pass is only made when the
	// body needs looking at before decoding.
	plain := trimmed[0] == '{' && !hasSnakeKey(trimmed)
	if !plain {
		if !json.Valid(trimmed) {
			return nil, bad(syntaxMessage(trimmed))
		}
		if trimmed[0] != '{' {
			return nil, bad(`Unknown name "": Root element must be a message.`)
		}
		// Google's JSON parser takes proto field names (function_call) as well
		// as their camelCase form; rename the former before decoding.
		if normalized, ok := normalizeFieldNames(trimmed); ok {
			trimmed = normalized
		}
	}
	var req Request
	if err := json.Unmarshal(trimmed, &req); err != nil {
		var se *json.SyntaxError
		if plain && errors.As(err, &se) {
			return nil, bad(syntaxMessage(trimmed))
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, bad(fmt.Sprintf("Invalid value at '%s' (%s), %s", protoPath(te.Field), protoType(te), valueAt(trimmed, te.Offset)))
		}
		return nil, bad("Unexpected token.")
	}
	return &req, nil
}

// syntaxMessage words a JSON syntax error the way Google's parser does: the
// problem, then the line with a caret under the offending character.
func syntaxMessage(b []byte) string {
	var se *json.SyntaxError
	err := json.Unmarshal(b, new(any))
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || err != nil && strings.Contains(err.Error(), "unexpected end") {
			return "Unexpected end of string."
		}
		return "Unexpected token."
	}
	if strings.Contains(se.Error(), "unexpected end") {
		return "Unexpected end of string."
	}
	off := int(se.Offset) - 1
	off = max(0, min(off, len(b)-1))
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	start = max(start, off-40)
	end := off + 1
	if nl := bytes.IndexByte(b[off:], '\n'); nl >= 0 {
		end = off + nl
	} else {
		end = min(len(b), off+20)
	}
	end = max(end, off+1)
	line := strings.ToValidUTF8(string(b[start:end]), "?")
	return "Unexpected token.\n" + line + "\n" + strings.Repeat(" ", len(string(b[start:off]))) + "^"
}

// protoPath turns Go's "contents.parts.functionCall.name" into the proto
// field path Google reports ("contents.parts.function_call.name"); Go's
// decoder does not keep indices, so none are given.
func protoPath(goPath string) string {
	if goPath == "" {
		return ""
	}
	segs := strings.Split(goPath, ".")
	for i, s := range segs {
		segs[i] = snake(s)
	}
	return strings.Join(segs, ".")
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// protoType names the proto type Google prints for a field that got a JSON
// value of the wrong kind.
func protoType(te *json.UnmarshalTypeError) string {
	if te.Type == nil {
		return "TYPE_MESSAGE"
	}
	switch te.Type.Kind().String() {
	case "string":
		return "TYPE_STRING"
	case "bool":
		return "TYPE_BOOL"
	case "int", "int32", "int64":
		return "TYPE_INT32"
	case "float32", "float64":
		return "TYPE_FLOAT"
	case "slice":
		return "TYPE_MESSAGE"
	}
	name := te.Type.Name()
	if name == "" && te.Type.Kind().String() == "ptr" {
		name = te.Type.Elem().Name()
	}
	return "type.googleapis.com/google.ai.generativelanguage.v1beta." + name
}

// valueAt returns the JSON value that ends at offset, for the message.
func valueAt(b []byte, offset int64) string {
	end := int(offset)
	if end <= 0 || end > len(b) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	// Walk tokens until one ends at or past the offset: that is the value.
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if dec.InputOffset() >= int64(end) {
			switch tok.(type) {
			case json.Delim:
				return string(tok.(json.Delim))
			}
			v := bytes.TrimLeft(b[start:dec.InputOffset()], " \t\r\n,:")
			if len(v) > 80 {
				v = append(append([]byte(nil), v[:80]...), "..."...)
			}
			return string(v)
		}
	}
}

// toConversation maps the request onto the neutral model.
func toConversation(req *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.Gemini, Model: req.Model, Stream: req.Method == methodStream, ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto}}
	if req.SystemInstruction != nil {
		var texts []string
		for _, p := range req.SystemInstruction.Parts {
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
		}
		c.System = strings.Join(texts, "\n")
	}
	if n := declarationCount(req.Tools); n > 0 {
		c.Tools = make([]conv.Tool, 0, n)
	}
	for _, t := range req.Tools {
		for _, fd := range t.FunctionDeclarations {
			params := fd.ParametersJSONSchema
			if len(params) == 0 && len(fd.Parameters) > 0 {
				params = lowerSchemaTypes(fd.Parameters)
			}
			c.Tools = append(c.Tools, conv.Tool{Name: fd.Name, Description: fd.Description, Parameters: params})
		}
	}
	if req.ToolConfig != nil && req.ToolConfig.FunctionCallingConfig != nil {
		fc := req.ToolConfig.FunctionCallingConfig
		switch strings.ToUpper(fc.Mode) {
		case "NONE":
			c.ToolChoice.Mode = conv.ToolChoiceNone
		case "ANY":
			c.ToolChoice.Mode = conv.ToolChoiceRequired
			if len(fc.AllowedFunctionNames) == 1 {
				c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: fc.AllowedFunctionNames[0]}
			}
		}
	}
	if len(req.Contents) > 0 {
		c.Turns = make([]conv.Turn, 0, len(req.Contents))
	}
	// Every turn's parts are cut from one array sized for all of them,
	// rather than one allocation per turn. Each turn's slice is capped at
	// its own length, so an append to one turn cannot reach the next.
	var all []conv.Part
	if n := partCount(req.Contents); n > 0 {
		all = make([]conv.Part, 0, n)
	}
	for _, content := range req.Contents {
		turn := conv.Turn{Role: conv.User}
		if content.Role == roleModel {
			turn.Role = conv.Assistant
		}
		start := len(all)
		for _, p := range content.Parts {
			if cp, ok := toPart(p); ok {
				all = append(all, cp)
			}
		}
		if len(all) > start {
			turn.Parts = all[start:len(all):len(all)]
		}
		c.Turns = append(c.Turns, turn)
	}
	return c
}

// declarationCount is the number of function declarations of all tools.
func declarationCount(tools []Tool) int {
	n := 0
	for _, t := range tools {
		n += len(t.FunctionDeclarations)
	}
	return n
}

// partCount is the number of parts of all contents.
func partCount(contents []Content) int {
	n := 0
	for _, content := range contents {
		n += len(content.Parts)
	}
	return n
}

func toPart(p Part) (conv.Part, bool) {
	switch {
	case p.FunctionCall != nil:
		// Was json.Unmarshal(Args, &args) into a fresh empty map, its
		// error ignored; ObjectFloat gives the same map without
		// reflection (Args is a span of the decoded body, or empty).
		args := jsonscan.ObjectFloat(p.FunctionCall.Args)
		if args == nil {
			args = map[string]any{}
		}
		return conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: args, ThoughtSignature: p.ThoughtSignature}}, true
	case p.FunctionResponse != nil:
		fr := p.FunctionResponse
		res := &conv.Result{CallID: fr.ID, Name: fr.Name}
		// Was `json.Unmarshal(Response, &obj) == nil && obj != nil`.
		if obj, ok := jsonscan.StructFloat(fr.Response); ok {
			res.Structured = obj
			// Google's convention: an "error" key (and no "output") reports
			// a failed call.
			_, hasErr := obj["error"]
			_, hasOut := obj["output"]
			res.IsError = hasErr && !hasOut
		}
		for _, mp := range fr.Parts {
			switch {
			case mp.InlineData != nil:
				res.Content = append(res.Content, media(mp.InlineData.MIMEType, mp.InlineData.Data, "", mp.InlineData.DisplayName))
			case mp.FileData != nil:
				res.Content = append(res.Content, media(mp.FileData.MIMEType, "", mp.FileData.FileURI, mp.FileData.DisplayName))
			}
		}
		return conv.Part{Kind: conv.KindResult, Result: res}, true
	case p.InlineData != nil:
		m := media(p.InlineData.MIMEType, p.InlineData.Data, "", p.InlineData.DisplayName)
		return conv.Part{Kind: conv.KindMedia, Media: &m}, true
	case p.FileData != nil:
		m := media(p.FileData.MIMEType, "", p.FileData.FileURI, p.FileData.DisplayName)
		return conv.Part{Kind: conv.KindMedia, Media: &m}, true
	case p.Text != nil && p.Thought:
		return conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: *p.Text}}, true
	case p.Text != nil:
		return conv.Part{Kind: conv.KindText, Text: *p.Text}, true
	}
	return conv.Part{}, false
}

func media(mime, data, url, name string) conv.Content {
	t := conv.ContentDocument
	if strings.HasPrefix(mime, "image/") {
		t = conv.ContentImage
	}
	return conv.Content{Type: t, MIMEType: mime, Data: data, URL: url, DisplayName: name}
}

// lowerSchemaTypes rewrites Google's upper-case OpenAPI types ("OBJECT",
// what go-genai sends) to JSON Schema's lower case, so argument synthesis
// reads the schema.
func lowerSchemaTypes(raw json.RawMessage) json.RawMessage {
	if !hasUpperType(raw) {
		return raw // already JSON Schema's lower case: skip the re-encode
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var walk func(any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			for k, val := range x {
				if k == "type" {
					if s, ok := val.(string); ok {
						x[k] = strings.ToLower(s)
						continue
					}
				}
				walk(val)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// messageFields says, per message kind, which fields hold messages of
// which kind; fields not listed (args, response, parameters,
// generationConfig) are free-form and keep their keys.
var messageFields = map[string]map[string]string{
	"request":          {"contents": "content", "systemInstruction": "content", "tools": "tool", "toolConfig": "toolConfig"},
	"content":          {"parts": "part"},
	"part":             {"functionCall": "functionCall", "functionResponse": "functionResponse", "inlineData": "blob", "fileData": "blob"},
	"functionCall":     {},
	"functionResponse": {"parts": "responsePart"},
	"responsePart":     {"inlineData": "blob", "fileData": "blob"},
	"blob":             {},
	"tool":             {"functionDeclarations": "declaration"},
	"declaration":      {},
	"toolConfig":       {"functionCallingConfig": "callingConfig"},
	"callingConfig":    {},
}

// hasSnakeKey reports whether b contains what the pattern
// `"[A-Za-z0-9]*_[A-Za-z0-9_]*"\s*:` matches: a quoted run of letters,
// digits and underscores with at least one underscore, then optional
// whitespace and a colon. It is a hand-written scan because the regexp
// ran over every request body and cost more than decoding it.
func hasSnakeKey(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j, underscore := i+1, false
		for j < len(b) && isWordByte(b[j]) {
			underscore = underscore || b[j] == '_'
			j++
		}
		if !underscore || j >= len(b) || b[j] != '"' {
			continue // the run's closing quote may open the next candidate
		}
		if k := skipRESpace(b, j+1); k < len(b) && b[k] == ':' {
			return true
		}
	}
	return false
}

// hasUpperType reports whether b contains what `"type"\s*:\s*"[A-Z]`
// matches: a "type" key whose string value starts with an upper-case
// letter.
func hasUpperType(b []byte) bool {
	const key = `"type"`
	for i := 0; i+len(key) <= len(b); i++ {
		if b[i] != '"' || string(b[i:i+len(key)]) != key {
			continue
		}
		k := skipRESpace(b, i+len(key))
		if k >= len(b) || b[k] != ':' {
			continue
		}
		k = skipRESpace(b, k+1)
		if k+1 < len(b) && b[k] == '"' && b[k+1] >= 'A' && b[k+1] <= 'Z' {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// skipRESpace skips what the regexp class \s matches: [\t\n\f\r ].
func skipRESpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case '\t', '\n', '\f', '\r', ' ':
			i++
		default:
			return i
		}
	}
	return i
}

// normalizeFieldNames rewrites snake_case field names of the request's
// messages to camelCase. It reports false when nothing changed.
func normalizeFieldNames(b []byte) ([]byte, bool) {
	// Only a key with an underscore can need renaming; tool names such as
	// "get_weather" are values and must not send every request down the
	// slow path.
	if !hasSnakeKey(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil {
		return nil, false
	}
	changed := false
	var walk func(v any, kind string)
	walk = func(v any, kind string) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e, kind)
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				ck := camel(k)
				if ck != k {
					if _, taken := x[ck]; !taken {
						x[ck] = x[k]
						delete(x, k)
						changed = true
					}
				}
			}
			for field, child := range messageFields[kind] {
				if val, ok := x[field]; ok {
					walk(val, child)
				}
			}
		}
	}
	walk(root, "request")
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(root)
	if err != nil {
		return nil, false
	}
	return out, true
}

func camel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

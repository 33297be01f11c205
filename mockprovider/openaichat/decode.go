package openaichat

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// decodeRequest decodes a body into the wire structs (wire.go) and reads
// the checks' view of it (Request) from them. Every decoding failure is
// answered here in the API's words with its rule ID; absent required
// fields and argument types are left to the rules so they can be
// journaled in lenient mode. In lenient mode unknown members are kept in
// Request.Unknown for the known-fields rule to journal.
func decodeRequest(body []byte, lenient bool) (*Request, *wire.APIError) {
	req, _, _, err := decodePlanned(resume.Full[keptMessage](body), lenient)
	return req, err
}

// decodePlanned is decodeRequest of plan.Doc with plan.Reused as the
// first messages (resumed.go). fresh are the messages made from the
// document, to keep for the next request; nil when this request is not
// to be kept. A plan that reuses messages fails when its document does
// not decode cleanly (resume.Decode then decodes the body whole).
func decodePlanned(plan resume.Plan[keptMessage], lenient bool) (_ *Request, fresh []keptMessage, outside *chatRequest, _ *wire.APIError) {
	body := plan.Doc
	var w chatRequest
	var unknown [][]string
	var derr *wirejson.Error
	if prev, ok := plan.Whole.(*chatRequest); ok {
		// Everything outside the messages is the last request's, as
		// decoded then: only the new messages are decoded now.
		w = *prev
		_, derr = wirejson.Decode(body, &w.Messages, wirejson.Options{})
	} else {
		unknown, derr = wirejson.Decode(body, &w, wirejson.Options{Lenient: lenient})
	}
	if derr != nil && len(plan.Reused) > 0 {
		return nil, nil, nil, decodeError(derr) // the body is decoded whole
	}
	if derr != nil && derr.Kind == wirejson.UnknownMember && inMessages(derr.Path) {
		// The API takes members it does not define inside a message:
		// read the body again keeping them, and answer only those
		// elsewhere.
		w = chatRequest{}
		unknown, derr = wirejson.Decode(body, &w, wirejson.Options{Lenient: true})
		if derr == nil && !lenient {
			for _, path := range unknown {
				if !inMessages(path) {
					return nil, nil, nil, unknownMember(path).apiError()
				}
			}
		}
	}
	if derr != nil {
		if derr.Kind == wirejson.WrongType && derr.Got == '0' && derr.Value == "" {
			derr.Value = numberAt(body, derr.Offset)
		}
		return nil, nil, nil, decodeError(derr)
	}
	req := &Request{Temperature: w.Temperature, TopP: w.TopP}
	for _, path := range unknown {
		if inMessages(path) {
			req.MessageExtras = append(req.MessageExtras, unknownMember(path))
			continue
		}
		req.Unknown = append(req.Unknown, unknownMember(path))
	}
	req.Model, req.HasModel = w.Model, w.Model != ""
	req.caps = capabilityParamsOf(&w)
	if w.Messages != nil || len(plan.Reused) > 0 {
		req.HasMessages = true
		req.Messages = make([]*Message, len(plan.Reused)+len(w.Messages))
		fresh = takeMessages(req, plan.Reused, w.Messages, unknown == nil && plan.Keeps())
	}
	if w.Tools != nil {
		tools, extras := readTools(*w.Tools)
		for _, path := range extras {
			if err := extraMember(req, lenient, path); err != nil {
				return nil, nil, nil, err
			}
		}
		req.Tools = tools
	}
	if tc := w.ToolChoice; tc.Sent {
		req.ToolChoiceSent = true
		switch {
		case tc.Object == nil:
			req.ToolChoice = ToolChoice{Mode: tc.Mode}
		case *tc.Object.Type == "function":
			req.ToolChoice = ToolChoice{Mode: "function", Name: *tc.Object.Function.Name}
		case *tc.Object.Type == "custom":
			req.ToolChoice = ToolChoice{Mode: "custom", Name: *tc.Object.Custom.Name}
		default:
			// allowed_tools constrains the set without forcing a call:
			// auto here.
			req.ToolChoice = ToolChoice{Mode: "auto"}
		}
	}
	req.ParallelToolCalls = w.ParallelToolCalls
	req.Stream = w.Stream
	if w.StreamOptions != nil {
		req.StreamOptionsSent = true
		req.IncludeUsage = w.StreamOptions.IncludeUsage != nil && *w.StreamOptions.IncludeUsage
	}
	req.MaxTokensSent = w.MaxTokens != nil
	switch {
	case w.MaxCompletionTokens != nil:
		req.MaxOutputTokens = *w.MaxCompletionTokens
	case w.MaxTokens != nil:
		req.MaxOutputTokens = *w.MaxTokens
	}
	if w.Stop.One != nil {
		req.StopSequences = []string{*w.Stop.One}
	} else {
		req.StopSequences = w.Stop.Many
	}
	if w.N != nil {
		req.N = *w.N
	}
	req.FunctionCallSent = w.FunctionCall.Mode != nil || w.FunctionCall.Name != nil
	req.FunctionsSent = len(w.Functions) > 0
	req.ResponseFormat = readResponseFormat(w.ResponseFormat)
	w.Messages = nil
	return req, fresh, &w, nil
}

// readResponseFormat is the checks' view of response_format (nil when
// absent or null).
func readResponseFormat(w *responseFormat) *ResponseFormat {
	if w == nil {
		return nil
	}
	f := &ResponseFormat{Type: w.Type.String()}
	if js := w.JSONSchema; js != nil {
		f.HasJSONSchema = true
		f.Name, f.HasName = deref(js.Name), js.Name != nil
		if len(js.Schema) > 0 && js.Schema.Kind() != 'n' {
			f.Schema = append(json.RawMessage(nil), js.Schema...) // the body's buffer is not kept
		}
		f.Strict = js.Strict != nil && *js.Strict
	}
	return f
}

// takeMessage is messages[i] for this request: its view at its index, and
// the members its variants do not define kept at their paths for the
// message-members rule.
func takeMessage(m *Message, i int, w *chatMessage, req *Request) {
	var extras [][]string
	*m, extras = readMessage(w)
	m.Index = i
	for _, rel := range extras {
		path := append([]string{"messages", strconv.Itoa(i)}, rel...)
		req.MessageExtras = append(req.MessageExtras, unknownMember(path))
	}
}

// inMessages reports whether a member's path lies inside a message. The
// API once refused such members ("Additional properties are not allowed
// ('id' was unexpected) - 'messages.0'", transitive-bullshit/agentic#531,
// 2023) but takes them from gpt-4o on (openai/openai-node#1161;
// microsoft/agent-framework#2344), as LangChain.js's name on every tool
// message shows.
func inMessages(path []string) bool {
	return len(path) > 2 && path[0] == "messages"
}

// readMessage reads the checks' view of one message (at index 0) and the
// paths, relative to the message, of the members its role, its parts'
// types and its calls' types do not define, in the order the API reports
// them.
func readMessage(w *chatMessage) (view Message, extras [][]string) {
	m := &view
	if w.Role != nil {
		m.Role, m.HasRole = string(*w.Role), true
		if name := w.memberNotAllowed(m.Role); name != "" {
			extras = append(extras, []string{name})
		}
	}
	if w.Content.Sent {
		m.HasContent, m.ContentIsArray, m.Text = true, w.Content.Array, w.Content.Text
		if len(w.Content.Parts) > 0 { // nil for [], as the rules expect
			m.Parts = make([]ContentPart, len(w.Content.Parts))
		}
		for j := range w.Content.Parts {
			wp := &w.Content.Parts[j]
			p := &m.Parts[j]
			if wp.Type != nil {
				p.Type, p.HasType = string(*wp.Type), true
				if name := wp.memberNotAllowed(p.Type); name != "" {
					extras = append(extras, []string{"content", strconv.Itoa(j), name})
				}
			}
			p.Text, p.Refusal = deref(wp.Text), deref(wp.Refusal)
			if wp.ImageURL != nil {
				p.ImageURL = deref(wp.ImageURL.URL)
			}
			if a := wp.InputAudio; a != nil {
				p.AudioData, p.AudioFormat = deref(a.Data), deref(a.Format)
			}
			if f := wp.File; f != nil {
				p.FileData, p.FileID, p.Filename = deref(f.FileData), deref(f.FileID), deref(f.Filename)
			}
		}
	}
	m.Refusal, m.Name = deref(w.Refusal), deref(w.Name)
	m.ToolCallID, m.HasToolCallID = deref(w.ToolCallID), w.ToolCallID != nil
	if w.ToolCalls != nil {
		m.ToolCallsSent = true
		if len(*w.ToolCalls) > 0 {
			m.ToolCalls = make([]ToolCall, len(*w.ToolCalls))
		}
		for j := range *w.ToolCalls {
			wc, tc := &(*w.ToolCalls)[j], &m.ToolCalls[j]
			tc.ID, tc.HasID = deref(wc.ID), wc.ID != nil
			if wc.Type != nil {
				tc.Type, tc.HasType = string(*wc.Type), true
				if name := wc.memberNotAllowed(tc.Type); name != "" {
					extras = append(extras, []string{"tool_calls", strconv.Itoa(j), name})
				}
			}
			if f := wc.Function; f != nil {
				tc.HasFunction = true
				tc.Name, tc.HasName = deref(f.Name), f.Name != nil
				if len(f.Arguments) > 0 {
					// Null counts as sent: the required-fields rule and the
					// arguments-string rule tell the cases apart.
					tc.HasArguments = true
					tc.Arguments = argumentsValue(f.Arguments)
				}
				tc.parsed = parseArguments(tc.Arguments)
			}
		}
	}
	return view, extras
}

// argumentsValue is a replayed call's arguments as sent: the string, nil
// for null, or the generic value of anything else (numbers kept as
// json.Number, so the error can say "an integer" or "a decimal").
func argumentsValue(v jsontext.Value) any {
	switch v.Kind() {
	case 'n':
		return nil
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return s
	}
	dec := json.NewDecoder(strings.NewReader(string(v)))
	dec.UseNumber()
	var x any
	_ = dec.Decode(&x)
	return x
}

// readTools reads the checks' view of the tool declarations and the
// paths of the members their types do not define.
func readTools(ws []chatTool) (tools []Tool, extras [][]string) {
	if len(ws) > 0 { // nil for [], as the rules expect
		tools = make([]Tool, len(ws))
	}
	for i := range ws {
		w, t := &ws[i], &tools[i]
		t.Index = i
		if w.Type != nil {
			t.Type, t.HasType = string(*w.Type), true
			if name := w.memberNotAllowed(t.Type); name != "" {
				extras = append(extras, []string{"tools", strconv.Itoa(i), name})
			}
		}
		if f := w.Function; f != nil {
			t.HasFunction = true
			t.Name, t.HasName = deref(f.Name), f.Name != nil
			t.Description = deref(f.Description)
			if len(f.Parameters) > 0 && f.Parameters.Kind() != 'n' {
				t.Parameters = json.RawMessage(f.Parameters)
			}
			t.Strict = f.Strict != nil && *f.Strict
		}
		if c := w.Custom; c != nil && t.Type == "custom" {
			t.Name, t.HasName = c.Name, true
		}
	}
	return tools, extras
}

// Members each kind of message, part, call and tool defines (beyond its
// discriminator), from the SDK's per-variant param types. The wire structs
// hold the union of them; a member of another variant is unknown to the
// API's schema for this one.

var roleMembers = map[string]string{
	"system": "name", "developer": "name", "user": "name", "function": "name",
	"assistant": "name refusal tool_calls function_call audio annotations",
	// name on a tool message is not in the SDK's param type, but the API
	// takes it and LangChain.js sends it on every tool message
	// (experientiallabs/experiential#803 quotes a live probe).
	"tool": "tool_call_id name",
}

var partMembers = map[string]string{
	"text": "text prompt_cache_breakpoint", "image_url": "image_url prompt_cache_breakpoint",
	"input_audio": "input_audio prompt_cache_breakpoint", "file": "file prompt_cache_breakpoint",
	"refusal": "refusal", "audio": "input_audio",
}

func (m *chatMessage) memberNotAllowed(role string) string {
	sent := []struct {
		name string
		set  bool
	}{
		{"name", m.Name != nil}, {"refusal", m.Refusal != nil}, {"tool_call_id", m.ToolCallID != nil},
		{"tool_calls", m.ToolCalls != nil}, {"function_call", m.FunctionCall != nil}, {"audio", m.Audio != nil},
		{"annotations", len(m.Annotations) > 0},
	}
	allowed := roleMembers[role]
	for _, s := range sent {
		if s.set && !hasWord(allowed, s.name) {
			return s.name
		}
	}
	return ""
}

func (p *contentPart) memberNotAllowed(typ string) string {
	sent := []struct {
		name string
		set  bool
	}{
		{"text", p.Text != nil}, {"refusal", p.Refusal != nil}, {"image_url", p.ImageURL != nil},
		{"input_audio", p.InputAudio != nil}, {"file", p.File != nil}, {"prompt_cache_breakpoint", p.PromptCacheBreakpoint != nil},
	}
	allowed := partMembers[typ]
	for _, s := range sent {
		if s.set && !hasWord(allowed, s.name) {
			return s.name
		}
	}
	return ""
}

func (c *wireToolCall) memberNotAllowed(typ string) string {
	switch {
	case typ == "function" && c.Custom != nil:
		return "custom"
	case typ == "custom" && c.Function != nil:
		return "function"
	}
	return ""
}

func (t *chatTool) memberNotAllowed(typ string) string {
	switch {
	case typ == "function" && t.Custom != nil:
		return "custom"
	case typ == "custom" && t.Function != nil:
		return "function"
	}
	return ""
}

func hasWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}

// extraMember answers a member the variant does not define, or keeps it
// for the journal in lenient mode.
func extraMember(req *Request, lenient bool, path []string) *wire.APIError {
	u := unknownMember(path)
	if lenient {
		req.Unknown = append(req.Unknown, u)
		return nil
	}
	return u.apiError()
}

// UnknownMember is one member the API does not define, with the API's
// answer to it.
type UnknownMember struct {
	Path    string // dotted: messages.0.foo
	Message string
}

// unknownMember renders the API's texts: "Unrecognized request argument
// supplied: foo" at the top level, "Additional properties are not allowed
// ('foo' was unexpected) - 'messages.0'" below it (transitive-bullshit/
// agentic #531).
func unknownMember(path []string) UnknownMember {
	name := path[len(path)-1]
	if len(path) == 1 {
		return UnknownMember{Path: name, Message: "Unrecognized request argument supplied: " + name}
	}
	return UnknownMember{Path: wirejson.Dotted(path),
		Message: fmt.Sprintf("Additional properties are not allowed ('%s' was unexpected) - '%s'", name, wirejson.Dotted(path[:len(path)-1]))}
}

func (u UnknownMember) apiError() *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Message: u.Message, RuleID: RuleKnownFields}
}

// numberAt is the number starting at (or just after the space at) off,
// so a type error can tell an integer from a decimal.
func numberAt(body []byte, off int64) string {
	if off < 0 || off >= int64(len(body)) {
		return ""
	}
	rest := strings.TrimLeft(string(body[off:]), " \t\r\n:")
	end := strings.IndexFunc(rest, func(r rune) bool { return !strings.ContainsRune("+-.0123456789eE", r) })
	if end < 0 {
		end = len(rest)
	}
	return rest[:end]
}

// decodeError maps a decoding failure to the API's answer.
func decodeError(e *wirejson.Error) *wire.APIError {
	param := bracketed(e.Path)
	switch e.Kind {
	case wirejson.Syntax, wirejson.InvalidUTF8:
		out := openaiwire.InvalidJSON()
		out.RuleID = RuleValidJSON
		return out
	case wirejson.UnknownMember:
		return unknownMember(e.Path).apiError()
	case wirejson.DuplicateMember:
		return fieldTypes(param, "invalid_value", fmt.Sprintf("Invalid '%s': duplicate key '%s'. Expected each key at most once in an object.", param, e.Name()))
	case wirejson.WrongType:
		if len(e.Path) == 0 { // not an object: the API cannot read it at all
			out := openaiwire.InvalidJSON()
			out.RuleID = RuleFieldTypes
			return out
		}
		return fieldTypes(param, "invalid_type", fmt.Sprintf("Invalid type for '%s': expected %s, but got %s instead.", param, expected(e.Want), gotKind(e.Got, e.Value)))
	case wirejson.OutOfRange:
		if f, err := strconv.ParseFloat(e.Value, 64); err == nil && isInteger(e.Want) && f != math.Trunc(f) {
			return fieldTypes(param, "invalid_type", fmt.Sprintf("Invalid type for '%s': expected an integer, but got a decimal instead.", param))
		}
		return fieldTypes(param, "invalid_value", fmt.Sprintf("Invalid '%s': number out of range. Expected a finite number that fits the parameter, but got %s instead.", param, e.Value))
	case wirejson.Invalid:
		code, suffix, text, ok := splitFieldError(e.Message)
		if !ok {
			return fieldTypes(param, "invalid_value", e.Message)
		}
		param += suffix
		return fieldTypes(param, code, strings.ReplaceAll(text, "{param}", param))
	}
	return fieldTypes(param, "invalid_value", e.Error())
}

func fieldTypes(param, code, msg string) *wire.APIError {
	e := &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Message: msg, Code: code, RuleID: RuleFieldTypes}
	if param != "" {
		e.Param = param
	}
	return e
}

// bracketed writes a path as the API's invalid_type messages do:
// messages[0].tool_calls[1].function.
func bracketed(path []string) string { return wirejson.Bracketed(path) }

// fieldError carries a union's or enum's verdict through the decoder as a
// wirejson.InvalidError: the code, the member below the failing value the
// param should name, and the text with {param} where the path goes (the
// decoder adds the path; the union does not know it).
func fieldError(code, suffix, text string) error {
	return &wirejson.InvalidError{Message: code + "\x00" + suffix + "\x00" + text}
}

func splitFieldError(msg string) (code, suffix, text string, ok bool) {
	parts := strings.SplitN(msg, "\x00", 3)
	if len(parts) != 3 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func invalidValueError(suffix, got string, allowed []string) error {
	return fieldError("invalid_value", suffix, fmt.Sprintf("Invalid value: '%s'. Supported values are: %s.", got, quotedList(allowed)))
}

func missingError(suffix string) error {
	return fieldError(missingCode, suffix, "Missing required parameter: '{param}'.")
}

// wrongKind consumes a union's value of a kind it does not take.
func wrongKind(dec *jsontext.Decoder, want string) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return fieldError("invalid_type", "", fmt.Sprintf("Invalid type for '{param}': expected %s, but got %s instead.", want, gotKind(byte(v.Kind()), string(v))))
}

// expected names a Go type the way the API's messages name JSON types.
func expected(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a valid value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a valid value"
}

func isInteger(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && (t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Int32)
}

// gotKind names the JSON value that arrived as the API's messages do.
func gotKind(kind byte, value string) string {
	switch kind {
	case '"':
		return "a string"
	case '0':
		if value != "" && !strings.ContainsAny(value, ".eE") {
			return "an integer"
		}
		if value != "" {
			return "a decimal"
		}
		return "a number"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 'n':
		return "null"
	}
	return "an unknown type"
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

func messagePath(i int) string { return "messages[" + strconv.Itoa(i) + "]" }

func partPath(i, j int) string { return messagePath(i) + ".content[" + strconv.Itoa(j) + "]" }

func toolCallPath(i, j int) string {
	return messagePath(i) + ".tool_calls[" + strconv.Itoa(j) + "]"
}

func toolPath(i int) string { return "tools[" + strconv.Itoa(i) + "]" }

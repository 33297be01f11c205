package openaichat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Request is a Chat Completions request as the checks see it. The body is
// walked by hand rather than unmarshalled into fixed Go types because the
// checks must see what a typed decoder would hide: which required fields
// are absent, and whether function.arguments came as a string or an object.
type Request struct {
	Model    string
	HasModel bool // present, a string, and not empty
	// Messages is nil with HasMessages false when the field is absent or
	// null.
	Messages    []Message
	HasMessages bool
	Tools       []Tool
	ToolChoice  ToolChoice
	// ParallelToolCalls is nil when the caller left the default (true).
	ParallelToolCalls *bool
	Stream            bool
	IncludeUsage      bool // stream_options.include_usage
	// StreamOptionsSent is true when stream_options was present (non-null).
	StreamOptionsSent bool
}

// Message is one entry of messages.
type Message struct {
	Index   int
	Role    string
	HasRole bool
	// Content: HasContent is false when absent or null; ContentIsArray
	// tells a parts array from a plain string (Text).
	HasContent     bool
	ContentIsArray bool
	Text           string
	Parts          []ContentPart
	Refusal        string // assistant refusal field
	Name           string
	ToolCalls      []ToolCall
	// ToolCallsSent is true when tool_calls was present, even as [].
	ToolCallsSent bool
	ToolCallID    string
	HasToolCallID bool
}

// ContentPart is one element of a content array.
type ContentPart struct {
	Type        string
	HasType     bool
	Text        string
	Refusal     string
	ImageURL    string // image_url.url
	AudioData   string // input_audio.data (base64)
	AudioFormat string // input_audio.format
	FileData    string // file.file_data (data URL or base64)
	FileID      string // file.file_id
	Filename    string // file.filename
}

// ToolCall is one assistant tool_calls entry.
type ToolCall struct {
	ID          string
	HasID       bool
	Type        string
	HasType     bool
	HasFunction bool
	Name        string
	HasName     bool
	// Arguments is the value as sent: a string on a well-formed request,
	// but an object (or anything else) is kept so the arguments-string
	// rule can report it; nil with HasArguments false when absent.
	Arguments    any
	HasArguments bool
}

// Tool is one tools entry.
type Tool struct {
	Index       int
	Type        string
	HasType     bool
	HasFunction bool
	Name        string
	HasName     bool
	Description string
	Parameters  json.RawMessage
	Strict      bool
}

// ToolChoice is the decoded tool_choice ("" Mode = not sent: auto).
type ToolChoice struct {
	Mode string // "auto", "none", "required", "function", or "" when absent
	Name string // the forced function
}

// roles are the values OpenAI accepts for messages[N].role, in the order
// its invalid-value message lists them.
var roles = []string{"system", "assistant", "user", "function", "tool", "developer"}

// partTypes are the content part types the Chat API accepts.
var partTypes = []string{"text", "image_url", "input_audio", "refusal", "audio", "file"}

// decodeRequest parses and shape-checks a body. Type mismatches and
// unknown enum values are answered here with OpenAI's invalid_type /
// invalid_value errors (they are request-shape errors, not catalog rules);
// absent required fields and argument types are left to the rules so they
// can be journaled in lenient mode.
func decodeRequest(body []byte) (*Request, *wire.APIError) {
	// One JSON value and nothing after it but space, as a json.Decoder
	// followed by io.EOF would demand; then decoded with UseNumber
	// semantics in one walk.
	if !jsonscan.Valid(body) {
		return nil, openaiwire.InvalidJSON()
	}
	top, ok := jsonscan.ParseObject(body)
	if !ok || top == nil {
		return nil, openaiwire.InvalidJSON()
	}
	// Every member but tools is decoded into the generic shape the checks
	// below read; tools are walked on the bytes, so each function's
	// parameters reach canonicalParameters as sent.
	obj := make(map[string]any, len(top))
	var toolsRaw []byte
	for _, f := range top {
		if f.Key == "tools" {
			toolsRaw = f.Value // the last one wins, as in a map decode
			continue
		}
		obj[f.Key] = jsonscan.AnyNumber(f.Value)
	}
	req := &Request{}
	if v, ok := obj["model"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, invalidType("model", "a string", v)
		}
		req.Model, req.HasModel = s, s != ""
	}
	if v, ok := obj["messages"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidType("messages", "an array", v)
		}
		req.HasMessages = true
		req.Messages = make([]Message, 0, len(arr))
		for i, raw := range arr {
			m, err := decodeMessage(i, raw)
			if err != nil {
				return nil, err
			}
			req.Messages = append(req.Messages, m)
		}
	}
	if toolsRaw != nil && !jsonscan.IsNull(toolsRaw) {
		arr, ok := jsonscan.ParseArray(toolsRaw)
		if !ok {
			return nil, invalidType("tools", "an array", jsonscan.AnyNumber(toolsRaw))
		}
		for i, raw := range arr {
			t, err := decodeTool(i, raw)
			if err != nil {
				return nil, err
			}
			req.Tools = append(req.Tools, t)
		}
	}
	if v, ok := obj["tool_choice"]; ok && v != nil {
		tc, err := decodeToolChoice(v)
		if err != nil {
			return nil, err
		}
		req.ToolChoice = tc
	}
	if v, ok := obj["parallel_tool_calls"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, invalidType("parallel_tool_calls", "a boolean", v)
		}
		req.ParallelToolCalls = &b
	}
	if v, ok := obj["stream"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, invalidType("stream", "a boolean", v)
		}
		req.Stream = b
	}
	if v, ok := obj["stream_options"]; ok && v != nil {
		so, ok := v.(map[string]any)
		if !ok {
			return nil, invalidType("stream_options", "an object", v)
		}
		req.StreamOptionsSent = true
		if u, ok := so["include_usage"]; ok && u != nil {
			b, ok := u.(bool)
			if !ok {
				return nil, invalidType("stream_options.include_usage", "a boolean", u)
			}
			req.IncludeUsage = b
		}
	}
	return req, nil
}

func decodeMessage(i int, raw any) (Message, *wire.APIError) {
	path := "messages[" + strconv.Itoa(i) + "]"
	m := Message{Index: i}
	obj, ok := raw.(map[string]any)
	if !ok {
		return m, invalidType(path, "an object", raw)
	}
	if v, ok := obj["role"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return m, invalidType(path+".role", "a string", v)
		}
		if !oneOf(s, roles) {
			return m, invalidValue(path+".role", s, roles)
		}
		m.Role, m.HasRole = s, true
	}
	if v, ok := obj["content"]; ok && v != nil {
		m.HasContent = true
		switch c := v.(type) {
		case string:
			m.Text = c
		case []any:
			m.ContentIsArray = true
			for j, p := range c {
				part, err := decodePart(path+".content["+strconv.Itoa(j)+"]", p)
				if err != nil {
					return m, err
				}
				m.Parts = append(m.Parts, part)
			}
		default:
			return m, invalidType(path+".content", "one of a string or array of objects", v)
		}
	}
	var err *wire.APIError
	if m.Refusal, _, err = optString(obj, "refusal", path, ""); err != nil {
		return m, err
	}
	if m.Name, _, err = optString(obj, "name", path, ""); err != nil {
		return m, err
	}
	if m.ToolCallID, m.HasToolCallID, err = optString(obj, "tool_call_id", path, ""); err != nil {
		return m, err
	}
	if v, ok := obj["tool_calls"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return m, invalidType(path+".tool_calls", "an array", v)
		}
		m.ToolCallsSent = true
		for j, rc := range arr {
			tc, err := decodeToolCall(path+".tool_calls["+strconv.Itoa(j)+"]", rc)
			if err != nil {
				return m, err
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
	}
	return m, nil
}

func decodePart(path string, raw any) (ContentPart, *wire.APIError) {
	var p ContentPart
	obj, ok := raw.(map[string]any)
	if !ok {
		return p, invalidType(path, "an object", raw)
	}
	var err *wire.APIError
	if p.Type, p.HasType, err = optString(obj, "type", path, ""); err != nil {
		return p, err
	}
	if p.HasType && !oneOf(p.Type, partTypes) {
		return p, invalidValue(path+".type", p.Type, partTypes)
	}
	if p.Text, _, err = optString(obj, "text", path, ""); err != nil {
		return p, err
	}
	if p.Refusal, _, err = optString(obj, "refusal", path, ""); err != nil {
		return p, err
	}
	if v, ok := obj["image_url"]; ok && v != nil {
		// The API takes {"url": …}; a bare string is an old client habit
		// that is accepted nowhere, so it is a type error.
		o, ok := v.(map[string]any)
		if !ok {
			return p, invalidType(path+".image_url", "an object", v)
		}
		if p.ImageURL, _, err = optString(o, "url", path, ".image_url"); err != nil {
			return p, err
		}
	}
	if v, ok := obj["input_audio"]; ok && v != nil {
		o, ok := v.(map[string]any)
		if !ok {
			return p, invalidType(path+".input_audio", "an object", v)
		}
		if p.AudioData, _, err = optString(o, "data", path, ".input_audio"); err != nil {
			return p, err
		}
		if p.AudioFormat, _, err = optString(o, "format", path, ".input_audio"); err != nil {
			return p, err
		}
	}
	if v, ok := obj["file"]; ok && v != nil {
		o, ok := v.(map[string]any)
		if !ok {
			return p, invalidType(path+".file", "an object", v)
		}
		if p.FileData, _, err = optString(o, "file_data", path, ".file"); err != nil {
			return p, err
		}
		if p.FileID, _, err = optString(o, "file_id", path, ".file"); err != nil {
			return p, err
		}
		if p.Filename, _, err = optString(o, "filename", path, ".file"); err != nil {
			return p, err
		}
	}
	return p, nil
}

func decodeToolCall(path string, raw any) (ToolCall, *wire.APIError) {
	var tc ToolCall
	obj, ok := raw.(map[string]any)
	if !ok {
		return tc, invalidType(path, "an object", raw)
	}
	var err *wire.APIError
	if tc.ID, tc.HasID, err = optString(obj, "id", path, ""); err != nil {
		return tc, err
	}
	if tc.Type, tc.HasType, err = optString(obj, "type", path, ""); err != nil {
		return tc, err
	}
	if tc.HasType && tc.Type != "function" && tc.Type != "custom" {
		return tc, invalidValue(path+".type", tc.Type, []string{"function", "custom"})
	}
	fn, ok := obj["function"]
	if !ok || fn == nil {
		return tc, nil
	}
	f, ok := fn.(map[string]any)
	if !ok {
		return tc, invalidType(path+".function", "an object", fn)
	}
	tc.HasFunction = true
	if tc.Name, tc.HasName, err = optString(f, "name", path, ".function"); err != nil {
		return tc, err
	}
	if a, ok := f["arguments"]; ok {
		tc.Arguments, tc.HasArguments = a, true
	}
	return tc, nil
}

func decodeTool(i int, raw []byte) (Tool, *wire.APIError) {
	path := "tools[" + strconv.Itoa(i) + "]"
	t := Tool{Index: i}
	members, ok := jsonscan.ParseObject(raw)
	if !ok || members == nil {
		return t, invalidType(path, "an object", jsonscan.AnyNumber(raw))
	}
	obj, fn, _ := anyExcept(members, "function")
	var err *wire.APIError
	if t.Type, t.HasType, err = optString(obj, "type", path, ""); err != nil {
		return t, err
	}
	if t.HasType && t.Type != "function" && t.Type != "custom" {
		return t, invalidValue(path+".type", t.Type, []string{"function", "custom"})
	}
	if fn == nil || jsonscan.IsNull(fn) {
		return t, nil
	}
	fnMembers, ok := jsonscan.ParseObject(fn)
	if !ok {
		return t, invalidType(path+".function", "an object", jsonscan.AnyNumber(fn))
	}
	f, params, _ := anyExcept(fnMembers, "parameters")
	t.HasFunction = true
	if t.Name, t.HasName, err = optString(f, "name", path, ".function"); err != nil {
		return t, err
	}
	if t.Description, _, err = optString(f, "description", path, ".function"); err != nil {
		return t, err
	}
	if params != nil && !jsonscan.IsNull(params) {
		// Kept as JSON even when it is not an object: the schema rule
		// reports that in the API's words.
		t.Parameters = canonicalParameters(params)
	}
	if s, ok := f["strict"]; ok && s != nil {
		b, ok := s.(bool)
		if !ok {
			return t, invalidType(path+".function.strict", "a boolean", s)
		}
		t.Strict = b
	}
	return t, nil
}

// anyExcept decodes an object's members into the generic shape, except
// skip, whose last value is returned as sent (nil when absent).
func anyExcept(members jsonscan.Object, skip string) (map[string]any, []byte, bool) {
	m := make(map[string]any, len(members))
	var kept []byte
	found := false
	for _, f := range members {
		if f.Key == skip {
			kept, found = f.Value, true
			continue
		}
		m[f.Key] = jsonscan.AnyNumber(f.Value)
	}
	return m, kept, found
}

// canonicalParameters is a tool's parameters as json.Marshal renders
// their generic decode (keys sorted, compact, HTML-escaped): what the
// checks and the journal have always seen. An agent sends the same tools
// on every request, so the rendering is cached by the bytes sent; it was
// the largest single cost of a Chat request's decode.
func canonicalParameters(raw []byte) json.RawMessage {
	paramsCache.mu.Lock()
	b, ok := paramsCache.m[string(raw)]
	paramsCache.mu.Unlock()
	if ok {
		return b
	}
	b, _ = json.Marshal(jsonscan.AnyNumber(raw))
	b = b[:len(b):len(b)] // shared: an append must copy
	if len(raw) <= maxCachedParams {
		paramsCache.mu.Lock()
		if paramsCache.m == nil || len(paramsCache.m) >= maxCachedParamSets {
			paramsCache.m = map[string]json.RawMessage{} // bounded: cleared when full
		}
		paramsCache.m[string(raw)] = b
		paramsCache.mu.Unlock()
	}
	return b
}

var paramsCache struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

const (
	maxCachedParamSets = 4096
	maxCachedParams    = 64 << 10
)

var toolChoiceModes = []string{"none", "auto", "required"}

func decodeToolChoice(v any) (ToolChoice, *wire.APIError) {
	switch x := v.(type) {
	case string:
		if !oneOf(x, toolChoiceModes) {
			return ToolChoice{}, invalidValue("tool_choice", x, toolChoiceModes)
		}
		return ToolChoice{Mode: x}, nil
	case map[string]any:
		typ, _ := x["type"].(string)
		switch typ {
		case "function":
			f, _ := x["function"].(map[string]any)
			name, _ := f["name"].(string)
			if name == "" {
				return ToolChoice{}, missingParam("tool_choice.function.name")
			}
			return ToolChoice{Mode: "function", Name: name}, nil
		case "allowed_tools":
			// A subset constraint without forcing a call: as auto here.
			return ToolChoice{Mode: "auto"}, nil
		case "":
			return ToolChoice{}, missingParam("tool_choice.type")
		default:
			return ToolChoice{}, invalidValue("tool_choice.type", typ, []string{"function", "allowed_tools", "custom"})
		}
	}
	return ToolChoice{}, invalidType("tool_choice", "one of a string or object", v)
}

// optString reads an optional string field; null counts as absent.
// The error's param is path+mid+"."+key, built only when needed: most
// fields are well-formed, and the paths cost more than the lookups.
func optString(obj map[string]any, key, path, mid string) (string, bool, *wire.APIError) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, invalidType(path+mid+"."+key, "a string", v)
	}
	return s, true, nil
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// typeName names a JSON value the way OpenAI's validator does in
// "expected X, but got Y instead".
func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "a decimal"
		}
		return "an integer"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "an unknown type"
}

// invalidType is OpenAI's invalid_type answer, e.g. "Invalid type for
// 'messages[2].tool_calls[0].function.arguments': expected a string, but
// got an object instead." (provider-rules.md §1.3 rule 3).
func invalidType(param, want string, got any) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: param, Code: "invalid_type",
		Message: fmt.Sprintf("Invalid type for '%s': expected %s, but got %s instead.", param, want, typeName(got))}
}

// invalidValue is OpenAI's invalid_value answer for an enum field.
func invalidValue(param, got string, allowed []string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: param, Code: "invalid_value",
		Message: fmt.Sprintf("Invalid value: '%s'. Supported values are: %s.", got, quotedList(allowed))}
}

func missingParam(param string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: param, Code: "missing_required_parameter",
		Message: fmt.Sprintf("Missing required parameter: '%s'.", param)}
}

// quotedList renders 'a', 'b', and 'c' as the API's messages do.
func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}

package openaichat

import (
	"bytes"
	"slices"
	"strconv"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The decoder walks the validated body on its spans, member by member,
// and reads each field straight from the bytes. It used to decode every
// member into maps and boxed values first and then read those: a map per
// message, per tool call and per function, a box per value, and strings
// for members nobody reads. That was the largest share of a Chat
// request's CPU and allocations. The results, and the error for the first
// bad field, are those of the generic-map decoder (kept as
// referenceDecodeRequest, FuzzDecodeMatchesReference): fields are checked in the same order, a
// repeated key keeps its last value as a map decode does, and error
// values are decoded generically only on the error path, so their
// messages are built from the very same values.

// decodeRequest parses and shape-checks a body. Type mismatches and
// unknown enum values are answered here with OpenAI's invalid_type /
// invalid_value errors (they are request-shape errors, not catalog rules);
// absent required fields and argument types are left to the rules so they
// can be journaled in lenient mode.
func decodeRequest(body []byte) (*Request, *wire.APIError) {
	// One JSON value and nothing after it but space, as a json.Decoder
	// followed by io.EOF would demand.
	if !jsonscan.Valid(body) {
		return nil, openaiwire.InvalidJSON()
	}
	top, ok := jsonscan.ObjectMembers(body)
	if !ok {
		return nil, openaiwire.InvalidJSON()
	}
	var model, messages, tools, toolChoice, parallel, stream, streamOptions []byte
	for {
		raw, v, more := top.Next()
		if !more {
			break
		}
		switch string(memberKey(raw)) {
		case "model":
			model = v
		case "messages":
			messages = v
		case "tools":
			tools = v
		case "tool_choice":
			toolChoice = v
		case "parallel_tool_calls":
			parallel = v
		case "stream":
			stream = v
		case "stream_options":
			streamOptions = v
		}
	}
	req := &Request{}
	if present(model) {
		s, ok := stringValue(model)
		if !ok {
			return nil, invalidType("model", "a string", jsonscan.AnyNumber(model))
		}
		req.Model, req.HasModel = s, s != ""
	}
	if present(messages) {
		var buf [16][]byte
		elems, ok := elements(buf[:0], messages)
		if !ok {
			return nil, invalidType("messages", "an array", jsonscan.AnyNumber(messages))
		}
		req.HasMessages = true
		req.Messages = make([]Message, len(elems))
		for i, raw := range elems {
			if err := decodeMessage(&req.Messages[i], i, raw); err != nil {
				return nil, err
			}
		}
	}
	if present(tools) {
		var err *wire.APIError
		if req.Tools, err = decodeTools(tools); err != nil {
			return nil, err
		}
	}
	if present(toolChoice) {
		tc, err := decodeToolChoice(jsonscan.AnyNumber(toolChoice))
		if err != nil {
			return nil, err
		}
		req.ToolChoice = tc
	}
	if present(parallel) {
		b, ok := jsonscan.Bool(parallel)
		if !ok {
			return nil, invalidType("parallel_tool_calls", "a boolean", jsonscan.AnyNumber(parallel))
		}
		req.ParallelToolCalls = &b
	}
	if present(stream) {
		b, ok := jsonscan.Bool(stream)
		if !ok {
			return nil, invalidType("stream", "a boolean", jsonscan.AnyNumber(stream))
		}
		req.Stream = b
	}
	if present(streamOptions) {
		so, ok := pick(streamOptions, "include_usage")
		if !ok {
			return nil, invalidType("stream_options", "an object", jsonscan.AnyNumber(streamOptions))
		}
		req.StreamOptionsSent = true
		usage := so[0]
		if present(usage) {
			b, ok := jsonscan.Bool(usage)
			if !ok {
				return nil, invalidType("stream_options.include_usage", "a boolean", jsonscan.AnyNumber(usage))
			}
			req.IncludeUsage = b
		}
	}
	return req, nil
}

// decodeMessage fills *m from messages[i]. It writes in place so the
// message is built once in the request's slice.
func decodeMessage(m *Message, i int, v []byte) *wire.APIError {
	m.Index = i
	members, ok := jsonscan.ObjectMembers(v)
	if !ok {
		return invalidType(messagePath(i), "an object", jsonscan.AnyNumber(v))
	}
	var role, content, refusal, name, toolCallID, toolCalls []byte
	for {
		raw, v, more := members.Next()
		if !more {
			break
		}
		switch string(memberKey(raw)) {
		case "role":
			role = v
		case "content":
			content = v
		case "refusal":
			refusal = v
		case "name":
			name = v
		case "tool_call_id":
			toolCallID = v
		case "tool_calls":
			toolCalls = v
		}
	}
	if present(role) {
		s, ok := enumValue(role, roles)
		if !ok {
			return invalidType(messagePath(i)+".role", "a string", jsonscan.AnyNumber(role))
		}
		if !oneOf(s, roles) {
			return invalidValue(messagePath(i)+".role", s, roles)
		}
		m.Role, m.HasRole = s, true
	}
	if present(content) {
		m.HasContent = true
		switch content[0] {
		case '"':
			m.Text = unquote(content)
		case '[':
			m.ContentIsArray = true
			var buf [16][]byte
			elems, _ := elements(buf[:0], content)
			if len(elems) > 0 { // nil for [], as a map decode left it
				m.Parts = make([]ContentPart, len(elems))
			}
			for j, raw := range elems {
				if err := decodePart(&m.Parts[j], i, j, raw); err != nil {
					return err
				}
			}
		default:
			return invalidType(messagePath(i)+".content", "one of a string or array of objects", jsonscan.AnyNumber(content))
		}
	}
	var err *wire.APIError
	if m.Refusal, _, err = messageString(refusal, i, ".refusal"); err != nil {
		return err
	}
	if m.Name, _, err = messageString(name, i, ".name"); err != nil {
		return err
	}
	if m.ToolCallID, m.HasToolCallID, err = messageString(toolCallID, i, ".tool_call_id"); err != nil {
		return err
	}
	if present(toolCalls) {
		var buf [16][]byte
		elems, ok := elements(buf[:0], toolCalls)
		if !ok {
			return invalidType(messagePath(i)+".tool_calls", "an array", jsonscan.AnyNumber(toolCalls))
		}
		m.ToolCallsSent = true
		if len(elems) > 0 { // nil for [], as a map decode left it
			m.ToolCalls = make([]ToolCall, len(elems))
		}
		for j, raw := range elems {
			if err := decodeToolCall(&m.ToolCalls[j], i, j, raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodePart fills *p from messages[i].content[j].
func decodePart(p *ContentPart, i, j int, v []byte) *wire.APIError {
	members, ok := jsonscan.ObjectMembers(v)
	if !ok {
		return invalidType(partPath(i, j), "an object", jsonscan.AnyNumber(v))
	}
	var typ, text, refusal, imageURL, inputAudio, file []byte
	for {
		raw, v, more := members.Next()
		if !more {
			break
		}
		switch string(memberKey(raw)) {
		case "type":
			typ = v
		case "text":
			text = v
		case "refusal":
			refusal = v
		case "image_url":
			imageURL = v
		case "input_audio":
			inputAudio = v
		case "file":
			file = v
		}
	}
	var err *wire.APIError
	if p.Type, p.HasType, err = partString(typ, i, j, ".type", partTypes); err != nil {
		return err
	}
	if p.HasType && !oneOf(p.Type, partTypes) {
		return invalidValue(partPath(i, j)+".type", p.Type, partTypes)
	}
	if p.Text, _, err = partString(text, i, j, ".text", nil); err != nil {
		return err
	}
	if p.Refusal, _, err = partString(refusal, i, j, ".refusal", nil); err != nil {
		return err
	}
	if present(imageURL) {
		// The API takes {"url": …}; a bare string is an old client habit
		// that is accepted nowhere, so it is a type error.
		o, ok := pick(imageURL, "url")
		if !ok {
			return invalidType(partPath(i, j)+".image_url", "an object", jsonscan.AnyNumber(imageURL))
		}
		if p.ImageURL, _, err = partString(o[0], i, j, ".image_url.url", nil); err != nil {
			return err
		}
	}
	if present(inputAudio) {
		o, ok := pick(inputAudio, "data", "format")
		if !ok {
			return invalidType(partPath(i, j)+".input_audio", "an object", jsonscan.AnyNumber(inputAudio))
		}
		if p.AudioData, _, err = partString(o[0], i, j, ".input_audio.data", nil); err != nil {
			return err
		}
		if p.AudioFormat, _, err = partString(o[1], i, j, ".input_audio.format", nil); err != nil {
			return err
		}
	}
	if present(file) {
		o, ok := pick(file, "file_data", "file_id", "filename")
		if !ok {
			return invalidType(partPath(i, j)+".file", "an object", jsonscan.AnyNumber(file))
		}
		if p.FileData, _, err = partString(o[0], i, j, ".file.file_data", nil); err != nil {
			return err
		}
		if p.FileID, _, err = partString(o[1], i, j, ".file.file_id", nil); err != nil {
			return err
		}
		if p.Filename, _, err = partString(o[2], i, j, ".file.filename", nil); err != nil {
			return err
		}
	}
	return nil
}

// decodeToolCall fills *tc from messages[i].tool_calls[j].
func decodeToolCall(tc *ToolCall, i, j int, v []byte) *wire.APIError {
	o, ok := pick(v, "id", "type", "function")
	if !ok {
		return invalidType(toolCallPath(i, j), "an object", jsonscan.AnyNumber(v))
	}
	id, typ, fn := o[0], o[1], o[2]
	var err *wire.APIError
	if tc.ID, tc.HasID, err = callString(id, i, j, ".id", nil); err != nil {
		return err
	}
	if tc.Type, tc.HasType, err = callString(typ, i, j, ".type", callTypes); err != nil {
		return err
	}
	if tc.HasType && tc.Type != "function" && tc.Type != "custom" {
		return invalidValue(toolCallPath(i, j)+".type", tc.Type, callTypes)
	}
	if !present(fn) {
		return nil
	}
	f, ok := pick(fn, "name", "arguments")
	if !ok {
		return invalidType(toolCallPath(i, j)+".function", "an object", jsonscan.AnyNumber(fn))
	}
	name, args := f[0], f[1]
	tc.HasFunction = true
	if tc.Name, tc.HasName, err = callString(name, i, j, ".function.name", nil); err != nil {
		return err
	}
	// Arguments count as sent even when null: the required-fields rule
	// and the arguments-string rule tell the cases apart.
	if args != nil {
		tc.HasArguments = true
		switch {
		case jsonscan.IsNull(args):
		case args[0] == '"':
			tc.Arguments = unquote(args)
		default:
			tc.Arguments = jsonscan.AnyNumber(args)
		}
	}
	return nil
}

// callTypes are the values tools[].type and tool_calls[].type accept.
var callTypes = []string{"function", "custom"}

// decodeTools decodes the tools array v. An agent declares the same tools
// on every request of a session, so a successful decode is cached by the
// bytes sent and each request gets its own copy of the slice (the strings
// and parameters in it are never modified, so they are shared).
func decodeTools(v []byte) ([]Tool, *wire.APIError) {
	toolsCache.mu.Lock()
	cached, ok := toolsCache.m[string(v)]
	toolsCache.mu.Unlock()
	if ok {
		return slices.Clone(cached), nil
	}
	var buf [16][]byte
	elems, ok := elements(buf[:0], v)
	if !ok {
		return nil, invalidType("tools", "an array", jsonscan.AnyNumber(v))
	}
	var tools []Tool // nil for [], as a map decode left it
	if len(elems) > 0 {
		tools = make([]Tool, len(elems))
	}
	for i, raw := range elems {
		if err := decodeTool(&tools[i], i, raw); err != nil {
			return nil, err
		}
	}
	if len(v) <= maxCachedTools {
		toolsCache.mu.Lock()
		if toolsCache.m == nil || len(toolsCache.m) >= maxCachedToolSets {
			toolsCache.m = map[string][]Tool{} // bounded: cleared when full
		}
		toolsCache.m[string(v)] = slices.Clone(tools)
		toolsCache.mu.Unlock()
	}
	return tools, nil
}

// toolsCache is shared by all requests; the mutex guards it. Its slices
// are only ever copied out, never handed out or written.
var toolsCache struct {
	mu sync.Mutex
	m  map[string][]Tool
}

const (
	maxCachedToolSets = 256
	maxCachedTools    = 64 << 10
)

// decodeTool fills *t from tools[i].
func decodeTool(t *Tool, i int, v []byte) *wire.APIError {
	t.Index = i
	o, ok := pick(v, "type", "function")
	if !ok {
		return invalidType(toolPath(i), "an object", jsonscan.AnyNumber(v))
	}
	typ, fn := o[0], o[1]
	var err *wire.APIError
	if t.Type, t.HasType, err = toolString(typ, i, ".type", callTypes); err != nil {
		return err
	}
	if t.HasType && t.Type != "function" && t.Type != "custom" {
		return invalidValue(toolPath(i)+".type", t.Type, callTypes)
	}
	if !present(fn) {
		return nil
	}
	f, ok := pick(fn, "name", "description", "parameters", "strict")
	if !ok {
		return invalidType(toolPath(i)+".function", "an object", jsonscan.AnyNumber(fn))
	}
	name, description, params, strict := f[0], f[1], f[2], f[3]
	t.HasFunction = true
	if t.Name, t.HasName, err = toolString(name, i, ".function.name", nil); err != nil {
		return err
	}
	if t.Description, _, err = toolString(description, i, ".function.description", nil); err != nil {
		return err
	}
	if present(params) {
		// Kept as JSON even when it is not an object: the schema rule
		// reports that in the API's words.
		t.Parameters = canonicalParameters(params)
	}
	if present(strict) {
		b, ok := jsonscan.Bool(strict)
		if !ok {
			return invalidType(toolPath(i)+".function.strict", "a boolean", jsonscan.AnyNumber(strict))
		}
		t.Strict = b
	}
	return nil
}

// elements appends the element spans of the array v to dst (callers pass
// a buffer on their stack), so the elements are counted and the decoded
// slice allocated once, at its size, without walking the array twice.
// ok is false when v is not an array.
func elements(dst [][]byte, v []byte) ([][]byte, bool) {
	it, ok := jsonscan.ArrayElements(v)
	if !ok {
		return nil, false
	}
	for {
		e, more := it.Next()
		if !more {
			return dst, true
		}
		dst = append(dst, e)
	}
}

// pick returns the spans of the named members of the object v (nil when
// absent; a repeated key keeps the last), in the order named; ok is false
// when v is not an object. At most four names.
func pick(v []byte, names ...string) (spans [4][]byte, ok bool) {
	members, ok := jsonscan.ObjectMembers(v)
	if !ok {
		return spans, false
	}
	for {
		raw, val, more := members.Next()
		if !more {
			return spans, true
		}
		key := memberKey(raw)
		for k, name := range names {
			if string(key) == name {
				spans[k] = val
			}
		}
	}
}

// memberKey is a member's key as encoding/json would decode it. Plain
// keys, all the decoder compares, are their raw bytes; only a key with
// escapes or bytes outside printable ASCII is decoded (allocating).
func memberKey(raw []byte) []byte {
	if jsonscan.PlainKey(raw) {
		return raw
	}
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	return []byte(unquote(quoted))
}

// unquote is a string span's value. jsonscan.String decodes a string with
// escapes through json.Unmarshal; here escapes are the rule (arguments
// and tool results are JSON inside a string), so they are decoded
// directly.
func unquote(v []byte) string {
	if bytes.IndexByte(v, '\\') >= 0 {
		return jsonscan.UnquoteEscaped(v)
	}
	return jsonscan.String(v)
}

// present reports a member that was sent and is not null (what a map
// lookup followed by a nil check saw).
func present(v []byte) bool { return v != nil && !jsonscan.IsNull(v) }

// stringValue is the string a span holds; false when it is not a string.
func stringValue(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return unquote(v), true
}

// enumValue is stringValue that returns the shared copy from set when the
// string is one of them as written (no escapes), so the values every
// request repeats (roles, part types) are not allocated each time.
func enumValue(v []byte, set []string) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	for _, s := range set {
		if string(inner) == s {
			return s, true
		}
	}
	return unquote(v), true
}

// optional reads an optional string member; null counts as absent. A
// value of another type is an invalid_type error at path().
func optional(v []byte, set []string, path func() string) (string, bool, *wire.APIError) {
	if !present(v) {
		return "", false, nil
	}
	s, ok := enumValue(v, set)
	if !ok {
		return "", false, invalidType(path(), "a string", jsonscan.AnyNumber(v))
	}
	return s, true, nil
}

// The helpers below read an optional string of each kind of object; the
// error path is built from the indexes only when a value has the wrong
// type (i = message, j = part or call, suffix = the member's path inside
// it).

func messageString(v []byte, i int, suffix string) (string, bool, *wire.APIError) {
	return optional(v, nil, func() string { return messagePath(i) + suffix })
}

func partString(v []byte, i, j int, suffix string, set []string) (string, bool, *wire.APIError) {
	return optional(v, set, func() string { return partPath(i, j) + suffix })
}

func callString(v []byte, i, j int, suffix string, set []string) (string, bool, *wire.APIError) {
	return optional(v, set, func() string { return toolCallPath(i, j) + suffix })
}

func toolString(v []byte, i int, suffix string, set []string) (string, bool, *wire.APIError) {
	return optional(v, set, func() string { return toolPath(i) + suffix })
}

func messagePath(i int) string { return "messages[" + strconv.Itoa(i) + "]" }

func partPath(i, j int) string { return messagePath(i) + ".content[" + strconv.Itoa(j) + "]" }

func toolCallPath(i, j int) string {
	return messagePath(i) + ".tool_calls[" + strconv.Itoa(j) + "]"
}

func toolPath(i int) string { return "tools[" + strconv.Itoa(i) + "]" }

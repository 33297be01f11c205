package openaichat

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/internal/bounded"
)

// Request is a Chat Completions request as the checks see it, read from
// the wire structs (wire.go): which required fields are absent, and
// whether function.arguments came as a string or an object.
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
	// ToolChoiceSent is true when tool_choice was present (non-null).
	ToolChoiceSent bool
	// FunctionCallSent and FunctionsSent: the legacy function_call and
	// functions members were present (non-null; functions non-empty).
	FunctionCallSent, FunctionsSent bool
	// MaxTokensSent is true when the legacy max_tokens was present.
	MaxTokensSent bool
	// MaxOutputTokens is max_completion_tokens, or else max_tokens (0: no
	// limit); StopSequences is stop, a string or a list.
	MaxOutputTokens int64
	StopSequences   []string
	// Unknown lists the members the API does not define, kept in lenient
	// mode for the known-fields rule to journal.
	Unknown []UnknownMember
	// Deployment is the Azure deployment of the path ("" on
	// api.openai.com paths).
	Deployment string
	// received is when decoding began: openai-processing-ms counts from it.
	received time.Time
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
	// parsed is parseArguments(Arguments), read once with the message:
	// the conversation gets a copy of it (argumentsCopy).
	parsed map[string]any
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

// canonicalParameters is a tool's parameters as json.Marshal renders
// their generic decode (keys sorted, compact, HTML-escaped): what the
// checks and the journal have always seen. An agent sends the same tools
// on every request, so the rendering is cached by the bytes sent; it was
// the largest single cost of a Chat request's decode.
func canonicalParameters(raw []byte) json.RawMessage {
	if b, ok := paramsCache.Get(raw); ok {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers exactly as sent
	var v any
	_ = dec.Decode(&v)
	b, _ := json.Marshal(v)
	b = b[:len(b):len(b)] // shared: an append must copy
	paramsCache.Put(string(raw), b)
	return b
}

var paramsCache = bounded.Map[json.RawMessage]{MaxEntries: 4096, MaxKey: 64 << 10}

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

package openaichat

// The request as the checks see it (Request, read from the wire structs)
// and mapped onto the neutral conversation (conv.Conversation).

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Request is a Chat Completions request as the checks see it, read from
// the wire structs (wire.go): which required fields are absent, and
// whether function.arguments came as a string or an object.
type Request struct {
	Model    string
	HasModel bool // present, a string, and not empty
	// Messages is nil with HasMessages false when the field is absent or
	// null. A message a session kept is shared by the requests that
	// resend it: read only.
	Messages    []*Message
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
	// N is n as sent (0: absent), how many choices the answer holds.
	N int64
	// Unknown lists the members the API does not define, kept in lenient
	// mode for the known-fields rule to journal.
	Unknown []UnknownMember
	// MessageExtras are the members inside messages that the message's
	// role (or its parts' and calls' types) does not define: the API takes
	// them, so the message-members rule journals them.
	MessageExtras []UnknownMember
	// Temperature and TopP are the sampling members as sent (nil when
	// absent or null).
	Temperature, TopP *float64
	// ResponseFormat is response_format as sent (nil when absent or null).
	ResponseFormat *ResponseFormat
	// Deployment is the Azure deployment of the path ("" on
	// api.openai.com paths).
	Deployment string
	// caps are the members the model catalog's rules read (capabilities.go).
	caps capabilityParams
	// received is when decoding began: openai-processing-ms counts from it.
	received time.Time
	// turns are what each message adds to the conversation, kept with
	// the messages a session reuses (resumed.go), with their prompt lines
	// when turnPrompts; conv is the conversation toConversation made of
	// them.
	turns       []*messageTurn
	turnPrompts bool
	conv        *conv.Conversation
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

// ResponseFormat is the decoded response_format.
type ResponseFormat struct {
	Type string // "text", "json_object" or "json_schema"
	// HasJSONSchema: the json_schema member was present; Name, HasName,
	// Schema (as sent, nil when absent or null) and Strict are read from it.
	HasJSONSchema bool
	Name          string
	HasName       bool
	Schema        json.RawMessage
	Strict        bool
}

// output is the answer's form the format demands (nil: free text).
func (f *ResponseFormat) output() *conv.Output {
	switch {
	case f == nil:
		return nil
	case f.Type == "json_object":
		return &conv.Output{Kind: conv.OutputJSONObject}
	case f.Type == "json_schema" && f.HasJSONSchema:
		return &conv.Output{Kind: conv.OutputJSONSchema, Name: f.Name, Schema: f.Schema}
	}
	return nil
}

// ToolChoice is the decoded tool_choice ("" Mode = not sent: auto).
type ToolChoice struct {
	Mode string // "auto", "none", "required", "function", or "" when absent
	Name string // the forced function
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

// toConversation maps the request onto the neutral model (and notes it as
// r.conv: the prompt text is r's when it renders that conversation). It never fails:
// in lenient mode a request breaking a rule still reaches the model, so
// every field is read defensively.
func toConversation(r *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.OpenAIChat, Model: r.Model, Stream: r.Stream, Turns: make([]conv.Turn, 0, len(r.Messages))}
	if n := countTools(r); n > 0 {
		c.Tools = make([]conv.Tool, 0, n)
		for _, t := range r.Tools {
			if t.Type != "function" || !t.HasName {
				continue
			}
			c.Tools = append(c.Tools, conv.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Strict: t.Strict})
		}
	}
	switch r.ToolChoice.Mode {
	case "none":
		c.ToolChoice.Mode = conv.ToolChoiceNone
	case "required":
		c.ToolChoice.Mode = conv.ToolChoiceRequired
	case "function":
		c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: r.ToolChoice.Name}
	default:
		c.ToolChoice.Mode = conv.ToolChoiceAuto
	}
	c.Controls = conv.Controls{
		MaxOutputTokens: max(r.MaxOutputTokens, 0),
		StopSequences:   r.StopSequences,
		SerialCalls:     r.ParallelToolCalls != nil && !*r.ParallelToolCalls,
		Candidates:      int(min(max(r.N, 1), maxChoices)),
		Output:          r.ResponseFormat.output(),
	}

	var systemBuf [2]string
	system := systemBuf[:0]
	for i, t := range r.turns {
		switch t.role {
		case "system", "developer":
			if t.system != "" {
				system = append(system, t.system)
			}
		case "user", "assistant":
			c.Turns = append(c.Turns, conv.Turn{Role: conv.Role(t.role), Parts: t.parts})
		case "tool":
			// Consecutive tool messages answer one batch: one user turn of
			// results, as Anthropic and Gemini carry them.
			if !t.opensRun {
				last := c.LastTurn()
				last.Parts = append(last.Parts, t.parts...)
			} else if n := toolRun(r.Messages[i:]); n == 1 {
				c.Turns = append(c.Turns, conv.Turn{Role: conv.User, Parts: t.parts})
			} else {
				// Sized for the whole run of tool messages at once.
				parts := make([]conv.Part, 0, n)
				c.Turns = append(c.Turns, conv.Turn{Role: conv.User, Parts: append(parts, t.parts...)})
			}
		default:
			// Legacy "function" messages predate tool calls; they carry
			// nothing the neutral model can use.
		}
	}
	c.System = strings.Join(system, "\n")
	r.conv = c
	return c
}

// messageTurn is what one message adds to the conversation and to the
// prompt text, made once with the message: everything in it depends only
// on the message and those before it, which are the same whenever a
// session reuses the message. Read only once made.
type messageTurn struct {
	role string
	// system is a system or developer message's text.
	system string
	// parts are the turn's parts; a tool message's one result joins the
	// run of results it continues.
	parts []conv.Part
	// opensRun: a tool message that starts a run of results (a user turn
	// of its own); inRun: a run of results is open after this message.
	opensRun, inRun bool
	// prompt is the message's lines of the prompt text (promptText).
	prompt []byte
	// settled: the checks that read messages one by one find nothing in
	// this message nor in those before it, but for the answers of a batch
	// of calls still open after it: openBatch is that batch's assistant
	// message's index plus one (0: none open). See settle and checkFrom.
	settled   bool
	openBatch int
}

// makeTurn makes m's turn; prev is the turn of the message before it (nil
// for the first), names the calls before it. Its prompt lines are made
// only withPrompt: for a message a session keeps, as a request decoded
// whole renders its prompt text in one piece.
func makeTurn(m *Message, prev *messageTurn, names *callNames, withPrompt bool) messageTurn {
	t := messageTurn{role: m.Role, inRun: prev != nil && prev.inRun}
	switch m.Role {
	case "system", "developer":
		t.system, t.inRun = textOf(*m), false
		return t
	case "user":
		t.parts, t.inRun = userParts(*m), false
	case "assistant":
		t.parts, t.inRun = assistantParts(*m), false
		names.add(t.parts)
	case "tool":
		result := &conv.Result{CallID: m.ToolCallID, Name: names.get(m.ToolCallID), Content: resultContent(*m)}
		t.parts = []conv.Part{{Kind: conv.KindResult, Result: result}}
		t.opensRun, t.inRun = !t.inRun, true
	default:
		return t
	}
	if !withPrompt {
		return t
	}
	switch {
	case t.role == "assistant":
		t.prompt = append(t.prompt, "assistant\n"...)
	case t.role == "user" || t.opensRun:
		t.prompt = append(t.prompt, "user\n"...)
	}
	for _, p := range t.parts {
		t.prompt = promptLine(t.prompt, p)
	}
	return t
}

// countTools counts the tools the conversation declares, so the slice is
// sized once and stays nil when there are none.
func countTools(r *Request) int {
	n := 0
	for _, t := range r.Tools {
		if t.Type == "function" && t.HasName {
			n++
		}
	}
	return n
}

// toolRun counts the tool messages at the start of ms.
func toolRun(ms []*Message) int {
	n := 0
	for n < len(ms) && ms[n].Role == "tool" {
		n++
	}
	return n
}

// callNameIndex maps call ids to function names, the last call with an id
// winning, as a map would. A conversation replays a few calls at a time,
// so the first ones are searched in place and a map is built only for a
// long history, where a linear search would grow quadratic.
type callNameIndex struct {
	ids, names [8]string
	n          int
	m          map[string]string
}

func (x *callNameIndex) set(id, name string) {
	if x.m == nil && x.n < len(x.ids) {
		x.ids[x.n], x.names[x.n] = id, name
		x.n++
		return
	}
	if x.m == nil {
		x.m = make(map[string]string, 2*len(x.ids))
		for k := range x.n {
			x.m[x.ids[k]] = x.names[k]
		}
	}
	x.m[id] = name
}

func (x *callNameIndex) lookup(id string) (string, bool) {
	if x.m != nil {
		name, ok := x.m[id]
		return name, ok
	}
	for k := x.n - 1; k >= 0; k-- {
		if x.ids[k] == id {
			return x.names[k], true
		}
	}
	return "", false
}

// textOf joins a message's text: the string content, or its text parts.
func textOf(m Message) string {
	if !m.ContentIsArray {
		return m.Text
	}
	var out []string
	for _, p := range m.Parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

func userParts(m Message) []conv.Part {
	if !m.ContentIsArray {
		return []conv.Part{{Kind: conv.KindText, Text: m.Text}}
	}
	parts := []conv.Part{}
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			parts = append(parts, conv.Part{Kind: conv.KindText, Text: p.Text})
		case "image_url", "input_audio", "file":
			ct := mediaContent(p)
			parts = append(parts, conv.Part{Kind: conv.KindMedia, Media: &ct})
		}
	}
	return parts
}

func assistantParts(m Message) []conv.Part {
	n := len(m.ToolCalls)
	if m.ContentIsArray {
		n += len(m.Parts)
	} else if m.Text != "" {
		n++
	}
	if m.Refusal != "" {
		n++
	}
	parts := make([]conv.Part, 0, n)
	if m.ContentIsArray {
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				parts = append(parts, conv.Part{Kind: conv.KindText, Text: p.Text})
			case "refusal":
				parts = append(parts, conv.Part{Kind: conv.KindRefusal, Text: p.Refusal})
			}
		}
	} else if m.Text != "" {
		parts = append(parts, conv.Part{Kind: conv.KindText, Text: m.Text})
	}
	for _, tc := range m.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		parts = append(parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: tc.ID, Name: tc.Name, Arguments: callArguments(tc)}})
	}
	if m.Refusal != "" {
		parts = append(parts, conv.Part{Kind: conv.KindRefusal, Text: m.Refusal})
	}
	return parts
}

// parseArguments turns replayed arguments into the neutral object form:
// a JSON-object string is parsed; an object sent where a string belongs
// (lenient mode) is taken as is; anything else is kept raw under
// RawArgumentsKey. An empty string is an empty object, as the API treats
// a call without parameters.
func parseArguments(v any) map[string]any {
	switch a := v.(type) {
	case nil:
		return map[string]any{}
	case map[string]any:
		return normalizeNumbers(a).(map[string]any)
	case string:
		if strings.TrimSpace(a) == "" {
			return map[string]any{}
		}
		var obj map[string]any
		if json.Unmarshal([]byte(a), &obj) == nil && obj != nil {
			return obj
		}
		return map[string]any{RawArgumentsKey: a}
	}
	b, _ := json.Marshal(v)
	return map[string]any{RawArgumentsKey: string(b)}
}

// callArguments are a replayed call's arguments for the conversation:
// those parsed when the message was read (shared with other requests that
// send the same message: a conversation is read only, see
// conv.Conversation).
func callArguments(tc ToolCall) map[string]any {
	if tc.parsed == nil { // a view built by hand
		return parseArguments(tc.Arguments)
	}
	return tc.parsed
}

// normalizeNumbers is a copy of v with the decoder's json.Number values
// turned into float64, as json.Unmarshal into any would, so both argument
// forms look alike. It copies: v belongs to the request's view, which is
// shared with every request that sends the same message.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeNumbers(e)
		}
		return out
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return v
}

// resultContent is a tool message's content; images only get here in
// lenient mode (the image rule rejects them otherwise).
func resultContent(m Message) []conv.Content {
	if !m.ContentIsArray {
		return []conv.Content{{Type: conv.ContentText, Text: m.Text}}
	}
	var out []conv.Content
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			out = append(out, conv.Content{Type: conv.ContentText, Text: p.Text})
		case "image_url", "input_audio", "file":
			out = append(out, mediaContent(p))
		}
	}
	return out
}

// mediaContent maps an image, audio or file part. Data URLs are split into
// MIME type and base64 data; other URLs and file ids stay references.
func mediaContent(p ContentPart) conv.Content {
	switch p.Type {
	case "image_url":
		ct := conv.Content{Type: conv.ContentImage}
		if mime, data, ok := splitDataURL(p.ImageURL); ok {
			ct.MIMEType, ct.Data = mime, data
		} else {
			ct.URL = p.ImageURL
		}
		return ct
	case "input_audio":
		return conv.Content{Type: conv.ContentType("audio"), MIMEType: "audio/" + p.AudioFormat, Data: p.AudioData}
	}
	ct := conv.Content{Type: conv.ContentDocument, DisplayName: p.Filename, URL: p.FileID}
	if mime, data, ok := splitDataURL(p.FileData); ok {
		ct.MIMEType, ct.Data = mime, data
	} else {
		ct.Data = p.FileData
	}
	return ct
}

// splitDataURL reads data:<mime>;base64,<data>.
func splitDataURL(u string) (mime, data string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	head, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", "", false
	}
	mime, _, _ = strings.Cut(head, ";")
	return mime, data, true
}

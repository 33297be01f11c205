// Package conv is the neutral conversation model every dialect decodes into
// and encodes from: the seeds' normalized call (name, id, dict arguments) and
// result (call id, name, content, error flag), plus the turns around them.
//
// Dialect packages own the wire shapes; this package owns only meaning, so the
// model, the journal and the conformance suite never need to know which
// provider a conversation came from.
package conv

import (
	"encoding/json"
	"fmt"
)

// Dialect names one wire protocol.
type Dialect string

const (
	OpenAIChat      Dialect = "openai-chat"
	OpenAIResponses Dialect = "openai-responses"
	Anthropic       Dialect = "anthropic"
	Gemini          Dialect = "gemini"
	Bedrock         Dialect = "bedrock"
	RAP             Dialect = "rap"
)

// Dialects lists the provider dialects in a stable order (RAP is separate:
// it is a callback runtime, not a model API).
var Dialects = []Dialect{OpenAIChat, OpenAIResponses, Anthropic, Gemini, Bedrock}

// Conversation is one decoded request: what the caller declared and said.
// It is read only once decoded: its values (call arguments, function
// responses) may be shared with what a session keeps of earlier requests,
// so whoever needs to change one changes a copy (CloneValue).
type Conversation struct {
	Dialect    Dialect    `json:"dialect"`
	Model      string     `json:"model"`
	System     string     `json:"system,omitempty"`
	Tools      []Tool     `json:"tools,omitempty"`
	ToolChoice ToolChoice `json:"tool_choice"`
	Turns      []Turn     `json:"turns"`
	Stream     bool       `json:"stream,omitempty"`
	// PreviousResponseID is set for OpenAI Responses continuations; the
	// stored turns have already been prepended to Turns.
	PreviousResponseID string `json:"previous_response_id,omitempty"`
	// Controls are the request's limits on the answer, which the model
	// obeys on every turn, scripted or not.
	Controls Controls `json:"controls,omitzero"`
}

// Controls are what a request says about the shape of its answer.
type Controls struct {
	// MaxOutputTokens is max_tokens / max_completion_tokens /
	// max_output_tokens / maxOutputTokens (0: no limit given).
	MaxOutputTokens int64 `json:"max_output_tokens,omitempty"`
	// StopSequences end the answer's text where one occurs.
	StopSequences []string `json:"stop_sequences,omitempty"`
	// SerialCalls is set by parallel_tool_calls: false (OpenAI) or
	// disable_parallel_tool_use: true (Anthropic): at most one call a turn.
	SerialCalls bool `json:"serial_calls,omitempty"`
	// Output is the form the answer's text must take (structured
	// outputs); nil for free text.
	Output *Output `json:"output,omitempty"`
	// Candidates is how many alternative answers the request asks for
	// (Chat n, Gemini candidateCount); 0 and 1 both mean one.
	Candidates int `json:"candidates,omitempty"`
	// AllowedTools limits the calls the model may make to these names
	// (Gemini allowedFunctionNames with mode ANY or VALIDATED); empty
	// allows every declared tool.
	AllowedTools []string `json:"allowed_tools,omitempty"`
}

// OutputKind is how a request constrains the answer's text.
type OutputKind string

const (
	// OutputJSONSchema: the text is one JSON value valid against Schema.
	OutputJSONSchema OutputKind = "json_schema"
	// OutputJSONObject: the text is a JSON object (JSON mode, no schema).
	OutputJSONObject OutputKind = "json_object"
)

// Output is a request's structured-output demand: Chat response_format,
// Responses text.format, Anthropic output_config.format, Gemini
// responseMimeType with responseSchema or responseJsonSchema.
type Output struct {
	Kind OutputKind `json:"kind"`
	// Name is the schema's name where the API names it ("" elsewhere).
	Name string `json:"name,omitempty"`
	// Schema is a JSON Schema (a dialect converts its own schema dialect,
	// such as Gemini's OpenAPI subset, before putting it here).
	Schema json.RawMessage `json:"schema,omitempty"`
}

// Describe names the demand in a journal note or a report: JSON mode, or
// the schema by its name.
func (o *Output) Describe() string {
	switch {
	case o.Kind == OutputJSONObject:
		return "JSON mode, no schema"
	case o.Name != "":
		return fmt.Sprintf("schema %q", o.Name)
	}
	return "a schema"
}

// Tool is one declared function.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema
	Strict      bool            `json:"strict,omitempty"`
}

// ToolChoiceMode is how the caller constrains tool use.
type ToolChoiceMode string

const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required" // OpenAI "required", Anthropic "any", Gemini ANY
	ToolChoiceFunction ToolChoiceMode = "function" // one named function forced
)

type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode"`
	Name string         `json:"name,omitempty"`
}

// Forced reports whether one named function is forced.
func (c ToolChoice) Forced() bool { return c.Mode == ToolChoiceFunction && c.Name != "" }

// Role is the speaker of a turn. Tool results travel in user turns, as they
// do for Anthropic and Gemini; OpenAI tool messages decode to user turns too.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// Turn is one message (or, for the Responses API, a run of adjacent items
// of the same role).
type Turn struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// PartKind says which field of a Part is set.
type PartKind string

const (
	KindText      PartKind = "text"
	KindCall      PartKind = "call"
	KindResult    PartKind = "result"
	KindReasoning PartKind = "reasoning"
	KindMedia     PartKind = "media"   // an image or document outside a result
	KindRefusal   PartKind = "refusal" // OpenAI refusal text
)

type Part struct {
	Kind      PartKind   `json:"kind"`
	Text      string     `json:"text,omitempty"`
	Call      *Call      `json:"call,omitempty"`
	Result    *Result    `json:"result,omitempty"`
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	Media     *Content   `json:"media,omitempty"`
}

// Call is the normalized function call: arguments are always an object.
type Call struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	// ItemID is the OpenAI Responses output item id (fc_…), distinct from
	// the call id the result must reference.
	ItemID string `json:"item_id,omitempty"`
	// ThoughtSignature is Gemini's opaque signature on the part.
	ThoughtSignature string `json:"thought_signature,omitempty"`
}

// Result is a tool's answer to one call.
type Result struct {
	CallID  string    `json:"call_id,omitempty"`
	Name    string    `json:"name,omitempty"` // Gemini matches by name
	Content []Content `json:"content,omitempty"`
	IsError bool      `json:"is_error,omitempty"`
	// Structured is the result as an object, when the dialect carries one
	// (Gemini functionResponse.response, MCP structuredContent).
	Structured map[string]any `json:"structured,omitempty"`
}

// Text joins the text content of a result, for quoting it back.
func (r *Result) Text() string {
	out := ""
	for _, c := range r.Content {
		if c.Type == ContentText {
			if out != "" {
				out += "\n"
			}
			out += c.Text
		}
	}
	return out
}

// ContentType is the kind of one content item.
type ContentType string

const (
	ContentText     ContentType = "text"
	ContentImage    ContentType = "image"
	ContentDocument ContentType = "document"
)

// Content is one item of result or media content.
type Content struct {
	Type        ContentType `json:"type"`
	Text        string      `json:"text,omitempty"`
	MIMEType    string      `json:"mime_type,omitempty"`
	Data        string      `json:"data,omitempty"` // base64
	URL         string      `json:"url,omitempty"`
	DisplayName string      `json:"display_name,omitempty"`
}

// Reasoning is an OpenAI reasoning item (or another provider's thinking
// block) that must travel back with the calls that followed it.
type Reasoning struct {
	ID               string `json:"id"`
	EncryptedContent string `json:"encrypted_content,omitempty"`
	Summary          string `json:"summary,omitempty"`
	// Redacted marks reasoning the client may not read: only its
	// encrypted form travels (Anthropic's redacted_thinking block).
	Redacted bool `json:"redacted,omitempty"`
}

// LastTurn returns the final turn, or nil.
func (c *Conversation) LastTurn() *Turn {
	if len(c.Turns) == 0 {
		return nil
	}
	return &c.Turns[len(c.Turns)-1]
}

// Results returns the results in a turn, in order.
func (t *Turn) Results() []*Result {
	var out []*Result
	for i := range t.Parts {
		if t.Parts[i].Kind == KindResult {
			out = append(out, t.Parts[i].Result)
		}
	}
	return out
}

// Calls returns the calls in a turn, in order.
func (t *Turn) Calls() []*Call {
	var out []*Call
	for i := range t.Parts {
		if t.Parts[i].Kind == KindCall {
			out = append(out, t.Parts[i].Call)
		}
	}
	return out
}

// TextOf joins the text parts of a turn.
func (t *Turn) TextOf() string {
	out := ""
	for _, p := range t.Parts {
		if p.Kind == KindText {
			if out != "" {
				out += "\n"
			}
			out += p.Text
		}
	}
	return out
}

// EndsInResults reports whether the conversation's last turn carries tool
// results: the model should then answer rather than call again.
func (c *Conversation) EndsInResults() bool {
	t := c.LastTurn()
	if t == nil || t.Role != User {
		return false
	}
	for i := range t.Parts {
		if t.Parts[i].Kind == KindResult {
			return true
		}
	}
	return false
}

// LastUserText is the text of the most recent user turn with text.
func (c *Conversation) LastUserText() string {
	for i := len(c.Turns) - 1; i >= 0; i-- {
		if c.Turns[i].Role == User {
			if s := c.Turns[i].TextOf(); s != "" {
				return s
			}
		}
	}
	return ""
}

// AssistantTurns counts assistant turns: the scenario cursor is derived from
// it, so retries and replays land on the same scripted turn.
func (c *Conversation) AssistantTurns() int {
	n := 0
	for _, t := range c.Turns {
		if t.Role == Assistant {
			n++
		}
	}
	return n
}

// Tool finds a declared tool by name.
func (c *Conversation) Tool(name string) *Tool {
	for i := range c.Tools {
		if c.Tools[i].Name == name {
			return &c.Tools[i]
		}
	}
	return nil
}

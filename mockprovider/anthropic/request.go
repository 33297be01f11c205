package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Request is a decoded Messages request, the input of the rule checks.
// Fields whose wire type the rules judge (tool_use.input, is_error,
// tool_result content tags) stay raw, so a wrong type reaches the rule that
// answers it with the API's own message instead of failing decoding.
type Request struct {
	Model     string
	MaxTokens int64
	// Present records which required top-level fields the body carried.
	HasModel, HasMaxTokens, HasMessages bool

	System     string
	Messages   []Message
	Tools      []conv.Tool
	ToolChoice conv.ToolChoice
	Stream     bool
	// Thinking is set when extended thinking is enabled: only then does
	// the reply carry a thinking block.
	Thinking bool
	// BodySize feeds the token estimate in usage.
	BodySize int

	// Groups are the messages as the API sees them: consecutive messages
	// of the same role merged into one turn (SDK doc comment on
	// MessageParam; provider-rules.md §3.3 rule 5).
	Groups []Group
}

// Message is one entry of messages[], as sent.
type Message struct {
	Index  int
	Role   string
	Blocks []Block
	// Empty is set for content "" or [].
	Empty bool
}

// Group is a run of consecutive same-role messages merged into one turn.
type Group struct {
	Role   string
	First  int // index of the first message of the run in messages[]
	Blocks []Block
}

// Block is one content block. Msg and Index locate it in the request, so
// errors point at the block the client sent even after merging.
type Block struct {
	Msg, Index int
	Type       string
	Text       string // text, thinking
	Signature  string // thinking
	// tool_use
	ID    string
	Name  string
	Input json.RawMessage
	// tool_result
	ToolUseID      string
	IsError        json.RawMessage // as sent; absent = nil
	ResultText     string          // content given as a string
	ResultItems    []ResultItem    // content given as a list
	ResultHasItems bool
	// image, document
	Source json.RawMessage
}

// ResultItem is one block of a tool_result's content list.
type ResultItem struct {
	Type   string // "" when the item has no type
	HasTag bool
	Raw    json.RawMessage
}

// blockTags are the content block types the Messages API accepts in
// messages[].content (message params of the SDK), used for the
// discriminator error on anything else.
var blockTags = []string{
	"bash_code_execution_tool_result", "code_execution_tool_result", "container_upload", "document",
	"image", "mcp_tool_result", "mcp_tool_use", "redacted_thinking", "search_result", "server_tool_use",
	"text", "text_editor_code_execution_tool_result", "thinking", "tool_result", "tool_search_tool_result",
	"tool_use", "web_fetch_tool_result", "web_search_tool_result",
}

func tagList(tags []string) string {
	s := append([]string(nil), tags...)
	sort.Strings(s)
	return "'" + strings.Join(s, "', '") + "'"
}

// tagError is pydantic's discriminated-union message, which the API passes
// through (provider-rules.md §3.2 tool_result example).
func tagError(path, tag string, expected []string) string {
	return fmt.Sprintf("%s: Input tag '%s' found using 'type' does not match any of the expected tags: %s", path, tag, tagList(expected))
}

func invalid(msg string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: errInvalidRequest, Message: msg}
}

// Pydantic-style messages for wrong types ([I]: the pattern of the
// verbatim "Input should be a valid dictionary" and "Field required").
const (
	notObject = "Input should be a valid dictionary or object to extract fields from"
	notList   = "Input should be a valid list"
	notString = "Input should be a valid string"
	notInt    = "Input should be a valid integer"
	notBool   = "Input should be a valid boolean"
	required  = "Field required"
)

// Decode parses the body into a Request and the neutral conversation.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	req, aerr := decodeRequest(body)
	if aerr != nil {
		return nil, nil, aerr
	}
	return req, req.conversation(), nil
}

func decodeRequest(body []byte) (*Request, *wire.APIError) {
	if err := syntaxError(body); err != nil {
		return nil, err
	}
	// The body is valid JSON from here on: it is split without being
	// validated again at every level.
	var topFields [16]jsonscan.Field // on the stack: no allocation per object
	top, ok := jsonscan.ParseObjectInto(topFields[:0], body)
	if !ok {
		return nil, invalid(notObject)
	}
	req := &Request{BodySize: len(body), ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto}}
	if raw, ok := present(top, "model"); ok {
		req.HasModel = true
		if req.Model, ok = jsonscan.ToString(raw); !ok {
			return nil, invalid("model: " + notString)
		}
	}
	if raw, ok := present(top, "max_tokens"); ok {
		req.HasMaxTokens = true
		if req.MaxTokens, ok = jsonscan.Int64(raw); !ok {
			return nil, invalid("max_tokens: " + notInt)
		}
	}
	if raw, ok := present(top, "system"); ok {
		s, err := decodeSystem(raw)
		if err != nil {
			return nil, err
		}
		req.System = s
	}
	if raw, ok := present(top, "messages"); ok {
		req.HasMessages = true
		list, ok := jsonscan.ParseArray(raw)
		if !ok {
			return nil, invalid("messages: " + notList)
		}
		if len(list) > 0 {
			req.Messages = make([]Message, 0, len(list))
		}
		for i, m := range list {
			msg, err := decodeMessage(i, m)
			if err != nil {
				return nil, err
			}
			req.Messages = append(req.Messages, msg)
		}
	}
	if raw, ok := present(top, "tools"); ok {
		tools, err := decodeTools(raw)
		if err != nil {
			return nil, err
		}
		req.Tools = tools
	}
	if raw, ok := present(top, "tool_choice"); ok {
		tc, err := decodeToolChoice(raw)
		if err != nil {
			return nil, err
		}
		req.ToolChoice = tc
	}
	if raw, ok := present(top, "stream"); ok {
		if req.Stream, ok = jsonscan.Bool(raw); !ok {
			return nil, invalid("stream: " + notBool)
		}
	}
	if raw, ok := present(top, "thinking"); ok {
		var t struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &t) != nil {
			return nil, invalid("thinking: " + notObject)
		}
		req.Thinking = t.Type == "enabled" || t.Type == "adaptive"
	}
	req.Groups = mergeRuns(req.Messages)
	return req, nil
}

// present returns a field that is set and not null (the API treats an
// explicit null like an absent optional field).
func present(obj jsonscan.Object, key string) (json.RawMessage, bool) {
	return obj.Present(key)
}

// syntaxError answers a body that is not JSON the way the API does:
// "The request body is not valid JSON: <reason>: line L column C (char O)"
// (verbatim prefix and position format from pasted API errors).
func syntaxError(body []byte) *wire.APIError {
	if jsonscan.Valid(body) {
		return nil
	}
	var v any
	err := json.Unmarshal(body, &v)
	offset, reason := len(body), "Expecting value"
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = int(se.Offset)
		if offset > 0 {
			offset-- // Offset counts the byte read; the API points at it
		}
		if !strings.Contains(se.Error(), "unexpected end") {
			reason = "unexpected character"
		}
	}
	offset = min(offset, len(body))
	line, col := 1, 1
	for _, c := range body[:offset] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return invalid(fmt.Sprintf("The request body is not valid JSON: %s: line %d column %d (char %d)", reason, line, col, offset))
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func decodeSystem(raw json.RawMessage) (string, *wire.APIError) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return "", invalid("system: " + notList)
	}
	var texts []string
	for i, b := range blocks {
		var tb struct {
			Type string           `json:"type"`
			Text *json.RawMessage `json:"text"`
		}
		if !isObject(b) || json.Unmarshal(b, &tb) != nil {
			return "", invalid(fmt.Sprintf("system.%d: %s", i, notObject))
		}
		if tb.Type != "text" {
			return "", invalid(tagError(fmt.Sprintf("system.%d", i), tb.Type, []string{"text"}))
		}
		var text string
		if tb.Text == nil || json.Unmarshal(*tb.Text, &text) != nil {
			return "", invalid(fmt.Sprintf("system.%d.text: %s", i, notString))
		}
		texts = append(texts, text)
	}
	return strings.Join(texts, "\n"), nil
}

func decodeMessage(i int, raw json.RawMessage) (Message, *wire.APIError) {
	// Built only for an error: most requests have none.
	path := func() string { return "messages." + strconv.Itoa(i) }
	var fields [8]jsonscan.Field
	m, ok := jsonscan.ParseObjectInto(fields[:0], raw)
	if !isObject(raw) || !ok {
		return Message{}, invalid(path() + ": " + notObject)
	}
	msg := Message{Index: i}
	roleRaw, ok := present(m, "role")
	if !ok {
		return msg, invalid(path() + ".role: " + required)
	}
	if msg.Role, ok = jsonscan.ToString(roleRaw); !ok || (msg.Role != "user" && msg.Role != "assistant") {
		return msg, invalid(path() + ".role: Input should be 'user' or 'assistant'")
	}
	content, ok := present(m, "content")
	if !ok {
		return msg, invalid(path() + ".content: " + required)
	}
	if text, ok := jsonscan.ToString(content); ok {
		msg.Empty = text == ""
		if !msg.Empty {
			msg.Blocks = []Block{{Msg: i, Index: 0, Type: "text", Text: text}}
		}
		return msg, nil
	}
	var spans [8][]byte
	list, ok := jsonscan.ParseArrayInto(spans[:0], content)
	if !ok {
		return msg, invalid(path() + ".content: " + notList)
	}
	msg.Empty = len(list) == 0
	if len(list) > 0 {
		msg.Blocks = make([]Block, 0, len(list))
	}
	for j, b := range list {
		blk, err := decodeBlock(i, j, b)
		if err != nil {
			return msg, err
		}
		msg.Blocks = append(msg.Blocks, blk)
	}
	return msg, nil
}

// decodeBlock reads block j of message i.
func decodeBlock(i, j int, raw json.RawMessage) (Block, *wire.APIError) {
	path := func() string { return "messages." + strconv.Itoa(i) + ".content." + strconv.Itoa(j) }
	var fields [8]jsonscan.Field
	f, ok := jsonscan.ParseObjectInto(fields[:0], raw)
	if !isObject(raw) || !ok {
		return Block{}, invalid(path() + ": " + notObject)
	}
	b := Block{Msg: i, Index: j}
	tagRaw, ok := present(f, "type")
	if ok {
		b.Type, ok = jsonscan.ToString(tagRaw)
	}
	if !ok {
		return b, invalid(path() + ": Unable to extract tag using discriminator 'type'")
	}
	known := false
	for _, t := range blockTags {
		known = known || t == b.Type
	}
	if !known {
		return b, invalid(tagError(path(), b.Type, blockTags))
	}
	field := func(name string) string { return path() + "." + b.Type + "." + name }
	str := func(name string, dst *string, needed bool) *wire.APIError {
		raw, ok := present(f, name)
		if !ok {
			if needed {
				return invalid(field(name) + ": " + required)
			}
			return nil
		}
		s, ok := jsonscan.ToString(raw)
		if !ok {
			return invalid(field(name) + ": " + notString)
		}
		*dst = s
		return nil
	}
	switch b.Type {
	case "text":
		if err := str("text", &b.Text, true); err != nil {
			return b, err
		}
	case "thinking":
		if err := str("thinking", &b.Text, true); err != nil {
			return b, err
		}
		if err := str("signature", &b.Signature, true); err != nil {
			return b, err
		}
	case "tool_use":
		if err := str("id", &b.ID, true); err != nil {
			return b, err
		}
		if err := str("name", &b.Name, true); err != nil {
			return b, err
		}
		input, ok := f.Get("input")
		if !ok {
			return b, invalid(field("input") + ": " + required)
		}
		b.Input = input
	case "tool_result":
		if err := str("tool_use_id", &b.ToolUseID, true); err != nil {
			return b, err
		}
		if raw, ok := f.Get("is_error"); ok {
			b.IsError = raw
		}
		if raw, ok := present(f, "content"); ok {
			var isText bool
			if b.ResultText, isText = jsonscan.ToString(raw); !isText {
				items, ok := jsonscan.ParseArray(raw)
				if !ok {
					return b, invalid(field("content") + ": " + notList)
				}
				b.ResultHasItems = true
				for k, it := range items {
					tagged, ok := jsonscan.ParseObject(it)
					if !isObject(it) || !ok {
						return b, invalid(field("content") + "." + strconv.Itoa(k) + ": " + notObject)
					}
					item := ResultItem{Raw: it}
					if t, ok := present(tagged, "type"); ok {
						if typ, ok := jsonscan.ToString(t); ok {
							item.Type, item.HasTag = typ, true
						}
					}
					b.ResultItems = append(b.ResultItems, item)
				}
			}
		}
	case "image", "document":
		src, ok := present(f, "source")
		if !ok {
			return b, invalid(field("source") + ": " + required)
		}
		if !isObject(src) {
			return b, invalid(field("source") + ": " + notObject)
		}
		b.Source = src
	}
	return b, nil
}

func decodeTools(raw json.RawMessage) ([]conv.Tool, *wire.APIError) {
	list, ok := jsonscan.ParseArray(raw)
	if !ok {
		return nil, invalid("tools: " + notList)
	}
	var out []conv.Tool
	for i, t := range list {
		path := func() string { return "tools." + strconv.Itoa(i) }
		var fields [8]jsonscan.Field
		f, ok := jsonscan.ParseObjectInto(fields[:0], t)
		if !isObject(t) || !ok {
			return nil, invalid(path() + ": " + notObject)
		}
		var typ string
		if raw, ok := present(f, "type"); ok {
			if typ, ok = jsonscan.ToString(raw); !ok {
				return nil, invalid(path() + ".type: " + notString)
			}
		}
		if typ != "" && typ != "custom" {
			continue // a server tool (web_search_…, bash_…): the API runs it, the client declares no schema
		}
		var tool conv.Tool
		nameRaw, ok := present(f, "name")
		if !ok {
			return nil, invalid(path() + ".name: " + required)
		}
		if tool.Name, ok = jsonscan.ToString(nameRaw); !ok {
			return nil, invalid(path() + ".name: " + notString)
		}
		if raw, ok := present(f, "description"); ok {
			if tool.Description, ok = jsonscan.ToString(raw); !ok {
				return nil, invalid(path() + ".description: " + notString)
			}
		}
		schema, ok := present(f, "input_schema")
		if !ok {
			return nil, invalid(path() + ".input_schema: " + required)
		}
		if !isObject(schema) {
			return nil, invalid(path() + ".input_schema: " + notObject)
		}
		// A span of the body, not a copy: the request lives for one
		// exchange, and the journal keeps its own flat copy.
		tool.Parameters = schema
		if raw, ok := present(f, "strict"); ok {
			if strict, ok := jsonscan.Bool(raw); ok {
				tool.Strict = strict
			}
		}
		out = append(out, tool)
	}
	return out, nil
}

func decodeToolChoice(raw json.RawMessage) (conv.ToolChoice, *wire.APIError) {
	var tc struct {
		Type string          `json:"type"`
		Name json.RawMessage `json:"name"`
	}
	if !isObject(raw) || json.Unmarshal(raw, &tc) != nil {
		return conv.ToolChoice{}, invalid("tool_choice: " + notObject)
	}
	switch tc.Type {
	case "auto":
		return conv.ToolChoice{Mode: conv.ToolChoiceAuto}, nil
	case "any":
		return conv.ToolChoice{Mode: conv.ToolChoiceRequired}, nil
	case "none":
		return conv.ToolChoice{Mode: conv.ToolChoiceNone}, nil
	case "tool":
		var name string
		if len(tc.Name) == 0 || string(tc.Name) == "null" {
			return conv.ToolChoice{}, invalid("tool_choice.tool.name: " + required)
		}
		if json.Unmarshal(tc.Name, &name) != nil {
			return conv.ToolChoice{}, invalid("tool_choice.tool.name: " + notString)
		}
		return conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: name}, nil
	case "":
		return conv.ToolChoice{}, invalid("tool_choice: Unable to extract tag using discriminator 'type'")
	}
	return conv.ToolChoice{}, invalid(tagError("tool_choice", tc.Type, []string{"any", "auto", "none", "tool"}))
}

// mergeRuns combines consecutive same-role messages into one turn, as the
// API does before validating tool use.
func mergeRuns(msgs []Message) []Group {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]Group, 0, len(msgs))
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Blocks = append(out[n-1].Blocks, m.Blocks...)
			continue
		}
		// A group shares its first message's blocks (nothing edits them);
		// the capacity cap makes a merge's append copy them first.
		var blocks []Block
		if len(m.Blocks) > 0 {
			blocks = m.Blocks[:len(m.Blocks):len(m.Blocks)]
		}
		out = append(out, Group{Role: m.Role, First: m.Index, Blocks: blocks})
	}
	return out
}

// conversation maps the merged turns to the neutral model.
func (r *Request) conversation() *conv.Conversation {
	c := &conv.Conversation{
		Dialect: conv.Anthropic, Model: r.Model, System: r.System,
		Tools: r.Tools, ToolChoice: r.ToolChoice, Stream: r.Stream,
	}
	names := map[string]string{} // tool_use id → tool name, to name results
	if len(r.Groups) > 0 {
		c.Turns = make([]conv.Turn, 0, len(r.Groups))
	}
	for _, g := range r.Groups {
		t := conv.Turn{Role: conv.Role(g.Role)}
		for _, b := range g.Blocks {
			if t.Parts == nil && convertible(b.Type) {
				t.Parts = make([]conv.Part, 0, len(g.Blocks))
			}
			switch b.Type {
			case "text":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindText, Text: b.Text})
			case "thinking":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: b.Text, EncryptedContent: b.Signature}})
			case "image", "document":
				media := mediaContent(b.Type, b.Source)
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindMedia, Media: &media})
			case "tool_use":
				// As json.Unmarshal into a fresh map: a non-object input is a
				// rule violation and keeps {}; null gives nil.
				args := jsonscan.ObjectFloat(b.Input)
				names[b.ID] = b.Name
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: b.ID, Name: b.Name, Arguments: args}})
			case "tool_result":
				res := &conv.Result{CallID: b.ToolUseID, Name: names[b.ToolUseID], IsError: string(bytes.TrimSpace(b.IsError)) == "true"}
				if b.ResultHasItems {
					for _, it := range b.ResultItems {
						res.Content = append(res.Content, resultContent(it))
					}
				} else if b.ResultText != "" {
					res.Content = []conv.Content{{Type: conv.ContentText, Text: b.ResultText}}
				}
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindResult, Result: res})
			}
		}
		c.Turns = append(c.Turns, t)
	}
	return c
}

// convertible reports whether conversation maps a block of this type to a
// part (a turn whose blocks map to none keeps nil parts).
func convertible(typ string) bool {
	switch typ {
	case "text", "thinking", "image", "document", "tool_use", "tool_result":
		return true
	}
	return false
}

// mediaContent reads an image or document source: base64, url, text
// (documents) or file.
func mediaContent(typ string, src json.RawMessage) conv.Content {
	var s struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
		FileID    string `json:"file_id"`
	}
	_ = json.Unmarshal(src, &s)
	out := conv.Content{Type: conv.ContentImage, MIMEType: s.MediaType, URL: s.URL}
	if typ == "document" {
		out.Type = conv.ContentDocument
	}
	switch s.Type {
	case "text":
		out.Text, out.MIMEType = s.Data, "text/plain"
	case "file":
		out.URL = "file:" + s.FileID
	default:
		out.Data = s.Data
	}
	return out
}

func resultContent(it ResultItem) conv.Content {
	var f struct {
		Text    string          `json:"text"`
		Title   string          `json:"title"`
		Source  json.RawMessage `json:"source"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(it.Raw, &f)
	switch it.Type {
	case "image", "document":
		return mediaContent(it.Type, f.Source)
	case "search_result":
		var parts []string
		for _, c := range f.Content {
			parts = append(parts, c.Text)
		}
		return conv.Content{Type: conv.ContentText, Text: strings.Join(parts, "\n"), DisplayName: f.Title}
	}
	return conv.Content{Type: conv.ContentText, Text: f.Text}
}

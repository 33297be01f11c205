package openaichat

import (
	"encoding/json"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// This file writes JSON by hand for the three things every answer
// encodes: the chat.completion body, a call's arguments, and the
// conversation whose encoded length estimates the prompt tokens. Each
// went through json.Marshal's reflection, together about a quarter of a
// request's CPU. The output is byte for byte json.Marshal's (HTML-safe
// escaping, sorted map keys, ES6 number formatting), which the fuzz tests
// in jsonenc_test.go hold it to; for a value it does not know (an
// unexpected type, a NaN) it reports false and the caller uses
// json.Marshal.

// appendRaw is json.Marshal of a json.RawMessage: the value compacted,
// with <, >, & and U+2028/U+2029 escaped; false when it is not valid JSON
// (json.Marshal fails then).
func appendRaw(dst []byte, raw json.RawMessage) ([]byte, bool) {
	if raw == nil {
		return append(dst, "null"...), true
	}
	if !jsonscan.Valid(raw) {
		return dst, false
	}
	return jsonscan.AppendCompact(dst, raw), true
}

// appendConversation is json.Marshal of a conversation, field by field
// in the order and with the omitempty rules of conv's struct tags
// (TestConversationFieldsKnown fails when those change).
func appendConversation(dst []byte, c *conv.Conversation) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"dialect":`...)
	dst = jsonscan.AppendString(dst, string(c.Dialect))
	dst = append(dst, `,"model":`...)
	dst = jsonscan.AppendString(dst, c.Model)
	if c.System != "" {
		dst = append(dst, `,"system":`...)
		dst = jsonscan.AppendString(dst, c.System)
	}
	if len(c.Tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i := range c.Tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = appendTool(dst, &c.Tools[i]); !ok {
				return dst, false
			}
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"tool_choice":{"mode":`...)
	dst = jsonscan.AppendString(dst, string(c.ToolChoice.Mode))
	if c.ToolChoice.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = jsonscan.AppendString(dst, c.ToolChoice.Name)
	}
	dst = append(dst, `},"turns":`...)
	if c.Turns == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range c.Turns {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = appendTurn(dst, &c.Turns[i]); !ok {
				return dst, false
			}
		}
		dst = append(dst, ']')
	}
	if c.Stream {
		dst = append(dst, `,"stream":true`...)
	}
	if c.PreviousResponseID != "" {
		dst = append(dst, `,"previous_response_id":`...)
		dst = jsonscan.AppendString(dst, c.PreviousResponseID)
	}
	return append(dst, '}'), true
}

func appendTool(dst []byte, t *conv.Tool) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"name":`...)
	dst = jsonscan.AppendString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = jsonscan.AppendString(dst, t.Description)
	}
	if len(t.Parameters) > 0 {
		dst = append(dst, `,"parameters":`...)
		if dst, ok = appendRaw(dst, t.Parameters); !ok {
			return dst, false
		}
	}
	if t.Strict {
		dst = append(dst, `,"strict":true`...)
	}
	return append(dst, '}'), true
}

func appendTurn(dst []byte, t *conv.Turn) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"role":`...)
	dst = jsonscan.AppendString(dst, string(t.Role))
	dst = append(dst, `,"parts":`...)
	if t.Parts == nil {
		return append(dst, "null}"...), true
	}
	dst = append(dst, '[')
	for i := range t.Parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, ok = appendPart(dst, &t.Parts[i]); !ok {
			return dst, false
		}
	}
	return append(dst, "]}"...), true
}

func appendPart(dst []byte, p *conv.Part) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"kind":`...)
	dst = jsonscan.AppendString(dst, string(p.Kind))
	if p.Text != "" {
		dst = append(dst, `,"text":`...)
		dst = jsonscan.AppendString(dst, p.Text)
	}
	if p.Call != nil {
		dst = append(dst, `,"call":`...)
		if dst, ok = appendCall(dst, p.Call); !ok {
			return dst, false
		}
	}
	if p.Result != nil {
		dst = append(dst, `,"result":`...)
		if dst, ok = appendResult(dst, p.Result); !ok {
			return dst, false
		}
	}
	if r := p.Reasoning; r != nil {
		dst = append(dst, `,"reasoning":{"id":`...)
		dst = jsonscan.AppendString(dst, r.ID)
		if r.EncryptedContent != "" {
			dst = append(dst, `,"encrypted_content":`...)
			dst = jsonscan.AppendString(dst, r.EncryptedContent)
		}
		if r.Summary != "" {
			dst = append(dst, `,"summary":`...)
			dst = jsonscan.AppendString(dst, r.Summary)
		}
		dst = append(dst, '}')
	}
	if p.Media != nil {
		dst = append(dst, `,"media":`...)
		dst = appendContent(dst, p.Media)
	}
	return append(dst, '}'), true
}

func appendCall(dst []byte, c *conv.Call) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"id":`...)
	dst = jsonscan.AppendString(dst, c.ID)
	dst = append(dst, `,"name":`...)
	dst = jsonscan.AppendString(dst, c.Name)
	dst = append(dst, `,"arguments":`...)
	if dst, ok = jsonscan.AppendJSON(dst, c.Arguments); !ok {
		return dst, false
	}
	if c.ItemID != "" {
		dst = append(dst, `,"item_id":`...)
		dst = jsonscan.AppendString(dst, c.ItemID)
	}
	if c.ThoughtSignature != "" {
		dst = append(dst, `,"thought_signature":`...)
		dst = jsonscan.AppendString(dst, c.ThoughtSignature)
	}
	return append(dst, '}'), true
}

func appendResult(dst []byte, r *conv.Result) ([]byte, bool) {
	ok := true
	dst = append(dst, '{')
	if r.CallID != "" {
		dst = append(dst, `"call_id":`...)
		dst = jsonscan.AppendString(dst, r.CallID)
	}
	if r.Name != "" {
		dst = comma(dst)
		dst = append(dst, `"name":`...)
		dst = jsonscan.AppendString(dst, r.Name)
	}
	if len(r.Content) > 0 {
		dst = comma(dst)
		dst = append(dst, `"content":[`...)
		for i := range r.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendContent(dst, &r.Content[i])
		}
		dst = append(dst, ']')
	}
	if r.IsError {
		dst = comma(dst)
		dst = append(dst, `"is_error":true`...)
	}
	if len(r.Structured) > 0 {
		dst = comma(dst)
		dst = append(dst, `"structured":`...)
		if dst, ok = jsonscan.AppendJSON(dst, r.Structured); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// comma separates a member from the one before it, if any.
func comma(dst []byte) []byte {
	if dst[len(dst)-1] != '{' {
		return append(dst, ',')
	}
	return dst
}

func appendContent(dst []byte, c *conv.Content) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonscan.AppendString(dst, string(c.Type))
	for _, f := range [...]struct{ name, value string }{
		{`,"text":`, c.Text}, {`,"mime_type":`, c.MIMEType}, {`,"data":`, c.Data},
		{`,"url":`, c.URL}, {`,"display_name":`, c.DisplayName},
	} {
		if f.value != "" {
			dst = append(dst, f.name...)
			dst = jsonscan.AppendString(dst, f.value)
		}
	}
	return append(dst, '}')
}

// scratch holds the buffers the prompt length and call arguments are
// encoded into and measured or copied from; sync.Pool makes the reuse
// safe across concurrent requests.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// encodedLen is len(json.Marshal(c)), 0 when json.Marshal fails: the
// prompt token estimate.
func encodedLen(c *conv.Conversation) int {
	bp := scratch.Get().(*[]byte)
	b, ok := appendConversation((*bp)[:0], c)
	n := len(b)
	if cap(b) <= 64<<10 { // an outsized buffer is left to the collector
		*bp = b[:0]
		scratch.Put(bp)
	}
	if !ok {
		full, _ := json.Marshal(c)
		n = len(full)
	}
	return n
}

// marshalArguments is string(json.Marshal(args)); false when json.Marshal
// would fail.
func marshalArguments(args map[string]any) (string, bool) {
	bp := scratch.Get().(*[]byte)
	b, ok := jsonscan.AppendJSON((*bp)[:0], args)
	var s string
	if ok {
		s = string(b)
	}
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		scratch.Put(bp)
	}
	return s, ok
}

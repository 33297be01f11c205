package openaichat

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

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

const hexDigits = "0123456789abcdef"

// plainByte marks the ASCII bytes json.Marshal copies into a string as
// they are: printable, and neither a quote, a backslash nor <, > or &.
// Built at initialization and only read after, so sharing it is safe.
var plainByte = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString is json.Marshal of a string: quoted, with <, > and &
// escaped, invalid UTF-8 replaced by \ufffd, and U+2028/U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendFloat is json.Marshal of a float64; false for NaN and the
// infinities, which json.Marshal refuses.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9, as json.Marshal does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// appendBool writes true or false.
func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// appendValue is json.Marshal of the values a JSON decode produces (nil,
// bool, float64, string, []any, map[string]any); false for anything
// else, or a float json.Marshal refuses.
func appendValue(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return appendBool(dst, x), true
	case float64:
		return appendFloat(dst, x)
	case string:
		return appendString(dst, x), true
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendValue(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		return appendObject(dst, x)
	}
	return dst, false
}

// appendObject writes a map with its keys sorted, as json.Marshal does.
func appendObject(dst []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendValue(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

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
	inString := false
	for i := 0; i < len(raw); i++ {
		if inString {
			// Copy the run of bytes up to the next one that needs care.
			j := i
			for j < len(raw) && (raw[j] >= utf8.RuneSelf && raw[j] != 0xE2 || raw[j] < utf8.RuneSelf && plainByte[raw[j]]) {
				j++
			}
			dst = append(dst, raw[i:j]...)
			if i = j; i == len(raw) {
				break
			}
		}
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			continue
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			continue
		case inString:
			if c == '\\' {
				dst = append(dst, c, raw[i+1])
				i++
				continue
			}
			inString = c != '"'
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst, true
}

// appendConversation is json.Marshal of a conversation, field by field
// in the order and with the omitempty rules of conv's struct tags
// (TestConversationFieldsKnown fails when those change).
func appendConversation(dst []byte, c *conv.Conversation) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"dialect":`...)
	dst = appendString(dst, string(c.Dialect))
	dst = append(dst, `,"model":`...)
	dst = appendString(dst, c.Model)
	if c.System != "" {
		dst = append(dst, `,"system":`...)
		dst = appendString(dst, c.System)
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
	dst = appendString(dst, string(c.ToolChoice.Mode))
	if c.ToolChoice.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, c.ToolChoice.Name)
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
		dst = appendString(dst, c.PreviousResponseID)
	}
	return append(dst, '}'), true
}

func appendTool(dst []byte, t *conv.Tool) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"name":`...)
	dst = appendString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, t.Description)
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
	dst = appendString(dst, string(t.Role))
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
	dst = appendString(dst, string(p.Kind))
	if p.Text != "" {
		dst = append(dst, `,"text":`...)
		dst = appendString(dst, p.Text)
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
		dst = appendString(dst, r.ID)
		if r.EncryptedContent != "" {
			dst = append(dst, `,"encrypted_content":`...)
			dst = appendString(dst, r.EncryptedContent)
		}
		if r.Summary != "" {
			dst = append(dst, `,"summary":`...)
			dst = appendString(dst, r.Summary)
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
	dst = appendString(dst, c.ID)
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, c.Name)
	dst = append(dst, `,"arguments":`...)
	if dst, ok = appendObject(dst, c.Arguments); !ok {
		return dst, false
	}
	if c.ItemID != "" {
		dst = append(dst, `,"item_id":`...)
		dst = appendString(dst, c.ItemID)
	}
	if c.ThoughtSignature != "" {
		dst = append(dst, `,"thought_signature":`...)
		dst = appendString(dst, c.ThoughtSignature)
	}
	return append(dst, '}'), true
}

func appendResult(dst []byte, r *conv.Result) ([]byte, bool) {
	ok := true
	dst = append(dst, '{')
	if r.CallID != "" {
		dst = append(dst, `"call_id":`...)
		dst = appendString(dst, r.CallID)
	}
	if r.Name != "" {
		dst = comma(dst)
		dst = append(dst, `"name":`...)
		dst = appendString(dst, r.Name)
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
		if dst, ok = appendObject(dst, r.Structured); !ok {
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
	dst = appendString(dst, string(c.Type))
	for _, f := range [...]struct{ name, value string }{
		{`,"text":`, c.Text}, {`,"mime_type":`, c.MIMEType}, {`,"data":`, c.Data},
		{`,"url":`, c.URL}, {`,"display_name":`, c.DisplayName},
	} {
		if f.value != "" {
			dst = append(dst, f.name...)
			dst = appendString(dst, f.value)
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
// would fail or meet a type appendValue does not know.
func marshalArguments(args map[string]any) (string, bool) {
	bp := scratch.Get().(*[]byte)
	b, ok := appendObject((*bp)[:0], args)
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

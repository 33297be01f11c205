package gemini

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The answers are written by hand: encoding/json's reflection over
// GenerateContentResponse was most of an answer's encoding, and a
// streamed answer encodes one per chunk. The bytes are encoding/json's,
// member for member (render_test.go holds both to the same bytes): HTML
// characters, U+2028/2029 and invalid UTF-8 are escaped as it escapes
// them, by handing such a string to it, and a call's arguments are its
// encoding of the map.

// responseSize is room for a response's members around its text and calls.
const responseSize = 384

// encodedCall is a call part's functionCall as encoding/json writes it:
// what the usage counts and what the answer carries.
type encodedCall struct {
	part *OutPart
	json []byte
}

// encodeCalls encodes each call once; false when one cannot be encoded
// (arguments holding a NaN, say): the library then writes the answer, as
// it always did, failing as it always failed.
func encodeCalls(calls []OutPart) ([]encodedCall, int, bool) {
	out := make([]encodedCall, len(calls))
	n := 0
	for i := range calls {
		b, err := marshalCall(calls[i].FunctionCall)
		if err != nil {
			return nil, 0, false
		}
		out[i] = encodedCall{part: &calls[i], json: b}
		n += len(b)
	}
	return out, n, true
}

// appendResponse writes the chunk as a GenerateContentResponse.
func (h responseHead) appendResponse(b []byte, ch chunk, calls []encodedCall) []byte {
	b = append(b, `{"candidates":[{"content":{"parts":`...)
	if !ch.hasText && len(calls) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		if ch.hasText {
			b = append(b, `{"text":`...)
			b = appendQuoted(b, ch.text)
			b = append(b, '}')
		}
		for i, c := range calls {
			if i > 0 || ch.hasText {
				b = append(b, ',')
			}
			b = append(b, `{"functionCall":`...)
			b = append(b, c.json...)
			if c.part.ThoughtSignature != "" {
				b = append(b, `,"thoughtSignature":`...)
				b = appendQuoted(b, c.part.ThoughtSignature)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"role":"model"}`...)
	if ch.last && h.finish != "" {
		b = append(b, `,"finishReason":`...)
		b = appendQuoted(b, h.finish)
	}
	b = append(b, `,"index":0`...)
	if ch.last && h.calls && h.finish == finishStop {
		b = append(b, `,"finishMessage":`...)
		b = appendQuoted(b, finishMessageCalls)
	}
	out := tokens(ch.outBytes)
	b = append(b, `}],"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt), 10)
	b = append(b, `,"candidatesTokenCount":`...)
	b = strconv.AppendInt(b, int64(out), 10)
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt+out+h.thoughts), 10)
	b = append(b, `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt), 10)
	b = append(b, `}]`...)
	if h.thoughts != 0 {
		b = append(b, `,"thoughtsTokenCount":`...)
		b = strconv.AppendInt(b, int64(h.thoughts), 10)
	}
	b = append(b, `},"modelVersion":`...)
	b = appendQuoted(b, h.model)
	b = append(b, `,"responseId":`...)
	b = appendQuoted(b, h.id)
	return append(b, '}')
}

// marshalCall is json.Marshal(c), written by hand for the values
// arguments are made of (render_test.go holds both to the same bytes);
// anything else is left to encoding/json, error included.
func marshalCall(c *OutCall) ([]byte, error) {
	if c == nil {
		return json.Marshal(c)
	}
	b := make([]byte, 0, 64+len(c.Name))
	b = append(b, '{')
	if c.ID != "" {
		b = append(b, `"id":`...)
		b = appendQuoted(b, c.ID)
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = appendQuoted(b, c.Name)
	b = append(b, `,"args":`...)
	b, ok := appendValue(b, c.Args)
	if !ok {
		return json.Marshal(c)
	}
	return append(b, '}'), nil
}

// appendValue writes v as encoding/json does (nil maps and slices as
// null, keys sorted), or reports false.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendQuoted(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		// encoding/json's form for these magnitudes; the others take an
		// exponent it writes its own way, and NaN is an error.
		if abs := math.Abs(x); x != 0 && (abs < 1e-6 || abs >= 1e21) || math.IsNaN(x) {
			return b, false
		}
		return strconv.AppendFloat(b, x, 'f', -1, 64), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		var keysBuf [8]string
		keys := keysBuf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendValue(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendQuoted is s as encoding/json writes it: quote, backslash and
// control characters escaped, and the HTML characters, as it escapes
// them by default. A string with invalid UTF-8 or U+2028/U+2029 is left
// to encoding/json.
func appendQuoted(b []byte, s string) []byte {
	start := len(b)
	b = append(b, '"')
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				q, _ := json.Marshal(s)
				return append(b[:start], q...)
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			i++
			continue
		}
		b = append(b, s[done:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		done = i
	}
	b = append(b, s[done:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

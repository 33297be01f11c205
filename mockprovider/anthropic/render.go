package anthropic

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The Message body is written by hand: it is every non-streamed answer,
// and BenchmarkMessageBody shows the library's reflection over the blocks
// and the body several times slower (see render_test.go, which also holds
// the two encodings to the same JSON). Field order is the API's.

// appendBlocks appends the content array of blocks.
func appendBlocks(b []byte, blocks []block) []byte {
	b = append(b, '[')
	for i := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBlock(b, blocks[i].body)
	}
	return append(b, ']')
}

func appendBlock(b []byte, body any) []byte {
	switch v := body.(type) {
	case textBlock:
		b = append(b, `{"type":`...)
		b = appendString(b, v.Type)
		b = append(b, `,"text":`...)
		b = appendString(b, v.Text)
	case thinkingBlock:
		b = append(b, `{"type":`...)
		b = appendString(b, v.Type)
		b = append(b, `,"thinking":`...)
		b = appendString(b, v.Thinking)
		b = append(b, `,"signature":`...)
		b = appendString(b, v.Signature)
	case redactedThinkingBlock:
		b = append(b, `{"type":`...)
		b = appendString(b, v.Type)
		b = append(b, `,"data":`...)
		b = appendString(b, v.Data)
	case toolUseBlock:
		b = append(b, `{"type":`...)
		b = appendString(b, v.Type)
		b = append(b, `,"id":`...)
		b = appendString(b, v.ID)
		b = append(b, `,"name":`...)
		b = appendString(b, v.Name)
		b = append(b, `,"input":`...)
		b = appendRaw(b, v.Input)
		b = append(b, `,"caller":{"type":`...)
		b = appendString(b, v.Caller.Type)
		b = append(b, '}')
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, enc...)
	}
	return append(b, '}')
}

// appendMessage appends a Message body whose content array is encoded.
func appendMessage(b []byte, m *messageBody) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, m.ID)
	b = append(b, `,"type":`...)
	b = appendString(b, m.Type)
	b = append(b, `,"role":`...)
	b = appendString(b, m.Role)
	b = append(b, `,"model":`...)
	b = appendString(b, m.Model)
	b = append(b, `,"content":`...)
	b = append(b, m.Content...) // appendBlocks wrote it compact
	b = append(b, `,"stop_reason":`...)
	b = appendOptString(b, m.StopReason)
	b = append(b, `,"stop_sequence":`...)
	b = appendOptString(b, m.StopSequence)
	b = append(b, `,"stop_details":null,"usage":`...)
	if m.StopDetails != nil {
		// Never set on a Message body today; kept exact if it is (a
		// copy is marshalled, so m does not escape).
		enc, _ := json.Marshal(*m)
		return enc
	}
	b = appendUsage(b, &m.Usage)
	return append(b, '}')
}

func appendUsage(b []byte, u *usage) []byte {
	b = append(b, `{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.InputTokens), 10)
	b = append(b, `,"cache_creation_input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CacheCreationInputTokens), 10)
	b = append(b, `,"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CacheReadInputTokens), 10)
	if c := &u.CacheCreation; c.set {
		b = append(b, `,"cache_creation":{"ephemeral_5m_input_tokens":`...)
		b = strconv.AppendInt(b, int64(c.Ephemeral5m), 10)
		b = append(b, `,"ephemeral_1h_input_tokens":`...)
		b = strconv.AppendInt(b, int64(c.Ephemeral1h), 10)
		b = append(b, '}')
	}
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(u.OutputTokens), 10)
	if u.ServiceTier != "" {
		b = append(b, `,"service_tier":`...)
		b = appendString(b, u.ServiceTier)
	}
	if u.InferenceGeo != "" {
		b = append(b, `,"inference_geo":`...)
		b = appendString(b, u.InferenceGeo)
	}
	return append(b, '}')
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString quotes s as encoding/json does, HTML characters included
// (the bytes stay those of the library's encoding).
func appendString(b []byte, s string) []byte {
	if plainASCII(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	start := len(b)
	out := wirejson.AppendString(b, s)
	if !needsHTMLEscape(out[start:]) {
		return out
	}
	var esc bytes.Buffer
	json.HTMLEscape(&esc, out[start:])
	return append(out[:start], esc.Bytes()...)
}

// plainASCII reports whether s is quoted as it is: printable ASCII
// without the characters JSON or encoding/json's HTML safety escape
// (most strings of an answer: ids, types, names, the model).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// compact reports whether a valid JSON value has no whitespace outside
// its strings.
func compact(raw []byte) bool {
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return false
		}
	}
	return true
}

// needsHTMLEscape reports whether a quoted string holds what
// encoding/json escapes beyond JSON: <, >, & and U+2028/U+2029 (E2 80 A8/A9).
func needsHTMLEscape(q []byte) bool {
	for i, c := range q {
		switch c {
		case '<', '>', '&':
			return true
		case 0xE2:
			if i+2 < len(q) && q[i+1] == 0x80 && (q[i+2] == 0xA8 || q[i+2] == 0xA9) {
				return true
			}
		}
	}
	return false
}

// appendRaw appends a JSON value compacted, as encoding/json writes a
// RawMessage (the values here are compact already but for scripted ones).
func appendRaw(b []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	if compact(raw) {
		return append(b, raw...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(b, raw...)
	}
	return append(b, buf.Bytes()...)
}

// The stream's events are written by hand too (a streamed answer is a
// dozen events, each marshalled by reflection before); render_test.go
// holds each to encoding/json's bytes for the event structs of encode.go.

// appendMessageStart is message_start's data.
func appendMessageStart(b []byte, m *messageBody) []byte {
	if m.StopDetails != nil || !utf8.ValidString(m.Model) {
		enc, _ := json.Marshal(messageStart{Type: "message_start", Message: *m})
		return append(b, enc...)
	}
	b = append(b, `{"type":"message_start","message":`...)
	b = appendMessage(b, m)
	return append(b, '}')
}

// appendStreamString quotes s exactly as encoding/json does, invalid
// UTF-8 included (appendString writes the replacement character itself
// where the library writes \ufffd; the events were the library's bytes).
func appendStreamString(b []byte, s string) []byte {
	if utf8.ValidString(s) {
		return appendString(b, s)
	}
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}

// appendBlockStart is content_block_start's data for a reply block: the
// block as it opens (empty text, thinking and input; redacted data whole).
func appendBlockStart(b []byte, index int, blk *block) []byte {
	b = append(b, `{"type":"content_block_start","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"content_block":`...)
	switch blk.kind {
	case "thinking":
		b = append(b, `{"type":"thinking","thinking":"","signature":""}`...)
	case "redacted_thinking":
		b = appendBlock(b, blk.body)
	case "text":
		b = append(b, `{"type":"text","text":""}`...)
	case "tool_use":
		b = append(b, `{"type":"tool_use","id":`...)
		b = appendStreamString(b, blk.id)
		b = append(b, `,"name":`...)
		b = appendStreamString(b, blk.name)
		b = append(b, `,"input":{},"caller":{"type":"direct"}}`...)
	default:
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendDelta is content_block_delta's data: a delta of type typ whose
// one member is field.
func appendDelta(b []byte, index int, typ, field, value string) []byte {
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, typ...) // a constant of stream.go: nothing to escape
	b = append(b, `","`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = appendStreamString(b, value)
	return append(b, "}}"...)
}

// appendBlockStop is content_block_stop's data.
func appendBlockStop(b []byte, index int) []byte {
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	return append(b, '}')
}

// appendMessageDelta is message_delta's data.
func appendMessageDelta(b []byte, m *messageDelta) []byte {
	if m.Delta.StopDetails != nil {
		enc, _ := json.Marshal(*m)
		return append(b, enc...)
	}
	b = append(b, `{"type":"message_delta","delta":{"stop_reason":`...)
	b = appendStreamString(b, m.Delta.StopReason)
	b = append(b, `,"stop_sequence":`...)
	if m.Delta.StopSequence == nil {
		b = append(b, "null"...)
	} else {
		b = appendStreamString(b, *m.Delta.StopSequence)
	}
	b = append(b, `,"stop_details":null},"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(m.Usage.InputTokens), 10)
	b = append(b, `,"cache_creation_input_tokens":`...)
	b = strconv.AppendInt(b, int64(m.Usage.CacheCreationInputTokens), 10)
	b = append(b, `,"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, int64(m.Usage.CacheReadInputTokens), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(m.Usage.OutputTokens), 10)
	return append(b, "}}"...)
}

// appendArguments appends a call's arguments as encoding/json writes them
// (object members sorted by name). It writes the values synthesized and
// scripted arguments are made of; for any other value, or one the library
// refuses (NaN, ±Inf), it reports false and the caller marshals instead.
func appendArguments(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		if !utf8.ValidString(x) {
			return b, false
		}
		return appendString(b, x), true
	case float64:
		return appendFloat(b, x)
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
			if b, ok = appendArguments(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		var stack [8]string
		keys := stack[:0]
		for k := range x {
			if !utf8.ValidString(k) {
				return b, false
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendArguments(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendFloat writes a number as encoding/json does: like %g, with the
// exponent cutoffs of ES6 and exponents not padded.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

package anthropic

import (
	"bytes"
	"encoding/json"
	"strconv"

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
		// Never set on a Message body today; kept exact if it is.
		enc, _ := json.Marshal(m)
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
	if c := u.CacheCreation; c != nil {
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
	start := len(b)
	out := wirejson.AppendString(b, s)
	if !needsHTMLEscape(out[start:]) {
		return out
	}
	var esc bytes.Buffer
	json.HTMLEscape(&esc, out[start:])
	return append(out[:start], esc.Bytes()...)
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

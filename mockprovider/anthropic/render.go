package anthropic

import (
	"bytes"
	"encoding/json"
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
		b = wirejson.AppendLegacyString(b, v.Type)
		b = append(b, `,"text":`...)
		b = wirejson.AppendLegacyString(b, v.Text)
	case thinkingBlock:
		b = append(b, `{"type":`...)
		b = wirejson.AppendLegacyString(b, v.Type)
		b = append(b, `,"thinking":`...)
		b = wirejson.AppendLegacyString(b, v.Thinking)
		b = append(b, `,"signature":`...)
		b = wirejson.AppendLegacyString(b, v.Signature)
	case redactedThinkingBlock:
		b = append(b, `{"type":`...)
		b = wirejson.AppendLegacyString(b, v.Type)
		b = append(b, `,"data":`...)
		b = wirejson.AppendLegacyString(b, v.Data)
	case toolUseBlock:
		b = append(b, `{"type":`...)
		b = wirejson.AppendLegacyString(b, v.Type)
		b = append(b, `,"id":`...)
		b = wirejson.AppendLegacyString(b, v.ID)
		b = append(b, `,"name":`...)
		b = wirejson.AppendLegacyString(b, v.Name)
		b = append(b, `,"input":`...)
		b = appendRaw(b, v.Input)
		b = append(b, `,"caller":{"type":`...)
		b = wirejson.AppendLegacyString(b, v.Caller.Type)
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
	b = wirejson.AppendLegacyString(b, m.ID)
	b = append(b, `,"type":`...)
	b = wirejson.AppendLegacyString(b, m.Type)
	b = append(b, `,"role":`...)
	b = wirejson.AppendLegacyString(b, m.Role)
	b = append(b, `,"model":`...)
	b = wirejson.AppendLegacyString(b, m.Model)
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
		b = wirejson.AppendLegacyString(b, u.ServiceTier)
	}
	if u.InferenceGeo != "" {
		b = append(b, `,"inference_geo":`...)
		b = wirejson.AppendLegacyString(b, u.InferenceGeo)
	}
	return append(b, '}')
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return wirejson.AppendLegacyString(b, *s)
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
		b = wirejson.AppendLegacyString(b, blk.id)
		b = append(b, `,"name":`...)
		b = wirejson.AppendLegacyString(b, blk.name)
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
	b = wirejson.AppendLegacyString(b, value)
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
	b = wirejson.AppendLegacyString(b, m.Delta.StopReason)
	b = append(b, `,"stop_sequence":`...)
	if m.Delta.StopSequence == nil {
		b = append(b, "null"...)
	} else {
		b = wirejson.AppendLegacyString(b, *m.Delta.StopSequence)
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

package openairesp

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
)

// kv is one field of an object, in order.
type kv struct {
	k string
	v any
}

// object is a JSON object whose fields keep the order the real API sends
// them in (clients diff recordings; order matters to humans reading them).
type object []kv

// MarshalJSON encodes the whole tree in one pass. Letting encoding/json
// call a MarshalJSON at every nesting level re-validates and re-compacts
// each level's output, which made encoding the costliest part of a
// Responses request.
func (o object) MarshalJSON() ([]byte, error) { return appendValue(make([]byte, 0, 1024), o) }

// marshalResponse is MarshalJSON for a whole response object, into a
// buffer sized by the previous one: a response is several kilobytes, and
// growing from 1 KiB copied it two or three times. The eighth of slack
// absorbs the usual variation without holding much unused capacity.
func marshalResponse(o object) ([]byte, error) {
	hint := max(int(lastResponseSize.Load()), 1024)
	b, err := appendValue(make([]byte, 0, hint+hint/8), o)
	if err != nil {
		return nil, err
	}
	lastResponseSize.Store(int64(len(b)))
	if cap(b)-len(b) > len(b)/4 {
		// Much smaller than the last one: the journal and the response
		// store keep these bytes, so the spare capacity is not kept too.
		b = append(make([]byte, 0, len(b)), b...)
	}
	return b, nil
}

var lastResponseSize atomic.Int64

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case object:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, f.v); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []object:
		return appendArray(b, x)
	case []any:
		return appendArray(b, x)
	case string:
		return appendString(b, x), nil
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case json.RawMessage:
		if len(x) == 0 {
			return append(b, "null"...), nil
		}
		return append(b, x...), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

func appendArray[T any](b []byte, xs []T) ([]byte, error) {
	b = append(b, '[')
	for i, e := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

const hex = "0123456789abcdef"

// appendString quotes s as encoding/json does (HTML-safe escapes included),
// replacing invalid UTF-8 with U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
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
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

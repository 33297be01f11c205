package openairesp

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// kv is one field of an object, in order.
type kv struct {
	k string
	v any
}

// object is a JSON object whose fields keep the order the real API sends
// them in (clients diff recordings; order matters to humans reading them).
// The Response object and the stream events are written directly
// (render.go, stream.go); object serves the rare answers: the stored
// response endpoints and in-stream errors.
type object []kv

// MarshalJSON encodes the whole tree in one pass. Letting encoding/json
// call a MarshalJSON at every nesting level re-validates and re-compacts
// each level's output, which made encoding the costliest part of a
// Responses request.
func (o object) MarshalJSON() ([]byte, error) { return appendValue(make([]byte, 0, 1024), o) }

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

// plainASCII marks the ASCII bytes appendString copies as they are: all
// but control characters, '"', '\\' and the HTML-sensitive '<', '>', '&'
// (encoding/json's htmlSafeSet). A table lookup per byte instead of six
// comparisons; every response string goes through here. It is filled once
// and only read.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString quotes s as encoding/json does (HTML-safe escapes included),
// replacing invalid UTF-8 with U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainASCII[c] {
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

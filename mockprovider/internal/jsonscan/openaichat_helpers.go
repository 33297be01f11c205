package jsonscan

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// UnquoteEscaped is json.Unmarshal(v, &s) for a valid JSON string literal
// v, without the reflection String falls back to when v has escapes. The
// OpenAI Chat decoder needs it on every request: tool call arguments and
// tool results are JSON text inside a JSON string, so they are full of
// \" escapes. It follows encoding/json's unquoting exactly: \uXXXX pairs
// that are not a valid surrogate pair become U+FFFD, and so does each byte
// of invalid UTF-8. v must be a valid string literal (quotes included).
func UnquoteEscaped(v []byte) string {
	s := v[1 : len(v)-1]
	var b strings.Builder
	b.Grow(len(s))
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++ // a valid literal has the escaped byte
			switch s[r] {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				rr := hex4(s[r+1 : r+5])
				r += 4
				if utf16.IsSurrogate(rr) {
					if r+6 < len(s) && s[r+1] == '\\' && s[r+2] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+3:r+7])); dec != unicode.ReplacementChar {
							b.WriteRune(dec)
							r += 7
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				b.WriteRune(rr)
			default: // '"', '\\', '/'
				b.WriteByte(s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b.WriteRune(rr) // utf8.RuneError for an invalid byte, as encoding/json writes
			r += size
		}
	}
	return b.String()
}

// hex4 reads four hex digits (already validated).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r*16 + rune(c)
	}
	return r
}

// The walkers below let the OpenAI Chat decoder read a validated body
// member by member without building an Object slice or a map per object.
// They must only be given valid JSON.

// ChatMembers walks the members of an object one at a time.
type ChatMembers struct {
	b []byte
	i int
}

// ChatObject starts a walk over the object that is b (surrounding space
// allowed). ok is false for any other kind of value, null included.
func ChatObject(b []byte) (ChatMembers, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '{' {
		return ChatMembers{}, false
	}
	return ChatMembers{b: b, i: skipSpace(b, 1)}, true
}

// Next returns the next member: rawKey is the key as sent between its
// quotes (escapes not decoded, see ChatPlainKey), value its span without
// surrounding space. ok is false after the last member.
func (m *ChatMembers) Next() (rawKey, value []byte, ok bool) {
	b, i := m.b, m.i
	if i >= len(b) || b[i] != '"' { // '}': the object is done
		return nil, nil, false
	}
	k := stringEnd(b, i)
	rawKey = b[i+1 : k-1]
	i = skipSpace(b, k)
	i = skipSpace(b, i+1) // ':'
	e := end(b, i)
	value = b[i:e:e]
	i = skipSpace(b, e)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	m.i = i
	return rawKey, value, true
}

// ChatPlainKey reports whether a raw key means exactly its bytes:
// printable ASCII without escapes, so decoding cannot change it.
func ChatPlainKey(rawKey []byte) bool {
	for _, c := range rawKey {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// ChatElements walks the elements of an array one at a time.
type ChatElements struct {
	b []byte
	i int
}

// ChatArray starts a walk over the array that is b. ok is false for any
// other kind of value, null included.
func ChatArray(b []byte) (ChatElements, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '[' {
		return ChatElements{}, false
	}
	return ChatElements{b: b, i: skipSpace(b, 1)}, true
}

// Next returns the next element's span; ok is false after the last.
func (a *ChatElements) Next() (value []byte, ok bool) {
	b, i := a.b, a.i
	if i >= len(b) || b[i] == ']' {
		return nil, false
	}
	e := end(b, i)
	value = b[i:e:e]
	i = skipSpace(b, e)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	a.i = i
	return value, true
}

// ChatArgumentsObject is `json.Unmarshal(b, &m) == nil && m != nil` with
// m a nil map[string]any, and m, for a valid JSON value b: true only for
// an object whose every number fits a float64 (json.Unmarshal reports an
// error for one that does not, such as 1e400, and for a value that is not
// an object; null leaves m nil).
func ChatArgumentsObject(b []byte) (map[string]any, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	v, _, ok := chatFloatAt(b, 0)
	if !ok {
		return nil, false
	}
	return v.(map[string]any), true
}

// chatFloatAt decodes the value at b[i] as json.Unmarshal into any does
// (numbers as float64) and returns it with the index after it; ok is false
// when a number does not fit a float64.
func chatFloatAt(b []byte, i int) (any, int, bool) {
	switch b[i] {
	case '{':
		m := map[string]any{}
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			k := stringEnd(b, i)
			key := String(b[i:k])
			i = skipSpace(b, k)
			i = skipSpace(b, i+1) // ':'
			v, next, ok := chatFloatAt(b, i)
			if !ok {
				return nil, next, false
			}
			m[key] = v
			i = skipSpace(b, next)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return m, i + 1, true
	case '[':
		a := []any{}
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			v, next, ok := chatFloatAt(b, i)
			if !ok {
				return nil, next, false
			}
			a = append(a, v)
			i = skipSpace(b, next)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return a, i + 1, true
	case '"':
		e := stringEnd(b, i)
		return String(b[i:e]), e, true
	}
	e := end(b, i)
	switch string(b[i:e]) {
	case "null":
		return nil, e, true
	case "true":
		return true, e, true
	case "false":
		return false, e, true
	}
	// encoding/json converts numbers with this call and fails on its error.
	f, err := strconv.ParseFloat(string(b[i:e]), 64)
	if err != nil {
		return nil, e, false
	}
	return f, e, true
}

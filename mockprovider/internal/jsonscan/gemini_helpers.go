package jsonscan

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Members walks the members of an object one at a time. ParseObject builds
// a slice per object; a decoder that only switches on each key and moves
// on needs none. Like the other helpers it must only be given valid JSON.
type Members struct {
	b []byte
	i int
}

// ObjectMembers starts a walk over the object that is b (surrounding
// whitespace allowed). ok is false for any other kind of value, null
// included: callers handle null themselves.
func ObjectMembers(b []byte) (Members, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '{' {
		return Members{}, false
	}
	return Members{b: b, i: skipSpace(b, 1)}, true
}

// Next returns the next member: rawKey is the key as sent between its
// quotes (escapes not decoded, see PlainKey), value its value span.
// ok is false after the last member.
func (m *Members) Next() (rawKey, value []byte, ok bool) {
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

// Elements walks the elements of an array one at a time (see Members).
type Elements struct {
	b []byte
	i int
}

// ArrayElements starts a walk over the array that is b. ok is false for
// any other kind of value, null included.
func ArrayElements(b []byte) (Elements, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '[' {
		return Elements{}, false
	}
	return Elements{b: b, i: skipSpace(b, 1)}, true
}

// Next returns the next element's span; ok is false after the last.
func (a *Elements) Next() (value []byte, ok bool) {
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

// Len counts the remaining elements without consuming them, so a decoder
// can size its slice once.
func (a Elements) Len() int {
	n := 0
	for {
		if _, ok := a.Next(); !ok {
			return n
		}
		n++
	}
}

// Cursor reads a valid JSON document front to back for a decoder that
// descends into the values it knows and skips the rest, so each byte is
// looked at about once. Splitting every level into spans first (as
// ParseObject does) scans the bytes of a value once per level it is
// nested in, which dominated decoding of Gemini bodies, whose function
// schemas sit six levels deep. Like the other helpers it must only be
// given valid JSON.
type Cursor struct {
	b []byte
	i int
}

// NewCursor starts before the first value of b.
func NewCursor(b []byte) *Cursor { return &Cursor{b: b} }

// Peek returns the first byte of the next value (0 at the end).
func (c *Cursor) Peek() byte {
	c.i = skipSpace(c.b, c.i)
	if c.i >= len(c.b) {
		return 0
	}
	return c.b[c.i]
}

// Value returns the span of the next value and moves past it.
func (c *Cursor) Value() []byte {
	c.i = skipSpace(c.b, c.i)
	if c.i >= len(c.b) {
		return nil
	}
	start := c.i
	c.i = end(c.b, start)
	return c.b[start:c.i:c.i]
}

// Enter moves into the next value if it opens with open ('{' or '['),
// and reports whether it did.
func (c *Cursor) Enter(open byte) bool {
	if c.Peek() != open {
		return false
	}
	c.i++
	return true
}

// NextMember, inside an object, moves past the next member's key and
// colon and returns the key as sent between its quotes (escapes not
// decoded, see PlainKey); the member's value is next. At the end of the
// object it moves past the '}' and returns false.
func (c *Cursor) NextMember() (rawKey []byte, ok bool) {
	if !c.more('}') {
		return nil, false
	}
	k := stringEnd(c.b, c.i)
	rawKey = c.b[c.i+1 : k-1]
	c.i = skipSpace(c.b, k) + 1 // past ':'
	return rawKey, true
}

// NextElement, inside an array, reports whether another element is next;
// at the end of the array it moves past the ']' and returns false.
func (c *Cursor) NextElement() bool { return c.more(']') }

// more skips the comma before a next member or element, or the closing
// byte after the last.
func (c *Cursor) more(closing byte) bool {
	c.i = skipSpace(c.b, c.i)
	if c.i < len(c.b) && c.b[c.i] == ',' {
		c.i = skipSpace(c.b, c.i+1)
	}
	if c.i >= len(c.b) || c.b[c.i] == closing {
		c.i++
		return false
	}
	return true
}

// CountElements returns the number of elements of the array that is the
// next value, without moving, so a decoder can size its slice once.
func (c *Cursor) CountElements() int {
	i := skipSpace(c.b, c.i)
	if i >= len(c.b) || c.b[i] != '[' {
		return 0
	}
	n := 0
	for i = skipSpace(c.b, i+1); i < len(c.b) && c.b[i] != ']'; n++ {
		i = skipSpace(c.b, end(c.b, i))
		if i < len(c.b) && c.b[i] == ',' {
			i = skipSpace(c.b, i+1)
		}
	}
	return n
}

// PlainKey reports whether a raw key means exactly its bytes: printable
// ASCII without escapes, so no unescaping or UTF-8 repair changes it.
func PlainKey(rawKey []byte) bool {
	for _, c := range rawKey {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// StructFloat is `json.Unmarshal(b, &m) == nil && m != nil` with m a nil
// map[string]any, and m: a valid JSON value that is an object whose every
// number fits a float64 (json.Unmarshal reports an error for one that does
// not, such as 1e400, and for any value that is not an object). The Gemini
// decoder reads a function's response this way on every request.
func StructFloat(b []byte) (map[string]any, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '{' || !floatsFit(b) {
		return nil, false
	}
	m, ok := AnyFloat(b).(map[string]any)
	return m, ok
}

// floatsFit reports whether strconv.ParseFloat(s, 64), what encoding/json
// converts numbers with, accepts every number in the valid JSON b. Only a
// number with an exponent or hundreds of digits can be out of range, so
// the others are not parsed.
func floatsFit(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			i = stringEnd(b, i) - 1
		case c == '-' || c >= '0' && c <= '9':
			e := end(b, i)
			num := b[i:e]
			if len(num) > 300 || bytes.ContainsAny(num, "eE") {
				if _, err := strconv.ParseFloat(string(num), 64); err != nil {
					return false
				}
			}
			i = e - 1
		}
	}
	return true
}

// AppendJSON appends json.Marshal(v), and false where Marshal fails (what
// b then holds past its old length is unspecified). The kinds decoded
// JSON is made of (maps, lists, strings, float64, bool, nil) are written
// here: json.Marshal's reflection, with the sorting of map keys through
// reflect values, cost more than the rest of a Gemini answer with
// function arguments. Any other type is handed to json.Marshal, whose
// encoding of a nested value is the same as on its own; so is a value
// nested deeper than maxHandDepth, where Marshal's check for cycles (a
// map that holds itself) takes over.
func AppendJSON(b []byte, v any) ([]byte, bool) { return appendJSON(b, v, 0) }

func appendJSON(b []byte, v any, depth int) ([]byte, bool) {
	if depth >= maxHandDepth {
		return appendMarshal(b, v)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return AppendString(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		return appendFloat(b, x)
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		// Marshal writes the members sorted by key.
		var room [16]string
		keys := room[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSON(b, x[k], depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
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
			if b, ok = appendJSON(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return appendMarshal(b, v)
}

// maxHandDepth is well below the nesting at which json.Marshal starts
// looking for cycles (1000 levels).
const maxHandDepth = 100

func appendMarshal(b []byte, v any) ([]byte, bool) {
	m, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, m...), true
}

// appendFloat writes a float64 as encoding/json does: like ES6, with 'e'
// notation below 1e-6 and from 1e21, and no leading zero in a negative
// exponent. NaN and the infinities cannot be encoded.
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
		// e-09 becomes e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// AppendString writes s as encoding/json does with HTML escaping on:
// quotes; \" \\ \b \f \n \r \t as two bytes; other control bytes and
// < > & as \u00XX; U+2028 and U+2029 as \u202X; each byte of invalid
// UTF-8 as \ufffd; everything else as is.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

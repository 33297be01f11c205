// Package jsonscan splits JSON that is already known to be valid into its
// members and elements without validating it again.
//
// The dialect decoders validate a request body once; walking it with
// encoding/json level by level (unmarshal into json.RawMessage, then
// unmarshal each piece) re-validates the same bytes at every nesting level,
// which was the largest cost of decoding. The helpers here give the same
// results as those json.Unmarshal calls would on valid input: value spans
// without surrounding whitespace, object keys unescaped the way
// encoding/json unescapes them, duplicate keys resolved to the last one.
// They must only be given valid JSON.
//
// The other direction lives here too (encode.go): writing the values a
// JSON decode produces, strings and raw fragments byte for byte as
// json.Marshal does, without its reflection. Every helper has a fuzz test
// holding it to encoding/json.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Field is one member of an object: its unescaped key and its value as
// sent (no surrounding whitespace).
type Field struct {
	Key   string
	Value []byte
}

// Object is the members of an object, in the order sent.
type Object []Field

// Get returns the value of key, the last one when the key repeats (as a
// map decode keeps the last).
func (o Object) Get(key string) ([]byte, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// Present returns a member that is set and not null.
func (o Object) Present(key string) ([]byte, bool) {
	v, ok := o.Get(key)
	if !ok || IsNull(v) {
		return nil, false
	}
	return v, true
}

// IsNull reports whether a value span is the literal null.
func IsNull(v []byte) bool { return string(v) == "null" }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Trim drops the whitespace around a value.
func Trim(b []byte) []byte {
	i := skipSpace(b, 0)
	j := len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// end returns the index just past the value starting at b[i].
func end(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// stringEnd returns the index just past the string literal at b[i]. It
// jumps from quote to quote (bytes.IndexByte is vectorized) and skips a
// quote escaped by an odd run of backslashes before it.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return len(b)
}

// ParseObject splits a valid JSON value that is an object into its
// members. ok is false for any other kind of value; null gives a nil
// Object and true, as unmarshalling null into a map does.
func ParseObject(b []byte) (Object, bool) { return ParseObjectInto(nil, b) }

// ParseObjectInto is ParseObject appending to dst: a decoder that passes a
// slice of an array on its stack parses an object without allocating.
func ParseObjectInto(dst Object, b []byte) (Object, bool) {
	b = Trim(b)
	if IsNull(b) {
		return nil, true
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	out := dst[:0]
	if out == nil {
		out = make(Object, 0, 8)
	}
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != '}' {
		k := stringEnd(b, i)
		key := String(b[i:k])
		i = skipSpace(b, k)
		i = skipSpace(b, i+1) // ':'
		e := end(b, i)
		out = append(out, Field{Key: key, Value: b[i:e:e]})
		i = skipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return out, true
}

// ParseArray splits a valid JSON value that is an array into its
// elements. ok is false for any other kind of value; null gives nil and
// true, as unmarshalling null into a slice does.
func ParseArray(b []byte) ([][]byte, bool) { return ParseArrayInto(nil, b) }

// ParseArrayInto is ParseArray appending to dst (see ParseObjectInto).
func ParseArrayInto(dst [][]byte, b []byte) ([][]byte, bool) {
	b = Trim(b)
	if IsNull(b) {
		return nil, true
	}
	if len(b) == 0 || b[0] != '[' {
		return nil, false
	}
	out := dst[:0]
	if out == nil {
		out = make([][]byte, 0, 4)
	}
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		e := end(b, i)
		out = append(out, b[i:e:e])
		i = skipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return out, true
}

// String is json.Unmarshal(v, &s) for a valid value span: the unescaped
// string (invalid UTF-8 replaced as encoding/json does) and true; "" and
// true for null; false for any other kind.
func String(v []byte) string {
	s, _ := ToString(v)
	return s
}

// ToString is String that also reports whether v was a string or null.
func ToString(v []byte) (string, bool) {
	v = Trim(v)
	if len(v) == 0 {
		return "", false
	}
	if v[0] != '"' {
		return "", IsNull(v)
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		if len(inner) <= maxCommon {
			if s, ok := common[string(inner)]; ok {
				return s, true
			}
		}
		return string(inner), true
	}
	return UnquoteEscaped(v), true // v is a valid string literal here
}

// Int64 is json.Unmarshal(v, &n) for a valid value span that is not null:
// ok only for an integer literal that fits.
func Int64(v []byte) (int64, bool) {
	v = Trim(v)
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, false // encoding/json leaves the target unchanged
	}
	return n, true
}

// Bool is json.Unmarshal(v, &b) for a valid value span that is not null.
func Bool(v []byte) (bool, bool) {
	switch string(Trim(v)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Clone copies a span, so what is kept does not pin the whole body.
func Clone(v []byte) json.RawMessage {
	if v == nil {
		return nil
	}
	return append(json.RawMessage(nil), v...)
}

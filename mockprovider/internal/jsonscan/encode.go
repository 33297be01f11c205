package jsonscan

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Writing JSON by hand, byte for byte as encoding/json's Marshal does, for
// the values decoded JSON is made of: the dialects' answers go through here
// instead of Marshal's reflection. The fuzz tests hold it to Marshal.

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
		return AppendFloat(b, x)
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

// AppendFloat writes a float64 as encoding/json does: like ES6, with 'e'
// notation below 1e-6 and from 1e21, and no leading zero in a negative
// exponent. NaN and the infinities cannot be encoded.
func AppendFloat(b []byte, f float64) ([]byte, bool) {
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

// plainASCII marks the ASCII bytes AppendString copies as they are: all
// but control characters, '"', '\\' and the HTML-sensitive '<', '>', '&'
// (encoding/json's htmlSafeSet). One table lookup per byte instead of six
// comparisons: every string of every answer goes through here. Filled
// once at start-up and only read.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

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
			if plainASCII[c] {
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

// AppendCompact appends to dst what json.Marshal(json.RawMessage(src))
// returns for a valid JSON text src: whitespace outside strings removed,
// '<', '>', '&' and U+2028, U+2029 escaped (\u003c, \u003e, \u0026,
// \u2028, \u2029), every other byte kept. json.Marshal does this to
// everything a MarshalJSON method or a json.RawMessage gives it, after
// validating it again; the texts given here are valid by construction
// (appendString output and fragments of a request body that was
// validated when it was decoded), so only the rewriting is done, in one
// string-aware pass that copies runs of unchanged bytes whole.
// FuzzAppendCompact holds it to json.Marshal.
func AppendCompact(dst, src []byte) []byte {
	start := 0 // src[start:i] is still to be copied to dst
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case '"':
				inString = true
			case ' ', '\t', '\n', '\r':
				dst = append(dst, src[start:i]...)
				start = i + 1
			}
			continue
		}
		switch c {
		case '\\':
			i++ // the escaped byte is ASCII and never rewritten
		case '"':
			inString = false
		case '<', '>', '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case 0xE2:
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
				i += 2
				start = i + 1
			}
		}
	}
	return append(dst, src[start:]...)
}

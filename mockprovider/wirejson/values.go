package wirejson

import (
	"bytes"
	stdjson "encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The hand-written encoders write some answers byte for byte as one of
// two libraries would: encoding/json (Anthropic's and Gemini's answers,
// written by it before) or this package's library with deterministic
// output (Chat's arguments). Each dialect's tests hold its encoders to the
// library's bytes.

// AppendLegacyString appends s quoted exactly as encoding/json writes it:
// the HTML characters and U+2028/U+2029 escaped, invalid UTF-8 as \ufffd.
func AppendLegacyString(b []byte, s string) []byte {
	if plainASCII(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	if !utf8.ValidString(s) {
		q, _ := stdjson.Marshal(s)
		return append(b, q...)
	}
	start := len(b)
	out := AppendString(b, s)
	if !needsHTMLEscape(out[start:]) {
		return out
	}
	var esc bytes.Buffer
	stdjson.HTMLEscape(&esc, out[start:])
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

// AppendValue appends a decoded JSON value (nil, bool, string, float64,
// int, int64, []any, map[string]any: what tool arguments are made of) as
// encoding/json writes it (legacy: HTML characters escaped, nil maps and
// slices as null) or as this package's library does with deterministic
// output (object members sorted by name in both). It reports false for
// what it does not write the library's way (another type, invalid UTF-8,
// NaN or ±Inf, and for the library a number with an exponent or a name
// beyond ASCII); the caller then marshals instead, error included.
func AppendValue(b []byte, v any, legacy bool) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		if !utf8.ValidString(x) {
			return b, false
		}
		if legacy {
			return AppendLegacyString(b, x), true
		}
		return AppendString(b, x), true
	case float64:
		return appendFloat(b, x, legacy)
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case []any:
		if x == nil && legacy {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = AppendValue(b, e, legacy); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil && legacy {
			return append(b, "null"...), true
		}
		var stack [8]string
		keys := stack[:0]
		for k := range x {
			// Sorted by bytes, as encoding/json sorts; the library's
			// order differs beyond ASCII.
			if !utf8.ValidString(k) || !legacy && !isASCII(k) {
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
			if legacy {
				b = AppendLegacyString(b, k)
			} else {
				b = AppendString(b, k)
			}
			b = append(b, ':')
			var ok bool
			if b, ok = AppendValue(b, x[k], legacy); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendFloat writes a number as encoding/json does: like %g, with the
// exponent cutoffs of ES6 and exponents not padded. Numbers that take an
// exponent are left to the library when it is not encoding/json.
func appendFloat(b []byte, f float64, legacy bool) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		if !legacy {
			return b, false
		}
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// AppendString appends s as a JSON string, the hand-written encoders'
// quoting: invalid UTF-8 (a scripted string) becomes replacement
// characters, as json.Marshal writes it, instead of an error.
func AppendString(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		out, _ = jsontext.AppendQuote(b, strings.ToValidUTF8(s, "\ufffd"))
	}
	return out
}

package jsonscan

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// UnquoteEscaped is json.Unmarshal(v, &s) for a valid JSON string literal
// v, without the reflection String falls back to when v has escapes. Tool
// call arguments and tool results are JSON text inside a JSON string, so
// they are full of \" escapes. It follows encoding/json's unquoting exactly: \uXXXX pairs
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

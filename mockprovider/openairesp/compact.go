package openairesp

// appendCompactLikeMarshal appends to dst what json.Marshal(json.RawMessage(src))
// returns for a valid JSON text src: whitespace outside strings removed,
// '<', '>', '&' and U+2028, U+2029 escaped (\u003c, \u003e, \u0026,
// \u2028, \u2029), every other byte kept. json.Marshal does this to
// everything a MarshalJSON method or a json.RawMessage gives it, after
// validating it again; the texts given here are valid by construction
// (appendString output and fragments of a request body that was
// validated when it was decoded), so only the rewriting is done, in one
// string-aware pass that copies runs of unchanged bytes whole.
// FuzzCompactLikeMarshal holds it to json.Marshal.
func appendCompactLikeMarshal(dst, src []byte) []byte {
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
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case 0xE2:
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
				i += 2
				start = i + 1
			}
		}
	}
	return append(dst, src[start:]...)
}

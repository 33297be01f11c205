package jsonscan

// maxDepth is encoding/json's nesting limit: a value nested deeper is
// rejected by json.Valid.
const maxDepth = 10000

// Valid reports exactly what json.Valid reports, in one direct pass over
// the bytes. json.Valid drives a general state machine through a function
// value per byte; every request body is validated once before it is
// split, so that pass was a visible share of each request. Like
// encoding/json it accepts any byte >= 0x80 inside a string (invalid
// UTF-8 is replaced when decoding, not rejected) and rejects nesting
// deeper than 10000.
func Valid(b []byte) bool {
	// open records the containers entered, innermost last: '{' or '['.
	var stack [64]byte
	open := stack[:0]
	i := skipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(open) >= maxDepth {
				return false
			}
			open = append(open, c)
			i = skipSpace(b, i+1)
			if c == '{' {
				if i < len(b) && b[i] == '}' {
					open = open[:len(open)-1]
					i++
					goto after
				}
				if i = member(b, i); i < 0 {
					return false
				}
			} else if i < len(b) && b[i] == ']' {
				open = open[:len(open)-1]
				i++
				goto after
			}
			continue
		case '"':
			if i = validString(b, i); i < 0 {
				return false
			}
		case 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = number(b, i); i < 0 {
				return false
			}
		}
	after:
		// A value ended just before b[i]: close containers or move on to
		// the next element or member.
		for {
			i = skipSpace(b, i)
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := open[len(open)-1]
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
				if top == '{' {
					if i = member(b, i); i < 0 {
						return false
					}
				}
			case '}':
				if top != '{' {
					return false
				}
				open = open[:len(open)-1]
				i++
				continue
			case ']':
				if top != '[' {
					return false
				}
				open = open[:len(open)-1]
				i++
				continue
			default:
				return false
			}
			break
		}
	}
}

// member checks `"key" :` at b[i] and returns the index of the value.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = validString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// validString checks the string literal at b[i] and returns the index
// just past it, or -1.
func validString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func number(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

package wirejson

import "bytes"

// Bracket scans over bytes the strict decoder has not read yet: what they
// find only serves to look bytes up (ValueLength) or to size a slice
// (CountElements), and the decoder then validates the same bytes.

// ValueLength is the length of the JSON object or array b starts with,
// found by matching brackets outside strings, or 0 when b does not hold
// all of it. It validates nothing: the length only serves to look bytes
// up, and bytes found in a memo were a whole valid value when put there.
func ValueLength(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i+1); i == len(b) {
				return 0
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// CountElements counts the elements of the JSON array that rest starts
// with (after whitespace), at most max: the commas at its top level, plus
// one unless it is empty. It stops at the array's end or the end of rest.
// The count is a capacity hint.
func CountElements(rest []byte, max int) int {
	depth, n, empty := 0, 0, true
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			if i = stringEnd(rest, i+1); i == len(rest) {
				return min(n+1, max) // cut short: the decoder will say so
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				if empty {
					return 0
				}
				return min(n+1, max)
			}
		case ',':
			if depth == 1 {
				n++
				if n >= max {
					return max
				}
			}
		}
		if depth > 1 || (depth == 1 && rest[i] != '[' && rest[i] != ',') {
			empty = false
		}
	}
	return min(n, max)
}

// stringEnd is the index of the quote that closes the string whose
// content starts at i (len(b) when it does not close): strings are most
// of a value's bytes, so they are skipped a quote at a time.
func stringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		j := i + q
		escapes := 0
		for k := j - 1; k >= i && b[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j
		}
		i = j + 1
	}
}

package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// AnyNumber is a json.Decoder with UseNumber decoding a valid JSON value
// into any: objects as map[string]any (a repeated key keeps the last),
// arrays as []any, numbers as json.Number, strings unescaped as
// encoding/json does. It walks the bytes once, where the decoder scans
// them twice through its state machine.
func AnyNumber(b []byte) any {
	v, _ := anyAt(b, skipSpace(b, 0), true)
	return v
}

// AnyFloat is json.Unmarshal into an `any` for a valid JSON value: numbers
// as float64, and a number float64 cannot hold as nil (json.Unmarshal
// reports an error and leaves that value unset; callers here ignore it).
func AnyFloat(b []byte) any {
	v, _ := anyAt(b, skipSpace(b, 0), false)
	return v
}

// ObjectFloat is json.Unmarshal(b, &m) with m a fresh empty map, as the
// decoders use it for call arguments: an object decodes into the map, null
// leaves m nil, any other value leaves m empty.
func ObjectFloat(b []byte) map[string]any {
	b = Trim(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		m, _ := AnyFloat(b).(map[string]any)
		return m
	case IsNull(b):
		return nil
	}
	return map[string]any{}
}

// anyAt decodes the value at b[i] and returns it with the index after it;
// numbers become json.Number if useNumber, else float64.
func anyAt(b []byte, i int, useNumber bool) (any, int) {
	if i >= len(b) {
		return nil, i
	}
	switch b[i] {
	case '{':
		m := map[string]any{}
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			k := stringEnd(b, i)
			key := String(b[i:k])
			i = skipSpace(b, k)
			i = skipSpace(b, i+1) // ':'
			var v any
			v, i = anyAt(b, i, useNumber)
			m[key] = v
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return m, i + 1
	case '[':
		a := []any{}
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			var v any
			v, i = anyAt(b, i, useNumber)
			a = append(a, v)
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return a, i + 1
	case '"':
		e := stringEnd(b, i)
		return String(b[i:e]), e
	}
	e := end(b, i)
	switch string(b[i:e]) {
	case "null":
		return nil, e
	case "true":
		return true, e
	case "false":
		return false, e
	}
	if useNumber {
		return json.Number(string(b[i:e])), e
	}
	f, err := strconv.ParseFloat(string(b[i:e]), 64)
	if err != nil {
		return nil, e
	}
	return f, e
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

package jsonscan

import (
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

package jsonscan

import "encoding/json"

// AnyNumber is a json.Decoder with UseNumber decoding a valid JSON value
// into any: objects as map[string]any (a repeated key keeps the last),
// arrays as []any, numbers as json.Number, strings unescaped as
// encoding/json does. It walks the bytes once, where the decoder scans
// them twice through its state machine.
func AnyNumber(b []byte) any {
	v, _ := anyAt(b, skipSpace(b, 0))
	return v
}

// anyAt decodes the value at b[i] and returns it with the index after it.
func anyAt(b []byte, i int) (any, int) {
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
			v, i = anyAt(b, i)
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
			v, i = anyAt(b, i)
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
	return json.Number(string(b[i:e])), e
}

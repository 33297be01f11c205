package openaichat

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// marshalArguments is json.Marshal(args, json.Deterministic(true)): what
// a call's arguments become in an answer and in the prompt the cache
// hashes. Every answer with a call encodes them, and the library's
// reflection over a small map was a visible share of a Chat answer, so
// the values arguments are made of are written by hand with the library's
// bytes (args_test.go holds both to the same output); anything else
// (invalid UTF-8, a key beyond ASCII, a NaN, another type) is left to the
// library, which answers as it always did, error included.
func marshalArguments(args map[string]any) ([]byte, error) {
	if b, ok := appendArgument(make([]byte, 0, 128), args); ok {
		return b, nil
	}
	return json.Marshal(args, json.Deterministic(true))
}

// appendArgument writes v as the library would, or reports false.
func appendArgument(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		if !utf8.ValidString(x) {
			return b, false
		}
		return wirejson.AppendString(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		// The library's form for these magnitudes; the others take an
		// exponent it writes its own way.
		if abs := math.Abs(x); x != 0 && (abs < 1e-6 || abs >= 1e21) || math.IsNaN(x) {
			return b, false
		}
		return strconv.AppendFloat(b, x, 'f', -1, 64), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendArgument(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		var keysBuf [8]string
		keys := keysBuf[:0]
		for k := range x {
			if !isPlainASCII(k) {
				return b, false // sorted as the library sorts them
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = wirejson.AppendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendArgument(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

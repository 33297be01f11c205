package wirejson

import (
	stdjson "encoding/json"
	"math"
	"testing"

	"github.com/go-json-experiment/json"
)

// valueCases are what tool arguments are made of, with the strings and
// numbers the two libraries write in their own ways.
var valueCases = []any{
	nil,
	map[string]any{},
	map[string]any(nil),
	[]any(nil),
	map[string]any{"city": "Paris", "units": "celsius"},
	map[string]any{"b": true, "a": false, "n": nil, "z": "<&>\u2028\u2029\x7f\t\"\\é"},
	map[string]any{"f": 1.0, "g": -0.0, "h": 1e21, "i": 1e20, "j": 1e-6, "k": 1e-7, "l": 123456789.125, "m": 5e-324, "n": 1.7976931348623157e308, "o": 0.1},
	map[string]any{"ints": []any{1, int64(-2), 3.5}, "nested": map[string]any{"y": []any{}, "x": map[string]any{}, "w": []any(nil), "v": map[string]any(nil)}},
	map[string]any{"k1": 1.0, "k10": 2.0, "k2": 3.0, "K": 4.0, "_": 5.0, "é": 6.0, "<": 7.0, "a\"b": 8.0, "k3": 9.0, "k4": 0.0, "k5": 1.0},
	map[string]any{"nan": math.NaN()},
	map[string]any{"inf": []any{math.Inf(1)}},
	map[string]any{"bad": "x\xffy"},
	map[string]any{"bad\xfe": 1.0},
	map[string]any{"u": uint8(7), "s": []string{"a"}},
	"", "plain text_123-~", "é ü \u2028 \u2029 \U0001F600", "a<b", "tab\t\b\f\x01",
}

// TestAppendValueAsTheLibrariesWriteIt: what AppendValue writes is byte
// for byte what encoding/json (legacy) or the library with deterministic
// output writes; what it declines, the caller marshals.
func TestAppendValueAsTheLibrariesWriteIt(t *testing.T) {
	for _, v := range valueCases {
		if got, ok := AppendValue(nil, v, true); ok {
			if want, err := stdjson.Marshal(v); err != nil || string(got) != string(want) {
				t.Errorf("legacy %#v:\n got %s\nwant %s (%v)", v, got, want, err)
			}
		}
		if got, ok := AppendValue(nil, v, false); ok {
			if want, err := json.Marshal(v, json.Deterministic(true)); err != nil || string(got) != string(want) {
				t.Errorf("library %#v:\n got %s\nwant %s (%v)", v, got, want, err)
			}
		}
	}
	// What the answers send is written, not declined.
	for _, legacy := range []bool{true, false} {
		if _, ok := AppendValue(nil, map[string]any{"city": "Paris <3>", "days": 3.0, "tags": []any{"a"}}, legacy); !ok {
			t.Errorf("plain arguments declined (legacy %v)", legacy)
		}
	}
}

// TestAppendLegacyString: every string, invalid UTF-8 included, is quoted
// as encoding/json quotes it, on the plain path and off it.
func TestAppendLegacyString(t *testing.T) {
	all := make([]byte, 0, 128)
	for c := range 128 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain text_123-~", string(all), "é ü \u2028 \u2029 \U0001F600", "a<b", "x\x7fy", "tab\t", "bad \xff\xfe utf-8", "\xe2\x80"} {
		want, _ := stdjson.Marshal(s)
		if got := AppendLegacyString(nil, s); string(got) != string(want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}

// FuzzAppendValue holds AppendValue to both libraries for whatever a JSON
// text decodes to.
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[true,null,"x<y"],"c":{"d":1e-9,"e":"\u2028"}}`, `{"z":1e300,"y":-0.0001,"x":[[],{}]}`, `"\ud800"`, `[1e21,-0]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		var v any
		if stdjson.Unmarshal(text, &v) != nil {
			return
		}
		if got, ok := AppendValue(nil, v, true); ok {
			if want, err := stdjson.Marshal(v); err != nil || string(got) != string(want) {
				t.Fatalf("legacy %s:\n got %s\nwant %s (%v)", text, got, want, err)
			}
		}
		if got, ok := AppendValue(nil, v, false); ok {
			if want, err := json.Marshal(v, json.Deterministic(true)); err != nil || string(got) != string(want) {
				t.Fatalf("library %s:\n got %s\nwant %s (%v)", text, got, want, err)
			}
		}
	})
}

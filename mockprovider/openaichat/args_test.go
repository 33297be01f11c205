package openaichat

import (
	"math"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestArgumentsAsTheLibraryWritesThem: arguments of every shape are the
// library's deterministic encoding, byte for byte, error included.
func TestArgumentsAsTheLibraryWritesThem(t *testing.T) {
	for i, args := range []map[string]any{
		nil,
		{},
		{"city": "Paris", "units": "celsius"},
		{"z": 1.0, "a": -0.0, "m": 1.5, "n": 123456789012345.0, "t": true, "f": false, "x": nil, "y": 1e20, "w": 1e-6, "v": 0.1 + 0.2},
		{"tiny": 1e-7}, {"huge": 1e21}, {"nan": math.NaN()}, {"inf": math.Inf(1)},
		{"list": []any{1.0, "two", []any{}, map[string]any{}, []any(nil), map[string]any(nil), nil}},
		{"nested": map[string]any{"b": map[string]any{"c": []any{map[string]any{"d": "e"}}}, "a": 1}},
		{"quote": "say \"hi\" \\ <b> & \u2028 \x01 \t é 😀"},
		{"bad": "caf\xe9"},
		{"é": 1, "e": 2, "ë": 3}, {"Z": 1, "a": 2, "_": 3, "0": 4, "": 5},
		{"int": 3, "int64": int64(-4)},
		{"other": float32(1.5)}, {"uint": uint(3)}, {"ch": make(chan int)},
	} {
		want, wantErr := json.Marshal(args, json.Deterministic(true))
		got, gotErr := marshalArguments(args)
		if string(got) != string(want) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("case %d: got %s (%v), want %s (%v)", i, got, gotErr, want, wantErr)
		}
	}
}

func BenchmarkArguments(b *testing.B) {
	args := map[string]any{"city": "Paris", "units": "celsius"}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = marshalArguments(args)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(args, json.Deterministic(true))
		}
	})
}

package gemini

import (
	"encoding/json"
	"math"
	"testing"
)

// TestResponseAsTheLibraryWritesIt: every chunk shape an answer has is
// byte for byte encoding/json's encoding of the GenerateContentResponse.
func TestResponseAsTheLibraryWritesIt(t *testing.T) {
	calls := []OutPart{
		{FunctionCall: &OutCall{ID: "c1", Name: "get_weather", Args: map[string]any{"city": "Paris <FR> & \"x\"", "n": 1.5, "z": []any{1, nil, true}, "a": map[string]any{"b": "\u2028"}}}, ThoughtSignature: "CiQBDDnWx8Q="},
		{FunctionCall: &OutCall{Name: "get_time", Args: map[string]any{}}},
	}
	encoded, callsLen, ok := encodeCalls(calls)
	if !ok || callsLen != callBytes(calls) {
		t.Fatalf("encodeCalls: %v, %d bytes, want %d", ok, callsLen, callBytes(calls))
	}
	texts := []string{"", "Sunny.", "Tab\there \u2028 <b>bold</b> & control \x01 \"q\" \\ é", "bad \xff",
		"all the escapes: \b\f\r\n\x00\x1f\x7f ' / \"{\\\"k\\\":1}\" café 😀 \u2029 end",
		"escapes by hand: \b\f\r\n\x00\x1f\x7f ' / \"{\\\"k\\\":1}\" <&> café 😀",
		`Here is what the tools returned: get_weather: {"temperature":18,"condition":"partly cloudy"}`}
	heads := []responseHead{
		{model: "gemini-2.5-flash", id: "resp1", prompt: 12, thoughts: 33, calls: true, finish: finishStop},
		{model: "gemini-3-flash-preview", id: "resp<2>", prompt: 1, finish: finishMaxTokens},
		{model: "m", id: "r", finish: finishStop},
	}
	for i, h := range heads {
		for j, text := range texts {
			chunks := []chunk{
				wholeAnswer(text, nil, 0),
				wholeAnswer(text, calls, callsLen),
				{text: text, hasText: true, outBytes: len(text)},
				{calls: calls, last: true, outBytes: callsLen},
				{last: true},
			}
			chunks = append(chunks, streamChunks(text, calls, callsLen, 4)...)
			for k, ch := range chunks {
				var withCalls []encodedCall
				if len(ch.calls) > 0 {
					withCalls = encoded
				}
				want, err := json.Marshal(h.message(ch))
				if err != nil {
					t.Fatal(err)
				}
				if got := h.appendResponse(nil, ch, withCalls); string(got) != string(want) {
					t.Errorf("head %d text %d chunk %d:\n got %s\nwant %s", i, j, k, got, want)
				}
			}
		}
	}
	for i, args := range []map[string]any{
		nil, {},
		{"z": 1.0, "a": -0.0, "m": 1.5, "n": 123456789012345.0, "t": true, "f": false, "x": nil, "y": 1e20, "w": 1e-6, "v": 0.1 + 0.2},
		{"tiny": 1e-7}, {"huge": 1e21}, {"inf": math.Inf(-1)},
		{"list": []any{1.0, "two", []any{}, map[string]any{}, []any(nil), map[string]any(nil), nil}},
		{"nested": map[string]any{"b": map[string]any{"c": []any{map[string]any{"d": "e"}}}, "a": 1}},
		{"quote": "say \"hi\" \\ <b> & \u2028 \x01 \t é 😀", "bad": "caf\xe9"},
		{"é": 1, "e": 2, "ë": 3, "<k>": 4}, {"Z": 1, "a": 2, "_": 3, "0": 4, "": 5},
		{"int": 3, "int64": int64(-4)},
		{"other": float32(1.5)}, {"uint": uint(3)}, {"number": json.Number("12")},
	} {
		for _, c := range []*OutCall{{Name: "f", Args: args}, {ID: "c<1>", Name: "g\"", Args: args}} {
			want, wantErr := json.Marshal(c)
			got, gotErr := marshalCall(c)
			if string(got) != string(want) || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("arguments %d: got %s (%v), want %s (%v)", i, got, gotErr, want, wantErr)
			}
		}
	}
	// Arguments encoding/json refuses leave the answer to it.
	if _, _, ok := encodeCalls([]OutPart{{FunctionCall: &OutCall{Name: "f", Args: map[string]any{"x": math.NaN()}}}}); ok {
		t.Error("a NaN argument was encoded")
	}
}

func BenchmarkResponse(b *testing.B) {
	calls := []OutPart{{FunctionCall: &OutCall{Name: "get_weather", Args: map[string]any{"city": "Paris", "units": "celsius"}}, ThoughtSignature: "CiQBDDnWx8Q="}}
	h := responseHead{model: "gemini-2.5-flash", id: "resp1", prompt: 12, thoughts: 33, calls: true, finish: finishStop}
	encoded, n, _ := encodeCalls(calls)
	ch := wholeAnswer("", calls, n)
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = h.appendResponse(buf[:0], ch, encoded)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(h.message(ch))
		}
	})
}

package openaichat

import (
	"testing"
)

// TestChunkAsTheLibraryWritesIt: every chunk shape the stream writes is
// byte for byte the library's encoding of the chunk structs.
func TestChunkAsTheLibraryWritesIt(t *testing.T) {
	stop, calls := "stop", "tool_calls"
	deltas := []*streamDelta{
		{Role: "assistant", Content: setText(""), Refusal: deltaText{state: textNull}},
		{Role: "assistant", Content: deltaText{state: textNull}, Refusal: deltaText{state: textNull},
			ToolCalls: []streamCall{{Index: 0, ID: "call_1", Type: "function", Function: answerFunction{Name: "get_weather"}}}},
		{Content: setText("Tab\there \u2028 <b>bold</b> & control \x01 \"q\"")},
		{ToolCalls: []streamCall{{Index: 3, Function: answerFunction{Arguments: `{"city":"Paris <FR> & \"x\""}`}}}},
		{Refusal: setText("I can't.")},
		{},
		nil,
	}
	for i, o := range renderOutputs() {
		for j, d := range deltas {
			for _, finish := range []*string{nil, &stop, &calls} {
				if d == nil && finish != nil {
					continue
				}
				for _, include := range []bool{false, true} {
					want := encodeChunkViaLibrary(o, include, d, finish)
					got := appendChunk(nil, o, include, d, finish)
					if string(got) != string(want) {
						t.Errorf("output %d delta %d finish %v usage %v:\n got %s\nwant %s", i, j, finish != nil, include, got, want)
					}
				}
			}
		}
	}
	// Invalid UTF-8 (a scripted string) is left to the library, as before.
	o := renderOutputs()[1]
	d := &streamDelta{Content: setText("bad \xff")}
	if got, want := appendChunk(nil, o, false, d, nil), encodeChunkViaLibrary(o, false, d, nil); string(got) != string(want) {
		t.Errorf("invalid UTF-8: got %q, want %q", got, want)
	}
}

func BenchmarkChunk(b *testing.B) {
	o := renderOutputs()[0]
	d := &streamDelta{ToolCalls: []streamCall{{Index: 0, Function: answerFunction{Arguments: `{"city":`}}}}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = appendChunk(buf[:0], o, true, d, nil)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = encodeChunkViaLibrary(o, true, d, nil)
		}
	})
}

package anthropic

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// renderCases cover every block kind, optional fields present and absent,
// and strings encoding/json escapes (HTML characters, U+2028, control
// characters, invalid UTF-8).
func renderCases() []messageBody {
	stop, seq := "tool_use", "STOP <here> & there"
	blocks := []block{
		thinking("The user wants <weather> & more\u2028now"),
		{body: redactedThinkingBlock{Type: "redacted_thinking", Data: "ZGF0YQ=="}},
		{body: textBlock{Type: "text", Text: "Tab\there, quote \" and \\ and \x01 and bad \xff utf-8"}},
		{body: toolUseBlock{Type: "tool_use", ID: "toolu_01", Name: "get_weather", Input: json.RawMessage(`{ "city": "Paris",
			"units": ["c"] }`), Caller: caller{Type: "direct"}}},
		{body: toolUseBlock{Type: "tool_use", ID: "toolu_02", Name: "noop", Input: json.RawMessage(`{}`), Caller: caller{Type: "direct"}}},
	}
	full := messageBody{ID: "msg_01", Type: "message", Role: "assistant", Model: "claude-sonnet-4-5",
		Content: appendBlocks(nil, blocks), StopReason: &stop, StopSequence: &seq,
		Usage: fullUsage(2000, 40, cacheUse{read: 1024, created5m: 512, created1h: 128})}
	bare := messageBody{ID: "msg_02", Type: "message", Role: "assistant", Model: "m",
		Content: appendBlocks(nil, []block{{body: textBlock{Type: "text"}}}), StopReason: &stop,
		Usage: usage{InputTokens: 1, OutputTokens: 1}}
	return []messageBody{full, bare}
}

// TestMessageBodyAsTheLibraryWritesIt: the hand-written body and content
// are byte for byte what encoding/json writes for the same structs.
func TestMessageBodyAsTheLibraryWritesIt(t *testing.T) {
	for i, m := range renderCases() {
		var blocks []any
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			t.Fatalf("case %d: content is not JSON: %v\n%s", i, err, m.Content)
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendMessage(nil, &m); string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// The content array against the library's encoding of the blocks.
	for _, b := range []block{thinking("a <b>"), {body: textBlock{Type: "text", Text: "x\u2029"}}} {
		want, _ := json.Marshal([]any{b.body})
		if got := appendBlocks(nil, []block{b}); string(got) != string(want) {
			t.Errorf("block:\n got %s\nwant %s", got, want)
		}
	}
}

func BenchmarkMessageBody(b *testing.B) {
	m := renderCases()[0]
	blocks := []block{thinking("The user wants the weather."), {body: toolUseBlock{Type: "tool_use", ID: "toolu_01",
		Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`), Caller: caller{Type: "direct"}}}}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Content = appendBlocks(make([]byte, 0, 512), blocks)
			_ = appendMessage(make([]byte, 0, 1024), &m)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			content := make([]any, len(blocks))
			for i := range blocks {
				content[i] = blocks[i].body
			}
			m.Content, _ = json.Marshal(content)
			_, _ = json.Marshal(m)
		}
	})
}

// TestStreamEventsAsTheLibraryWritesThem: each hand-written event is byte
// for byte what encoding/json writes for the event structs.
func TestStreamEventsAsTheLibraryWritesThem(t *testing.T) {
	same := func(what string, got []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	starts := renderCases()
	starts = append(starts, starts[1])
	starts[2].Model = "bad \xff model"
	for _, m := range starts {
		m.Content, m.StopReason, m.StopSequence = json.RawMessage(`[]`), nil, nil
		same("message_start", appendMessageStart(nil, &m), messageStart{Type: "message_start", Message: m})
	}
	odd := "a <b> & \"c\"\u2028\x01\xff"
	blocks := []block{
		thinking(odd),
		{kind: "redacted_thinking", body: redactedThinkingBlock{Type: "redacted_thinking", Data: "ZGF0YQ=="}},
		{kind: "text", text: odd},
		{kind: "tool_use", id: "toolu_<1>", name: "get_&weather", args: `{"city":"<Paris>"}`},
		{kind: "tool_use", id: "toolu_\xff", name: "bad\xfe", args: `{}`},
		{kind: "other"},
	}
	for i, b := range blocks {
		// The block as the stream opened it before it was written by hand.
		var first any
		switch b.kind {
		case "thinking":
			first = thinkingBlock{Type: "thinking"}
		case "redacted_thinking":
			first = b.body
		case "text":
			first = textBlock{Type: "text"}
		case "tool_use":
			first = toolUseBlock{Type: "tool_use", ID: b.id, Name: b.name, Input: json.RawMessage("{}"), Caller: caller{Type: "direct"}}
		}
		same("content_block_start "+b.kind, appendBlockStart(nil, i, &b), blockStart{Type: "content_block_start", Index: i, ContentBlock: first})
		same("content_block_stop", appendBlockStop(nil, i), blockStop{Type: "content_block_stop", Index: i})
	}
	for _, d := range []struct {
		typ, field string
		v          any
	}{
		{"thinking_delta", "thinking", thinkingDelta{Type: "thinking_delta", Thinking: odd}},
		{"signature_delta", "signature", signatureDelta{Type: "signature_delta", Signature: odd}},
		{"text_delta", "text", textDelta{Type: "text_delta", Text: odd}},
		{"input_json_delta", "partial_json", jsonDelta{Type: "input_json_delta", PartialJSON: `{"city":"<Par`}},
		{"input_json_delta", "partial_json", jsonDelta{Type: "input_json_delta", PartialJSON: ""}},
	} {
		value := reflect.ValueOf(d.v).Field(1).String()
		same(d.typ, appendDelta(nil, 3, d.typ, d.field, value), blockDelta{Type: "content_block_delta", Index: 3, Delta: d.v})
	}
	seq, badSeq := "END <now>", "END \xff"
	for _, m := range []messageDelta{
		{Type: "message_delta", Delta: stopDelta{StopReason: "end_turn"}, Usage: deltaUsage{InputTokens: 10, OutputTokens: 3}},
		{Type: "message_delta", Delta: stopDelta{StopReason: "stop_sequence", StopSequence: &seq},
			Usage: deltaUsage{InputTokens: 1, CacheCreationInputTokens: 2, CacheReadInputTokens: 3, OutputTokens: 4}},
		{Type: "message_delta", Delta: stopDelta{StopReason: "stop_sequence", StopSequence: &badSeq}},
		{Type: "message_delta", Delta: stopDelta{StopReason: "end_turn", StopDetails: map[string]string{"type": "x"}}},
	} {
		same("message_delta", appendMessageDelta(nil, &m), m)
	}
	same("ping", pingData, typed{Type: "ping"})
	same("message_stop", messageStopData, typed{Type: "message_stop"})
}

// TestArgumentsAsTheLibraryWritesThem: a call's input is byte for byte
// what json.Marshal writes for its arguments, or {} where it fails.
func TestArgumentsAsTheLibraryWritesThem(t *testing.T) {
	cases := []map[string]any{
		nil,
		{},
		{"city": "Paris", "units": "celsius"},
		{"b": true, "a": false, "n": nil, "z": "<&>\u2028\u2029\x7f\t\"\\é"},
		{"f": 1.0, "g": -0.0, "h": 1e21, "i": 1e20, "j": 1e-6, "k": 1e-7, "l": 123456789.125, "m": 5e-324, "n": 1.7976931348623157e308, "o": 0.1},
		{"ints": []any{1, int64(-2), 3.5}, "nested": map[string]any{"y": []any{}, "x": map[string]any{}, "w": []any(nil), "v": map[string]any(nil)}},
		{"k1": 1.0, "k10": 2.0, "k2": 3.0, "K": 4.0, "_": 5.0, "é": 6.0, "<": 7.0, "a\"b": 8.0, "k3": 9.0, "k4": 0.0, "k5": 1.0},
		{"num": json.Number("12")},
		{"nan": math.NaN()},
		{"inf": []any{math.Inf(1)}},
		{"bad": "x\xffy"},
		{"bad\xfe": 1.0},
		{"u": uint8(7), "s": []string{"a"}},
	}
	for _, args := range cases {
		want, err := json.Marshal(args)
		if err != nil || args == nil {
			want = []byte("{}")
		}
		if got := callInput(args); string(got) != string(want) {
			t.Errorf("%#v:\n got %s\nwant %s", args, got, want)
		}
	}
}

// FuzzArguments holds callInput to json.Marshal for any object a JSON
// text decodes to.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[true,null,"x<y"],"c":{"d":1e-9,"e":"\u2028"}}`, `{"z":1e300,"y":-0.0001,"x":[[],{}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var args map[string]any
		if json.Unmarshal([]byte(text), &args) != nil {
			return
		}
		want, err := json.Marshal(args)
		if err != nil || args == nil {
			want = []byte("{}")
		}
		if got := callInput(args); string(got) != string(want) {
			t.Fatalf("%s:\n got %s\nwant %s", text, got, want)
		}
	})
}

// BenchmarkStreamEvents: a streamed text answer's events (start, block
// start, three deltas, block stop, message delta) by hand and by the
// library; the hand-written form is kept for being at least 2× faster.
func BenchmarkStreamEvents(b *testing.B) {
	m := renderCases()[1]
	m.Content, m.StopReason, m.StopSequence = json.RawMessage(`[]`), nil, nil
	text := block{kind: "text", text: "Here is what the tools returned"}
	words := []string{"Here is ", "what the tools ", "returned"}
	delta := messageDelta{Type: "message_delta", Delta: stopDelta{StopReason: "end_turn"}, Usage: deltaUsage{InputTokens: 10, OutputTokens: 3}}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			buf = appendMessageStart(buf[:0], &m)
			buf = appendBlockStart(buf[:0], 0, &text)
			for _, w := range words {
				buf = appendDelta(buf[:0], 0, "text_delta", "text", w)
			}
			buf = appendBlockStop(buf[:0], 0)
			buf = appendMessageDelta(buf[:0], &delta)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(messageStart{Type: "message_start", Message: m})
			_, _ = json.Marshal(blockStart{Type: "content_block_start", Index: 0, ContentBlock: textBlock{Type: "text"}})
			for _, w := range words {
				_, _ = json.Marshal(blockDelta{Type: "content_block_delta", Index: 0, Delta: textDelta{Type: "text_delta", Text: w}})
			}
			_, _ = json.Marshal(blockStop{Type: "content_block_stop", Index: 0})
			_, _ = json.Marshal(delta)
		}
	})
}

// BenchmarkCallInput: a synthesized call's input by hand and by
// json.Marshal.
func BenchmarkCallInput(b *testing.B) {
	args := map[string]any{"city": "Paris", "units": "celsius", "days": 3.0, "detailed": true}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = callInput(args)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(args)
		}
	})
}

package anthropic

import (
	"encoding/json"
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

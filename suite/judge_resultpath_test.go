package suite

import "testing"

func TestResultPaths(t *testing.T) {
	for _, c := range []struct {
		name   string
		find   func([]byte, string, string) string
		body   string
		id, fn string
		want   string
	}{
		{"chat", chatResultPath, `{"messages":[{"role":"user"},{"role":"assistant"},{"role":"tool","tool_call_id":"a"},{"role":"tool","tool_call_id":"b"}]}`, "b", "", "messages.3"},
		{"chat absent", chatResultPath, `{"messages":[{"role":"tool","tool_call_id":"a"}]}`, "z", "", ""},
		{"responses", responsesResultPath, `{"input":[{"type":"function_call","call_id":"a"},{"type":"function_call_output","call_id":"a"}]}`, "a", "", "input.1"},
		{"anthropic", anthropicResultPath, `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t"}]},{"role":"user","content":[{"type":"text"},{"type":"tool_result","tool_use_id":"t"}]}]}`, "t", "", "messages.1.content.1"},
		{"gemini by id", geminiResultPath, `{"contents":[{"parts":[{"functionCall":{"name":"f","id":"x"}}]},{"parts":[{"functionResponse":{"name":"f","id":"y"}},{"functionResponse":{"name":"f","id":"x"}}]}]}`, "x", "f", "contents.1.parts.1"},
		{"gemini by name", geminiResultPath, `{"contents":[{"parts":[{"functionResponse":{"name":"g"}},{"functionResponse":{"name":"f"}}]}]}`, "", "f", "contents.0.parts.1"},
	} {
		if got := c.find([]byte(c.body), c.id, c.fn); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

package anthropic

import "testing"

func TestResultPath(t *testing.T) {
	for _, c := range []struct {
		name   string
		body   string
		id, fn string
		want   string
	}{
		{"block", `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t"}]},{"role":"user","content":[{"type":"text"},{"type":"tool_result","tool_use_id":"t"}]}]}`, "t", "", "messages.1.content.1"},
	} {
		if got := resultPath([]byte(c.body), c.id, c.fn); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

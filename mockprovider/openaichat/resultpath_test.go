package openaichat

import "testing"

func TestResultPath(t *testing.T) {
	for _, c := range []struct {
		name   string
		body   string
		id, fn string
		want   string
	}{
		{"latest of two", `{"messages":[{"role":"user"},{"role":"assistant"},{"role":"tool","tool_call_id":"a"},{"role":"tool","tool_call_id":"b"}]}`, "b", "", "messages.3"},
		{"absent", `{"messages":[{"role":"tool","tool_call_id":"a"}]}`, "z", "", ""},
	} {
		if got := resultPath([]byte(c.body), c.id, c.fn); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

package openairesp

import "testing"

func TestResultPath(t *testing.T) {
	for _, c := range []struct {
		name   string
		body   string
		id, fn string
		want   string
	}{
		{"output item", `{"input":[{"type":"function_call","call_id":"a"},{"type":"function_call_output","call_id":"a"}]}`, "a", "", "input.1"},
	} {
		if got := resultPath([]byte(c.body), c.id, c.fn); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

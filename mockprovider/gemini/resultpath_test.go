package gemini

import "testing"

func TestResultPath(t *testing.T) {
	for _, c := range []struct {
		name   string
		body   string
		id, fn string
		want   string
	}{
		{"by id", `{"contents":[{"parts":[{"functionCall":{"name":"f","id":"x"}}]},{"parts":[{"functionResponse":{"name":"f","id":"y"}},{"functionResponse":{"name":"f","id":"x"}}]}]}`, "x", "f", "contents.1.parts.1"},
		{"by name", `{"contents":[{"parts":[{"functionResponse":{"name":"g"}},{"functionResponse":{"name":"f"}}]}]}`, "", "f", "contents.0.parts.1"},
	} {
		if got := resultPath([]byte(c.body), c.id, c.fn); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

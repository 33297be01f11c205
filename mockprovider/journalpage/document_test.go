package journalpage

import "testing"

func TestClippedBodyShowsAsText(t *testing.T) {
	if d := toDocument([]byte(`{"messages":[`)); d.Raw == "" || d.Lines != nil {
		t.Errorf("clipped body: %+v", d)
	}
}

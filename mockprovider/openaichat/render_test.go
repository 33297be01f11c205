package openaichat

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// TestCompletionInvalidUTF8: a scripted text that is not valid UTF-8 is
// written with replacement characters, still valid JSON.
func TestCompletionInvalidUTF8(t *testing.T) {
	o := &output{HasText: true, Text: "bad \xff"}
	got := encodeCompletion(o)
	if !jsontext.Value(got).IsValid() {
		t.Fatalf("invalid UTF-8 text gave invalid JSON: %s", got)
	}
	var body completion
	if err := json.Unmarshal(got, &body); err != nil || body.Choices[0].Message.Content == nil || *body.Choices[0].Message.Content != "bad \ufffd" {
		t.Errorf("text written as %s", got)
	}
}

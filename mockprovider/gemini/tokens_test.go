package gemini

import (
	"encoding/json"
	"os"
	"testing"
)

// TestPromptTokensMatchesMarshal pins the counted length to the length
// of json.Marshal's encoding, which the usage numbers were built on.
func TestPromptTokensMatchesMarshal(t *testing.T) {
	for _, name := range []string{"gemini.call.json", "gemini.result.json"} {
		body, err := os.ReadFile("../benchmarks/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		req, aerr := decodeBody(body)
		if aerr != nil {
			t.Fatalf("%s: %v", name, aerr.Message)
		}
		for _, r := range []*Request{req, {}} {
			b, _ := json.Marshal(struct {
				C []Content `json:"c"`
				S *Content  `json:"s"`
				T []Tool    `json:"t"`
			}{r.Contents, r.SystemInstruction, r.Tools})
			if got, want := promptTokens(r), tokens(len(b)); got != want {
				t.Errorf("%s: promptTokens = %d, want %d", name, got, want)
			}
		}
	}
}

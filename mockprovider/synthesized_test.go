package mockprovider_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
)

// A session keeps what synthesis made of a tool's schema (model.Memo):
// every later call it answers carries the arguments a fresh session's
// first answer carries, and the synthesis notes with them.
func TestKeptSynthesisAnswersAsFreshSynthesis(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	inputOf := func(key, schema string) (string, int) {
		t.Helper()
		code, body := postWithin(t, 5*time.Second, ts.URL+"/v1/messages", anthropicHeaders(key), toolRequest(schema, false))
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		var m struct {
			Content []struct {
				Type  string          `json:"type"`
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Content {
			if c.Type == "tool_use" {
				j := ts.Journal(key)
				return string(c.Input), len(j[len(j)-1].Notes)
			}
		}
		t.Fatalf("no call in %s", body)
		return "", 0
	}
	for i, schema := range []string{
		`{"type":"object","properties":{"city":{"type":"string","minLength":3},"units":{"type":"string","enum":["c","f"]},"n":{"type":"integer","minimum":7}},"required":["city","units","n"]}`,
		`{"type":"object","properties":{"xs":{"type":"array","minItems":3,"items":{"type":"object","properties":{"id":{"type":"string","format":"uuid"}},"required":["id"]}}},"required":["xs"]}`,
		`{"type":"object","properties":{"p":{"type":"string","minLength":100000}},"required":["p"]}`,
	} {
		want, wantNotes := inputOf(fmt.Sprintf("fresh-%d", i), schema)
		for round := range 3 {
			if got, notes := inputOf("kept", schema); got != want || notes != wantNotes {
				t.Fatalf("schema %d, round %d: input %.200s with %d notes; a fresh session's: %.200s with %d", i, round, got, notes, want, wantNotes)
			}
		}
	}
}

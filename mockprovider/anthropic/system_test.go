package anthropic

import (
	"strings"
	"testing"
)

// TestSystemMessagesChangeTools: tool_removal withdraws a declared tool,
// a tool_addition defining one inline offers it (a later definition of
// the same name replaces the earlier), and the request's own tools are
// left as sent.
func TestSystemMessagesChangeTools(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","max_tokens":256,` + caseTools + `,"messages":[` +
		`{"role":"user","content":"Hi."},` +
		`{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"get_weather"}},` +
		`{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"get_time","description":"old","input_schema":{"type":"object"}}}},` +
		`{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"get_time","description":"new","input_schema":{"type":"object"}}}}]}]}`
	req, aerr := decodeRequest([]byte(body), false, false)
	if aerr != nil {
		t.Fatal(aerr)
	}
	_, tools := req.instructions()
	if len(tools) != 1 || tools[0].Name != "get_time" || tools[0].Description != "new" {
		t.Fatalf("tools %+v", tools)
	}
	if len(req.Tools) != 1 || req.Tools[0].Name != "get_weather" {
		t.Fatalf("the request's tools were edited: %+v", req.Tools)
	}
}

// TestManySystemMessages: a body of many system messages, each hidden by
// a later user message, is read in one pass (a quadratic reading of this
// body would be 10^8 steps; the test guards against a hang, not a time).
func TestManySystemMessages(t *testing.T) {
	const n = 10000
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Hi."}`)
	for range n {
		b.WriteString(`,{"role":"system","content":"Be brief.","clear_at":"next_user_message"}`)
	}
	b.WriteString(`,{"role":"system","content":"Answer in French."},{"role":"user","content":"Hello?"}]}`)
	req, aerr := decodeRequest([]byte(b.String()), false, false)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if system, _ := req.instructions(); system != "Answer in French." {
		t.Fatalf("system %q", system)
	}
}

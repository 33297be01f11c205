package anthropic_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// TestStrictWireModel sends requests the typed wire model refuses, each
// answered with the API's status, envelope, exact text and rule header,
// and the same request corrected, answered 200.
func TestStrictWireModel(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	// req wraps extra top-level members and one message list.
	req := func(extra, messages string) string {
		return `{"model":"claude-haiku-4-5","max_tokens":64,` + extra + `"messages":` + messages + `}`
	}
	const ask = `[{"role":"user","content":"Hi"}]`
	call := func(block string) string {
		return `[{"role":"user","content":"Hi"},{"role":"assistant","content":[` + block + `]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]`
	}
	const tool = `"tools":[{"name":"f","input_schema":{"type":"object"}}],`
	cases := []struct {
		name, bad, good, rule, want string
	}{
		{"unknown top-level member", req(`"foo":1,`, ask), req(``, ask), anthropic.RuleKnownFields,
			"foo: Extra inputs are not permitted"},
		{"unknown member in a message", req(``, `[{"role":"user","content":"Hi","foo":1}]`), req(``, ask), anthropic.RuleKnownFields,
			"messages.0.foo: Extra inputs are not permitted"},
		{"unknown member in a tool_use block", req(tool, call(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"index":0}`)),
			req(tool, call(`{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`)), anthropic.RuleKnownFields,
			"messages.1.content.0.tool_use.index: Extra inputs are not permitted"},
		{"unknown member in a tool", req(`"tools":[{"name":"f","input_schema":{"type":"object"},"parameters":{}}],`, ask), req(tool, ask),
			anthropic.RuleKnownFields, "tools.0.custom.parameters: Extra inputs are not permitted"},
		{"unknown member in an image source", req(``, `[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png","detail":"high"}}]}]`),
			req(``, `[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]`),
			anthropic.RuleKnownFields, "messages.0.content.0.image.source.url.detail: Extra inputs are not permitted"},
		{"output_config.format without its type", req(`"output_config":{"format":{"schema":{"type":"object","additionalProperties":false}}},`, ask),
			req(`"output_config":{"format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}},`, ask),
			anthropic.RuleRequiredFields, "output_config.format.type: Field required"},
		{"output_config.format of another type", req(`"output_config":{"format":{"type":"json_object","schema":{"type":"object","additionalProperties":false}}},`, ask),
			req(`"output_config":{"format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}},`, ask),
			anthropic.RuleFieldTypes, "output_config.format.type: Input should be 'json_schema'"},
		{"output_config.format without its schema", req(`"output_config":{"format":{"type":"json_schema"}},`, ask),
			req(`"output_config":{"format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}},`, ask),
			anthropic.RuleRequiredFields, "output_config.format.schema: Field required"},
		{"output_format schema a string", req(`"output_format":{"type":"json_schema","schema":"{}"},`, ask),
			req(`"output_format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false}},`, ask),
			anthropic.RuleFieldTypes, "output_format.schema: Input should be a valid dictionary or object to extract fields from"},
		{"model a number", `{"model":7,"max_tokens":64,"messages":` + ask + `}`, req(``, ask), anthropic.RuleFieldTypes,
			"model: Input should be a valid string"},
		{"max_tokens a string", `{"model":"claude-haiku-4-5","max_tokens":"64","messages":` + ask + `}`, req(``, ask), anthropic.RuleFieldTypes,
			"max_tokens: Input should be a valid integer"},
		{"temperature a string", req(`"temperature":"hot",`, ask), req(`"temperature":0.2,`, ask), anthropic.RuleFieldTypes,
			"temperature: Input should be a valid number"},
		{"top_k a fraction", req(`"top_k":1.5,`, ask), req(`"top_k":5,`, ask), anthropic.RuleFieldTypes,
			"top_k: Input should be a valid integer, got a number with a fractional part"},
		{"stream a string", req(`"stream":"yes",`, ask), req(`"stream":false,`, ask), anthropic.RuleFieldTypes,
			"stream: Input should be a valid boolean"},
		{"stop_sequences a string", req(`"stop_sequences":"END",`, ask), req(`"stop_sequences":["END"],`, ask), anthropic.RuleFieldTypes,
			"stop_sequences: Input should be a valid list"},
		{"metadata a string", req(`"metadata":"u1",`, ask), req(`"metadata":{"user_id":"u1"},`, ask), anthropic.RuleFieldTypes,
			"metadata: Input should be a valid dictionary or object to extract fields from"},
		{"metadata.user_id a number", req(`"metadata":{"user_id":1},`, ask), req(`"metadata":{"user_id":"u1"},`, ask), anthropic.RuleFieldTypes,
			"metadata.user_id: Input should be a valid string"},
		{"system block text a number", req(`"system":[{"type":"text","text":5}],`, ask), req(`"system":[{"type":"text","text":"Be brief."}],`, ask), anthropic.RuleFieldTypes,
			"system.0.text: Input should be a valid string"},
		{"message content a number", req(``, `[{"role":"user","content":5}]`), req(``, ask), anthropic.RuleFieldTypes,
			"messages.0.content: Input should be a valid list"},
		// Recorded from the real API (testdata/corpus/datadog-dd-trace-py.jsonl,
		// anthropic_completion_error.yaml#1).
		{"message a string", req(``, `["Invalid content"]`), req(``, ask), anthropic.RuleFieldTypes,
			"messages.0: Input does not match the expected shape."},
		{"content block a string", req(``, `[{"role":"user","content":["Hi"]}]`), req(``, ask), anthropic.RuleFieldTypes,
			"messages.0.content.0: Input should be a valid dictionary or object to extract fields from"},
		{"text block text a list", req(``, `[{"role":"user","content":[{"type":"text","text":["Hi"]}]}]`), req(``, ask), anthropic.RuleFieldTypes,
			"messages.0.content.0.text.text: Input should be a valid string"},
		{"cache_control ttl a number", req(``, `[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral","ttl":5}}]}]`),
			req(``, `[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral","ttl":"5m"}}]}]`), anthropic.RuleFieldTypes,
			"messages.0.content.0.text.cache_control.ttl: Input should be a valid string"},
		{"tool description a number", req(`"tools":[{"name":"f","description":1,"input_schema":{"type":"object"}}],`, ask), req(tool, ask), anthropic.RuleFieldTypes,
			"tools.0.custom.description: Input should be a valid string"},
		{"tool_choice disable_parallel_tool_use a string", req(tool+`"tool_choice":{"type":"auto","disable_parallel_tool_use":"yes"},`, ask),
			req(tool+`"tool_choice":{"type":"auto","disable_parallel_tool_use":true},`, ask), anthropic.RuleFieldTypes,
			"tool_choice.auto.disable_parallel_tool_use: Input should be a valid boolean"},
		{"thinking budget a string", `{"model":"claude-haiku-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":"2048"},"messages":` + ask + `}`,
			`{"model":"claude-haiku-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},"messages":` + ask + `}`, anthropic.RuleFieldTypes,
			"thinking.enabled.budget_tokens: Input should be a valid integer"},
		{"unknown block type", req(``, `[{"role":"user","content":[{"type":"video","url":"x"}]}]`), req(``, ask), anthropic.RuleFieldTypes,
			"messages.0.content.0: Input tag 'video' found using 'type' does not match any of the expected tags: "},
		{"number out of range", req(`"temperature":1e999999,`, ask), req(`"temperature":1,`, ask), anthropic.RuleFieldTypes,
			"temperature: Input should be a finite number"},
		{"duplicate member", `{"model":"claude-haiku-4-5","model":"claude-haiku-4-5","max_tokens":64,"messages":` + ask + `}`, req(``, ask), anthropic.RuleFieldTypes,
			"The request body is not valid JSON: duplicate key 'model': line 1 column "},
		{"invalid UTF-8", req(``, "[{\"role\":\"user\",\"content\":\"H\xffi\"}]"), req(``, ask), anthropic.RuleValidJSON,
			"The request body is not valid JSON: 'utf-8' codec can't decode byte 0xff in position 83: invalid start byte"},
		{"tool name with a space", req(`"tools":[{"name":"get weather","input_schema":{"type":"object"}}],`, ask), req(tool, ask), anthropic.RuleToolNamePattern,
			"tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"},
		{"tool name too long", req(`"tools":[{"name":"`+strings.Repeat("a", 129)+`","input_schema":{"type":"object"}}],`, ask), req(tool, ask), anthropic.RuleToolNamePattern,
			"tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"},
		{"custom tool named like a server tool", req(`"tools":[{"type":"web_search_20250305","name":"web_search"},{"name":"web_search","input_schema":{"type":"object"}}],`, ask),
			req(`"tools":[{"type":"web_search_20250305","name":"web_search"},{"name":"search_notes","input_schema":{"type":"object"}}],`, ask), anthropic.RuleToolNamesUnique,
			"tools: Tool names must be unique."},
		{"empty text block", req(``, `[{"role":"user","content":[{"type":"text","text":""}]}]`), req(``, ask), anthropic.RuleNonEmptyTextBlock,
			"messages: text content blocks must be non-empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := post(t, ts, nil, c.bad)
			assertEnvelope(t, status, h, body, 400, "invalid_request_error", c.want)
			if got := h.Get(wire.RuleHeader); got != c.rule {
				t.Fatalf("X-Toolwire-Rule %q, want %q", got, c.rule)
			}
			if status, _, body := post(t, ts, nil, c.good); status != 200 {
				t.Fatalf("corrected request answered %d %s", status, body)
			}
		})
	}
}

// TestLenientJournalsUnknownMembers: --lenient serves a body with unknown
// members and journals each under the known-fields rule.
func TestLenientJournalsUnknownMembers(t *testing.T) {
	ts := newServer(t, mockprovider.Options{Rules: lenientOptions()})
	body := `{"model":"claude-haiku-4-5","max_tokens":64,"foo":1,"messages":[{"role":"user","content":[{"type":"text","text":"Hi","bar":2}]}]}`
	status, _, resp := post(t, ts, httpHeaders("lenient-unknown"), body)
	if status != 200 {
		t.Fatalf("lenient answered %d %s", status, resp)
	}
	var paths []string
	for _, v := range ts.Violations("lenient-unknown") {
		if v.Rule == anthropic.RuleKnownFields {
			paths = append(paths, v.Message)
		}
	}
	want := []string{"foo: Extra inputs are not permitted", "messages.0.content.0.text.bar: Extra inputs are not permitted"}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Fatalf("journaled %q, want %q", paths, want)
	}
}

func lenientOptions() rules.Options {
	o := rules.DefaultOptions()
	o.Lenient = true
	return o
}

func httpHeaders(key string) http.Header {
	return http.Header{"X-Api-Key": {key}, "Anthropic-Version": {"2023-06-01"}, "Content-Type": {"application/json"}}
}

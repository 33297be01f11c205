package openairesp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// strictMsgs is a one-message input.
const strictMsgs = `[{"role":"user","content":"Hi"}]`

// strictCases are requests the API rejects while decoding, each with the
// same request corrected (TestStrictWireModel; the memo tests decode them
// too).
var strictCases = []struct {
	name, bad, good string
	rule, param     string
	code            any
	message         string
}{
	{"unknown top-level", `{"model":"gpt-4.1","input":"Hi","foo":1}`, `{"model":"gpt-4.1","input":"Hi"}`,
		openairesp.RuleKnownFields, "foo", "unknown_parameter", "Unknown parameter: 'foo'."},
	{"unknown on an item", `{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello","metadata":{}}]}`,
		`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}`,
		openairesp.RuleKnownFields, "input[1].metadata", "unknown_parameter", "Unknown parameter: 'input[1].metadata'."},
	{"unknown in a content part", `{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi","lang":"en"}]}]}`,
		`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]}]}`,
		openairesp.RuleKnownFields, "input[0].content[0].lang", "unknown_parameter", "Unknown parameter: 'input[0].content[0].lang'."},
	{"unknown in a tool", `{"model":"gpt-4.1","input":"Hi","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}},"function":{}}]}`,
		`{"model":"gpt-4.1","input":"Hi","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}]}`,
		openairesp.RuleKnownFields, "tools[0].function", "unknown_parameter", "Unknown parameter: 'tools[0].function'."},
	{"unknown in reasoning", `{"model":"gpt-5","input":"Hi","reasoning":{"effort":"low","budget":5}}`, `{"model":"gpt-5","input":"Hi","reasoning":{"effort":"low"}}`,
		openairesp.RuleKnownFields, "reasoning.budget", "unknown_parameter", "Unknown parameter: 'reasoning.budget'."},
	{"content as integer", `{"model":"gpt-4.1","input":[{"role":"user","content":0}]}`, `{"model":"gpt-4.1","input":[{"role":"user","content":"0"}]}`,
		openairesp.RuleFieldTypes, "input[0].content", "invalid_type", "Invalid type for 'input[0].content': expected one of a string or array of input items, but got an integer instead."},
	{"content as boolean", `{"model":"gpt-4.1","input":[{"role":"user","content":true}]}`, `{"model":"gpt-4.1","input":[{"role":"user","content":"true"}]}`,
		openairesp.RuleFieldTypes, "input[0].content", "invalid_type", "Invalid type for 'input[0].content': expected one of a string or array of input items, but got a boolean instead."},
	{"content as object", `{"model":"gpt-4.1","input":[{"role":"user","content":{}}]}`, `{"model":"gpt-4.1","input":[{"role":"user","content":[]}]}`,
		openairesp.RuleFieldTypes, "input[0].content", "invalid_type", "Invalid type for 'input[0].content': expected one of a string or array of input items, but got an object instead."},
	{"input as integer", `{"model":"gpt-4.1","input":5}`, `{"model":"gpt-4.1","input":"5"}`,
		openairesp.RuleFieldTypes, "input", "invalid_type", "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead."},
	{"model as integer", `{"model":4,"input":"Hi"}`, `{"model":"gpt-4.1","input":"Hi"}`,
		openairesp.RuleFieldTypes, "model", "invalid_type", "Invalid type for 'model': expected a string, but got an integer instead."},
	{"temperature as string", `{"model":"gpt-4.1","input":"Hi","temperature":"x"}`, `{"model":"gpt-4.1","input":"Hi","temperature":0.5}`,
		openairesp.RuleFieldTypes, "temperature", "invalid_type", "Invalid type for 'temperature': expected a decimal, but got a string instead."},
	{"max_output_tokens as decimal", `{"model":"gpt-4.1","input":"Hi","max_output_tokens":1.5}`, `{"model":"gpt-4.1","input":"Hi","max_output_tokens":100}`,
		openairesp.RuleFieldTypes, "max_output_tokens", "invalid_type", "Invalid type for 'max_output_tokens': expected an integer, but got a decimal instead."},
	{"stream as string", `{"model":"gpt-4.1","input":"Hi","stream":"yes"}`, `{"model":"gpt-4.1","input":"Hi","stream":false}`,
		openairesp.RuleFieldTypes, "stream", "invalid_type", "Invalid type for 'stream': expected a boolean, but got a string instead."},
	{"tools as object", `{"model":"gpt-4.1","input":"Hi","tools":{}}`, `{"model":"gpt-4.1","input":"Hi","tools":[]}`,
		openairesp.RuleFieldTypes, "tools", "invalid_type", "Invalid type for 'tools': expected an array, but got an object instead."},
	{"tool name as decimal", `{"model":"gpt-4.1","input":"Hi","tools":[{"type":"function","name":1.5}]}`, `{"model":"gpt-4.1","input":"Hi","tools":[{"type":"function","name":"f"}]}`,
		openairesp.RuleFieldTypes, "tools[0].name", "invalid_type", "Invalid type for 'tools[0].name': expected a string, but got a decimal instead."},
	{"call_id as integer", `{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"type":"function_call","call_id":7,"name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"x"}]}`,
		`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"x"}]}`,
		openairesp.RuleFieldTypes, "input[1].call_id", "invalid_type", "Invalid type for 'input[1].call_id': expected a string, but got an integer instead."},
	{"output as integer", `{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":5}]}`,
		`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"5"}]}`,
		openairesp.RuleFieldTypes, "input[2].output", "invalid_type", "Invalid type for 'input[2].output': expected one of a string or an array, but got an integer instead."},
	{"metadata value as integer", `{"model":"gpt-4.1","input":"Hi","metadata":{"a":1}}`, `{"model":"gpt-4.1","input":"Hi","metadata":{"a":"1"}}`,
		openairesp.RuleFieldTypes, "metadata.a", "invalid_type", "Invalid type for 'metadata.a': expected a string, but got an integer instead."},
	{"include as string", `{"model":"gpt-4.1","input":"Hi","include":"reasoning.encrypted_content"}`, `{"model":"gpt-4.1","input":"Hi","include":["reasoning.encrypted_content"]}`,
		openairesp.RuleFieldTypes, "include", "invalid_type", "Invalid type for 'include': expected an array, but got a string instead."},
	{"unsupported content part", `{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}`, `{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]}]}`,
		openairesp.RuleFieldTypes, "input[0].content[0]", "invalid_value", "Invalid value: 'text'. Supported values are: 'input_text', 'input_image', 'input_file', 'output_text', and 'refusal'."},
	{"temperature out of range", `{"model":"gpt-4.1","input":"Hi","temperature":1e999999}`, `{"model":"gpt-4.1","input":"Hi","temperature":1}`,
		openairesp.RuleFieldTypes, "temperature", "decimal_above_max_value", "Invalid 'temperature': decimal above maximum value. Expected a value <= 1.7976931348623157e+308, but got 1e999999 instead."},
	{"max_output_tokens out of range", `{"model":"gpt-4.1","input":"Hi","max_output_tokens":99999999999999999999}`, `{"model":"gpt-4.1","input":"Hi","max_output_tokens":99}`,
		openairesp.RuleFieldTypes, "max_output_tokens", "integer_above_max_value", "Invalid 'max_output_tokens': integer above maximum value. Expected a value <= 9223372036854775807, but got 99999999999999999999 instead."},
	{"invalid UTF-8", "{\"model\":\"gpt-4.1\",\"input\":" + strings.Replace(strictMsgs, "Hi", "H\xffi", 1) + "}", `{"model":"gpt-4.1","input":` + strictMsgs + `}`,
		openairesp.RuleValidJSON, "", nil, "We could not parse the JSON body of your request."},
}

// TestStrictWireModel sends, through the real server, requests the API
// rejects while decoding (unknown members, wrong types, numbers out of
// range, invalid UTF-8), checks each answer's status, envelope, exact
// text, param, code and X-Toolwire-Rule, then sends the same request
// corrected and expects a 200.
func TestStrictWireModel(t *testing.T) {
	cases := strictCases
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := post(t, ts.URL+openairesp.Path, "sk-strict", []byte(c.bad), nil)
			if status != http.StatusBadRequest || h.Get(wire.RuleHeader) != c.rule {
				t.Fatalf("bad: %d %s = %q, want 400 %s: %s", status, wire.RuleHeader, h.Get(wire.RuleHeader), c.rule, body)
			}
			checkEnvelope(t, body)
			if got := gjson.GetBytes(body, "error.message").String(); !strings.HasPrefix(got, c.message) {
				t.Errorf("message:\n got %s\nwant %s", got, c.message)
			}
			if gjson.GetBytes(body, "error.type").String() != "invalid_request_error" {
				t.Errorf("type: %s", body)
			}
			wantParam, wantCode := "null", "null"
			if c.param != "" {
				wantParam = `"` + c.param + `"`
			}
			if c.code != nil {
				wantCode = `"` + c.code.(string) + `"`
			}
			if p, cd := gjson.GetBytes(body, "error.param").Raw, gjson.GetBytes(body, "error.code").Raw; p != wantParam || cd != wantCode {
				t.Errorf("param %s code %s, want %s %s", p, cd, wantParam, wantCode)
			}
			if status, _, body := post(t, ts.URL+openairesp.Path, "sk-strict", []byte(c.good), nil); status != http.StatusOK {
				t.Fatalf("good: %d %s", status, body)
			}
		})
	}
	// The journal never keeps bytes that are not JSON.
	for _, e := range ts.Journal("sk-strict") {
		if e.Request != nil && !gjson.ValidBytes(e.Request) {
			t.Errorf("journaled request is not valid JSON: %q", e.Request)
		}
	}
}

// TestLenientJournalsUnknownMembers: with --lenient an unknown member is
// accepted and journaled under the known-fields rule.
func TestLenientJournalsUnknownMembers(t *testing.T) {
	opts := rules.DefaultOptions()
	opts.Lenient = true
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Rules: opts})
	status, _, body := post(t, ts.URL+openairesp.Path, "sk-lenient", []byte(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi","cache":true}],"foo":1}`), nil)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var paths []string
	for _, v := range ts.Violations("sk-lenient") {
		if v.Rule == openairesp.RuleKnownFields {
			paths = append(paths, v.Path)
		}
	}
	if strings.Join(paths, ",") != "foo,input[0].cache" && strings.Join(paths, ",") != "input[0].cache,foo" {
		t.Fatalf("journaled unknown members %q", paths)
	}
}

// A function tool that leaves strict unset is echoed with strict true
// when its schema meets strict mode and false when not; the session keeps
// each verdict by schema (strictVerdicts), and a later request that
// declares the same schemas, in another order, is echoed the same.
func TestStrictEchoKeptBySchema(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	const (
		meets = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
		fails = `{"type":"object","properties":{"city":{"type":"string"}}}`
	)
	tool := func(name, schema string) string {
		return `{"type":"function","name":"` + name + `","parameters":` + schema + `}`
	}
	bodies := []struct {
		tools string
		want  []bool
	}{
		{tool("a", meets) + "," + tool("b", fails), []bool{true, false}},
		{tool("b", fails) + "," + tool("a", meets), []bool{false, true}},
		{tool("a", meets) + "," + tool("b", fails), []bool{true, false}},
		{tool("c", fails) + "," + tool("d", fails) + "," + tool("e", meets), []bool{false, false, true}},
	}
	for i, b := range bodies {
		body := `{"model":"gpt-4.1","tools":[` + b.tools + `],"input":"hi"}`
		status, _, answer := post(t, ts.URL+openairesp.Path, "sk-strict-echo", []byte(body), nil)
		if status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, status, answer)
		}
		tools := gjson.GetBytes(answer, "tools").Array()
		if len(tools) != len(b.want) {
			t.Fatalf("request %d: tools echoed %s", i, gjson.GetBytes(answer, "tools").Raw)
		}
		for k, w := range b.want {
			if got := tools[k].Get("strict"); got.Type == gjson.Null || got.Bool() != w {
				t.Errorf("request %d, tool %d: strict %s, want %v", i, k, got.Raw, w)
			}
		}
	}
}

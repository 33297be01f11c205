package openaichat_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// strictBase is a valid request reaching every kind of object: parts,
// a replayed call, its tool message, a tool declaration, options.
const strictBase = `{"model":"gpt-4o-mini","temperature":0.5,"max_completion_tokens":64,"n":1,
 "stream":false,"stop":["END"],"metadata":{"run":"1"},"response_format":{"type":"text"},
 "tool_choice":"auto","parallel_tool_calls":true,
 "messages":[{"role":"system","content":"Be brief."},
  {"role":"user","content":[{"type":"text","text":"Weather?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}]},
  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
  {"role":"tool","tool_call_id":"call_1","content":"22"}],
 "tools":[{"type":"function","function":{"name":"get_weather","description":"d","strict":false,"parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`

// TestStrictDecoding sends each broken variant of strictBase through the
// server: the API's status, envelope, exact text, param, code and the
// X-Toolwire-Rule header; then strictBase itself must be answered 200.
func TestStrictDecoding(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	type want struct {
		rule, msg string
		param     any
		code      any
	}
	typeErr := func(param, expected, got string) want {
		return want{openaichat.RuleFieldTypes, "Invalid type for '" + param + "': expected " + expected + ", but got " + got + " instead.", param, "invalid_type"}
	}
	unknown := func(msg string) want { return want{openaichat.RuleKnownFields, msg, nil, nil} }
	cases := []struct {
		name     string
		old, new string // strictBase with old replaced by new
		want     want
	}{
		{"unknown top-level member", `"n":1,`, `"n":1,"foo":1,`, unknown("Unrecognized request argument supplied: foo")},
		{"unknown member in a tool declaration", `"description":"d",`, `"description":"d","foo":1,`,
			unknown("Additional properties are not allowed ('foo' was unexpected) - 'tools.0.function'")},
		{"unknown top-level member beside one in a message", `"n":1,`, `"n":1,"foo":1,"messages_extra":[],`,
			unknown("Unrecognized request argument supplied: foo")},
		{"model a number", `"model":"gpt-4o-mini"`, `"model":4`, typeErr("model", "a string", "an integer")},
		{"temperature a string", `"temperature":0.5`, `"temperature":"warm"`, typeErr("temperature", "a number", "a string")},
		{"n a boolean", `"n":1`, `"n":true`, typeErr("n", "an integer", "a boolean")},
		{"stream a string", `"stream":false`, `"stream":"no"`, typeErr("stream", "a boolean", "a string")},
		{"stop a number", `"stop":["END"]`, `"stop":7`, typeErr("stop", "one of a string or array of strings", "an integer")},
		{"metadata an array", `"metadata":{"run":"1"}`, `"metadata":["run"]`, typeErr("metadata", "an object", "an array")},
		{"messages an object", `"messages":[{"role":"system","content":"Be brief."},`, `"messages":{"role":"system"},"x":[{"role":"system","content":"Be brief."},`,
			typeErr("messages", "an array", "an object")},
		{"content a number", `"content":"Be brief."`, `"content":5`, typeErr("messages[0].content", "one of a string or array of objects", "an integer")},
		{"part text a number", `"text":"Weather?"`, `"text":1`, typeErr("messages[1].content[0].text", "a string", "an integer")},
		{"image_url a string", `"image_url":{"url":"https://example.com/a.png","detail":"low"}`, `"image_url":"https://example.com/a.png"`,
			typeErr("messages[1].content[1].image_url", "an object", "a string")},
		{"tool_calls an object", `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`,
			`"tool_calls":{"id":"call_1"}`, typeErr("messages[2].tool_calls", "an array", "an object")},
		{"call id a number", `"id":"call_1"`, `"id":1`, typeErr("messages[2].tool_calls[0].id", "a string", "an integer")},
		{"tool_call_id a boolean", `"tool_call_id":"call_1"`, `"tool_call_id":true`, typeErr("messages[3].tool_call_id", "a string", "a boolean")},
		{"strict a string", `"strict":false`, `"strict":"no"`, typeErr("tools[0].function.strict", "a boolean", "a string")},
		{"tool_choice a number", `"tool_choice":"auto"`, `"tool_choice":1`, typeErr("tool_choice", "one of a string or object", "an integer")},
		{"tool_choice unknown mode", `"tool_choice":"auto"`, `"tool_choice":"always"`,
			want{openaichat.RuleFieldTypes, "Invalid value: 'always'. Supported values are: 'none', 'auto', and 'required'.", "tool_choice", "invalid_value"}},
		{"tool_choice function without a name", `"tool_choice":"auto"`, `"tool_choice":{"type":"function","function":{}}`,
			want{openaichat.RuleFieldTypes, "Missing required parameter: 'tool_choice.function.name'.", "tool_choice.function.name", "missing_required_parameter"}},
		{"unknown part type", `{"type":"text","text":"Weather?"}`, `{"type":"video","text":"Weather?"}`,
			want{openaichat.RuleFieldTypes, "Invalid value: 'video'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.", "messages[1].content[0].type", "invalid_value"}},
		{"integer with a fraction", `"max_completion_tokens":64`, `"max_completion_tokens":64.5`, typeErr("max_completion_tokens", "an integer", "a decimal")},
		{"number out of range", `"temperature":0.5`, `"temperature":1e999999`,
			want{openaichat.RuleFieldTypes, "Invalid 'temperature': number out of range. Expected a finite number that fits the parameter, but got 1e999999 instead.", "temperature", "invalid_value"}},
		{"duplicate key", `"n":1,`, `"n":1,"n":2,`,
			want{openaichat.RuleFieldTypes, "Invalid 'n': duplicate key 'n'. Expected each key at most once in an object.", "n", "invalid_value"}},
		{"invalid UTF-8", `"Be brief."`, "\"Be brief\xff.\"", want{openaichat.RuleValidJSON, openaiwire.InvalidJSONMessage, nil, nil}},
		{"syntax error", `"n":1,`, `"n":1,,`, want{openaichat.RuleValidJSON, openaiwire.InvalidJSONMessage, nil, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(strictBase, c.old) {
				t.Fatalf("strictBase lacks %s", c.old)
			}
			bad := post(t, ts.URL, sessionKey(t), []byte(strings.Replace(strictBase, c.old, c.new, 1)), nil)
			if bad.Status != http.StatusBadRequest {
				t.Fatalf("status %d: %s", bad.Status, bad.Body)
			}
			e := envelope(t, bad.Body)
			if e.Message != c.want.msg || e.Param != c.want.param || e.Code != c.want.code || e.Type != openaiwire.InvalidRequest {
				t.Errorf("got  %q param %v code %v type %s\nwant %q param %v code %v", e.Message, e.Param, e.Code, e.Type, c.want.msg, c.want.param, c.want.code)
			}
			if got := bad.Header.Get(wire.RuleHeader); got != c.want.rule {
				t.Errorf("%s = %q, want %q", wire.RuleHeader, got, c.want.rule)
			}
		})
	}
	if good := post(t, ts.URL, sessionKey(t), []byte(strictBase), nil); good.Status != http.StatusOK {
		t.Fatalf("corrected request: status %d: %s", good.Status, good.Body)
	}
}

// TestMessageMembersJournaled: members inside a message that its role,
// part type or call does not define are taken, as the API takes them
// from gpt-4o on, and journaled as a message-members SHOULD in the API's
// old words; an unknown member elsewhere in the same body is still
// answered.
func TestMessageMembersJournaled(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	cases := []struct {
		name, old, new, want string
	}{
		{"unknown member in a message", `{"role":"system","content":"Be brief."}`, `{"role":"system","content":"Be brief.","foo":1}`,
			"Additional properties are not allowed ('foo' was unexpected) - 'messages.0'"},
		{"unknown member in a part", `{"type":"text","text":"Weather?"}`, `{"type":"text","text":"Weather?","foo":1}`,
			"Additional properties are not allowed ('foo' was unexpected) - 'messages.1.content.0'"},
		{"unknown member in a call's function", `"arguments":"{\"city\":\"Paris\"}"}`, `"arguments":"{\"city\":\"Paris\"}","foo":1}`,
			"Additional properties are not allowed ('foo' was unexpected) - 'messages.2.tool_calls.0.function'"},
		{"member of another role", `{"role":"system","content":"Be brief."}`, `{"role":"system","content":"Be brief.","tool_call_id":"call_1"}`,
			"Additional properties are not allowed ('tool_call_id' was unexpected) - 'messages.0'"},
		{"member of another part type", `{"type":"text","text":"Weather?"}`, `{"type":"text","text":"Weather?","image_url":{"url":"https://example.com/b.png"}}`,
			"Additional properties are not allowed ('image_url' was unexpected) - 'messages.1.content.0'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := sessionKey(t)
			body := []byte(strings.Replace(strictBase, c.old, c.new, 1))
			if a := post(t, ts.URL, key, body, nil); a.Status != http.StatusOK {
				t.Fatalf("status %d: %s", a.Status, a.Body)
			}
			vs := ts.Violations(key)
			if len(vs) != 1 || vs[0].Rule != openaichat.RuleMessageMembers || vs[0].Level != rules.SHOULD || vs[0].Message != c.want {
				t.Fatalf("journaled %v, want one %s SHOULD %q", vs, openaichat.RuleMessageMembers, c.want)
			}
			// Beside an unknown top-level member the body is refused for
			// that one.
			body = []byte(strings.Replace(string(body), `"n":1,`, `"n":1,"foo":1,`, 1))
			bad := post(t, ts.URL, key, body, nil)
			if e := envelope(t, bad.Body); bad.Status != http.StatusBadRequest || e.Message != "Unrecognized request argument supplied: foo" {
				t.Fatalf("status %d: %s", bad.Status, bad.Body)
			}
		})
	}
}

// TestLenientJournalsUnknownMembers: with --lenient an unknown member is
// answered normally and journaled as a known-fields violation (one inside
// a message as a message-members one).
func TestLenientJournalsUnknownMembers(t *testing.T) {
	ts := mockprovider.NewTestServer(t, lenientOptions())
	key := sessionKey(t)
	body := strings.Replace(strings.Replace(strictBase, `"n":1,`, `"n":1,"foo":1,`, 1), `"text":"Weather?"`, `"text":"Weather?","bar":2`, 1)
	if a := post(t, ts.URL, key, []byte(body), nil); a.Status != http.StatusOK {
		t.Fatalf("status %d: %s", a.Status, a.Body)
	}
	var got []string
	for _, v := range ts.Violations(key) {
		got = append(got, v.Rule+" "+v.Path+": "+v.Message)
	}
	want := []string{openaichat.RuleKnownFields + " foo: Unrecognized request argument supplied: foo",
		openaichat.RuleMessageMembers + " messages.1.content.0.bar: Additional properties are not allowed ('bar' was unexpected) - 'messages.1.content.0'"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("journaled\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

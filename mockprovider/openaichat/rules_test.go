package openaichat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// TestRuleCases posts every break/fix pair: the broken request gets the
// real status, envelope and message plus X-Toolwire-Rule; the fixed one
// gets 200 and is journaled without any violation.
func TestRuleCases(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for i, c := range openaichat.RuleCases() {
		t.Run(fmt.Sprintf("%02d_%s/%s", i, c.Rule, c.Name), func(t *testing.T) {
			if c.WantStatus == 0 {
				t.Skip("a SHOULD case (journaled, not answered): TestCapabilityCases runs it through ruletest")
			}
			key := sessionKey(t)
			bad := post(t, ts.URL, key, c.Bad, c.Headers)
			if c.WantStatus == 0 { // a SHOULD: answered, and journaled
				if bad.Status != http.StatusOK {
					t.Fatalf("bad: status %d, want 200 (SHOULD): %s", bad.Status, bad.Body)
				}
				found := false
				for _, v := range ts.Violations(key) {
					found = found || v.Rule == c.Rule && v.Level == rules.SHOULD
				}
				if !found {
					t.Fatalf("bad: %s not journaled: %v", c.Rule, ts.Violations(key))
				}
			} else {
				if bad.Status != c.WantStatus {
					t.Fatalf("bad: status %d, want %d: %s", bad.Status, c.WantStatus, bad.Body)
				}
				e := envelope(t, bad.Body)
				if e.Message != c.WantMessage {
					t.Errorf("bad: message\n got %q\nwant %q", e.Message, c.WantMessage)
				}
				if e.Type != "invalid_request_error" {
					t.Errorf("bad: type %q", e.Type)
				}
				if got := bad.Header.Get(wire.RuleHeader); got != c.Rule {
					t.Errorf("bad: %s = %q, want %q", wire.RuleHeader, got, c.Rule)
				}
			}

			good := post(t, ts.URL, key, c.Good, c.Headers)
			if good.Status != http.StatusOK {
				t.Fatalf("good: status %d: %s", good.Status, good.Body)
			}
			journal := ts.Journal(key)
			if n := len(journal); n != 2 {
				t.Fatalf("journal has %d entries, want 2", n)
			}
			if vs := journal[1].Violations; len(vs) != 0 {
				t.Errorf("good request journaled violations: %v", vs)
			}
		})
	}
}

// TestRuleCasesLenient: in lenient mode every broken request is answered
// normally and its violation is journaled.
func TestRuleCasesLenient(t *testing.T) {
	ts := mockprovider.NewTestServer(t, lenientOptions())
	for i, c := range openaichat.RuleCases() {
		if c.Rule == openaichat.RuleValidJSON || c.Rule == openaichat.RuleFieldTypes {
			continue // a body that cannot be read has no lenient reading
		}
		t.Run(fmt.Sprintf("%02d_%s/%s", i, c.Rule, c.Name), func(t *testing.T) {
			if c.WantStatus == 0 {
				t.Skip("a SHOULD case (journaled, not answered): TestCapabilityCases runs it through ruletest")
			}
			key := sessionKey(t)
			bad := post(t, ts.URL, key, c.Bad, c.Headers)
			if bad.Status != http.StatusOK {
				t.Fatalf("lenient: status %d: %s", bad.Status, bad.Body)
			}
			if bad.Header.Get(wire.RuleHeader) != "" {
				t.Errorf("lenient answer carries %s", wire.RuleHeader)
			}
			found := false
			for _, v := range ts.Violations(key) {
				found = found || v.Rule == c.Rule
			}
			if !found {
				t.Errorf("violation of %s not journaled: %v", c.Rule, ts.Violations(key))
			}
		})
	}
}

// TestErrorParams pins param and code, which RuleCase does not carry.
func TestErrorParams(t *testing.T) {
	unanswered := `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"f","arguments":"{}"}},` +
		`{"id":"call_b","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_c","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_b","content":"ok"}]}`
	orphan := `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"s"},{"role":"tool","tool_call_id":"call_1","content":"ok"}]}`
	args := `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":{"a":1}}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]}`
	image := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"u"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`
	missingID := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"u"},{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]}`
	noModel := `{"messages":[{"role":"user","content":"u"}]}`

	messagesParam := rules.DefaultOptions()
	messagesParam.OpenAIToolParam = "messages"
	for _, tc := range []struct {
		name      string
		opts      mockprovider.Options
		body      string
		wantParam any
		wantCode  any
		wantMsg   string
	}{
		{name: "unanswered lists only missing ids, param names the assistant message", body: unanswered, wantParam: "messages.[2].role", wantCode: nil,
			wantMsg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a, call_c"},
		{name: "unanswered with --openai-tool-param=messages", opts: mockprovider.Options{Rules: messagesParam}, body: unanswered, wantParam: "messages", wantCode: nil},
		{name: "orphan tool message", body: orphan, wantParam: "messages.[1].role", wantCode: nil, wantMsg: openaichat.ToolMessageOrphanMessage},
		{name: "arguments object", body: args, wantParam: "messages[2].tool_calls[0].function.arguments", wantCode: "invalid_type"},
		{name: "image in tool message", body: image, wantParam: "messages[2]", wantCode: "invalid_value"},
		{name: "missing call id", body: missingID, wantParam: "messages[1].tool_calls[0].id", wantCode: "missing_required_parameter"},
		{name: "missing model", body: noModel, wantParam: nil, wantCode: nil, wantMsg: openaichat.ModelRequiredMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := mockprovider.NewTestServer(t, tc.opts)
			a := post(t, ts.URL, sessionKey(t), []byte(tc.body), nil)
			if a.Status != http.StatusBadRequest {
				t.Fatalf("status %d: %s", a.Status, a.Body)
			}
			e := envelope(t, a.Body)
			if e.Param != tc.wantParam || e.Code != tc.wantCode {
				t.Errorf("param %v code %v, want %v %v", e.Param, e.Code, tc.wantParam, tc.wantCode)
			}
			if tc.wantMsg != "" && e.Message != tc.wantMsg {
				t.Errorf("message\n got %q\nwant %q", e.Message, tc.wantMsg)
			}
		})
	}
}

// TestShapeErrors: bodies a typed decoder would reject get OpenAI's own
// 400s, never a panic or a generic answer.
func TestShapeErrors(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, tc := range []struct{ body, param, code, msg string }{
		{`{"model":`, "", "", "We could not parse the JSON body of your request."},
		{`[1,2]`, "", "", "We could not parse the JSON body of your request."},
		{`{"model":"m","messages":"hi"}`, "messages", "invalid_type", "Invalid type for 'messages': expected an array, but got a string instead."},
		{`{"model":"m","messages":[{"role":"robot","content":"x"}]}`, "messages[0].role", "invalid_value",
			"Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."},
		{`{"model":"m","messages":[{"role":"user","content":5}]}`, "messages[0].content", "invalid_type", "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got an integer instead."},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"always"}`, "tool_choice", "invalid_value", "Invalid value: 'always'. Supported values are: 'none', 'auto', and 'required'."},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"stream":"yes"}`, "stream", "invalid_type", "Invalid type for 'stream': expected a boolean, but got a string instead."},
	} {
		a := post(t, ts.URL, sessionKey(t), []byte(tc.body), nil)
		if a.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d", tc.body, a.Status)
			continue
		}
		e := envelope(t, a.Body)
		if len(e.Message) < len(tc.msg) || e.Message[:len(tc.msg)] != tc.msg {
			t.Errorf("%s: message %q, want prefix %q", tc.body, e.Message, tc.msg)
		}
		if tc.param != "" && (e.Param != tc.param || e.Code != tc.code) {
			t.Errorf("%s: param %v code %v, want %s %s", tc.body, e.Param, e.Code, tc.param, tc.code)
		}
	}
}

func TestMissingKey(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	a := post(t, ts.URL, "", []byte(`{"model":"m","messages":[{"role":"user","content":"x"}]}`), nil)
	if a.Status != http.StatusUnauthorized {
		t.Fatalf("status %d", a.Status)
	}
	if e := envelope(t, a.Body); e.Type != "invalid_request_error" || e.Param != nil || e.Code != nil {
		t.Errorf("envelope %+v", e)
	}
}

// TestDecodeConversation pins the neutral form: system text lifted out,
// tool messages grouped into one user turn of results named after their
// calls, arguments parsed, unparseable arguments kept raw.
func TestDecodeConversation(t *testing.T) {
	body := `{"model":"gpt-4o","stream":true,"tool_choice":{"type":"function","function":{"name":"get_weather"}},
	 "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}],
	 "messages":[{"role":"developer","content":"Be brief."},
	  {"role":"user","content":[{"type":"text","text":"Look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},
	  {"role":"assistant","content":"Checking.","tool_calls":[
	    {"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"days\":2}"}},
	    {"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"not json"}}]},
	  {"role":"tool","tool_call_id":"call_a","content":"sunny"},
	  {"role":"tool","tool_call_id":"call_b","content":[{"type":"text","text":"rain"}]}]}`
	_, c, err := openaichat.New().Decode(nil, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.System != "Be brief." || c.Model != "gpt-4o" || !c.Stream || !c.ToolChoice.Forced() || c.ToolChoice.Name != "get_weather" {
		t.Errorf("header fields: %+v", c)
	}
	if len(c.Turns) != 3 {
		t.Fatalf("want 3 turns (user, assistant, results), got %d: %+v", len(c.Turns), c.Turns)
	}
	if p := c.Turns[0].Parts; len(p) != 2 || p[1].Kind != conv.KindMedia || p[1].Media.MIMEType != "image/png" || p[1].Media.Data != "AAAA" {
		t.Errorf("user parts: %+v", p)
	}
	calls := c.Turns[1].Calls()
	if len(calls) != 2 || calls[0].Arguments["city"] != "Paris" || calls[0].Arguments["days"] != float64(2) {
		t.Fatalf("calls: %+v", calls)
	}
	if calls[1].Arguments[openaichat.RawArgumentsKey] != "not json" {
		t.Errorf("unparseable arguments not kept raw: %+v", calls[1].Arguments)
	}
	results := c.Turns[2].Results()
	if c.Turns[2].Role != conv.User || len(results) != 2 || results[0].Name != "get_weather" || results[1].Text() != "rain" {
		b, _ := json.Marshal(c.Turns[2])
		t.Errorf("results turn: %s", b)
	}
	if !c.EndsInResults() {
		t.Error("EndsInResults false")
	}
}

// TestVerbatimMessages pins the exported texts to the captured ones
// (https://platform.openai.com/docs/guides/function-calling), typo included, so a "fix" cannot slip in.
func TestVerbatimMessages(t *testing.T) {
	for got, want := range map[string]string{
		openaichat.ToolMessageOrphanMessage: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
		openaichat.ModelRequiredMessage:     "you must provide a model parameter",
		openaichat.StreamOptionsMessage:     "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

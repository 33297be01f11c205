package anthropic_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

const simple = `{"model":"claude-haiku-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`

// post sends body with the given headers (nil = the SDK's usual ones for
// key "wire").
func post(t *testing.T, ts *mockprovider.TestServer, h http.Header, body string) (int, http.Header, string) {
	t.Helper()
	return postTo(t, ts, "/v1/messages", h, body)
}

// postPath posts to another path with the usual headers.
func postPath(t *testing.T, ts *mockprovider.TestServer, path, body string) (int, http.Header, string) {
	t.Helper()
	return postTo(t, ts, path, nil, body)
}

func postTo(t *testing.T, ts *mockprovider.TestServer, path string, h http.Header, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if h == nil {
		h = http.Header{"X-Api-Key": {"wire"}, "Anthropic-Version": {"2023-06-01"}, "Content-Type": {"application/json"}}
	}
	req.Header = h
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// assertEnvelope checks the Anthropic error envelope and request id.
func assertEnvelope(t *testing.T, status int, h http.Header, body string, wantStatus int, wantType, wantMsg string) {
	t.Helper()
	g := gjson.Parse(body)
	if status != wantStatus || g.Get("type").String() != "error" || g.Get("error.type").String() != wantType {
		t.Fatalf("got %d %s, want %d type %s", status, body, wantStatus, wantType)
	}
	if msg := g.Get("error.message").String(); !strings.HasPrefix(msg, wantMsg) {
		t.Fatalf("message %q, want prefix %q", msg, wantMsg)
	}
	id := g.Get("request_id").String()
	if !strings.HasPrefix(id, "req_011C") || h.Get("request-id") != id {
		t.Fatalf("request_id %q, header %q", id, h.Get("request-id"))
	}
}

func TestAuthHeaders(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	status, h, body := post(t, ts, http.Header{}, simple)
	assertEnvelope(t, status, h, body, 401, "authentication_error", "x-api-key header is required")

	status, h, body = post(t, ts, http.Header{"X-Api-Key": {"k"}}, simple)
	assertEnvelope(t, status, h, body, 400, "invalid_request_error", "anthropic-version: header is required")

	status, _, body = post(t, ts, http.Header{"Authorization": {"Bearer tok"}, "Anthropic-Version": {"2023-06-01"}}, simple)
	if status != 200 {
		t.Fatalf("bearer auth: %d %s", status, body)
	}
	if len(ts.Journal("tok")) != 1 {
		t.Fatal("bearer token does not name the session")
	}
}

func TestDecodeErrors(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	msg := func(m string) string {
		return `{"model":"claude-haiku-4-5","max_tokens":64,"messages":[` + m + `]}`
	}
	for _, tc := range []struct{ body, want string }{
		{`{"model": x}`, "The request body is not valid JSON: unexpected character: line 1 column 11 (char 10)"},
		{``, "The request body is not valid JSON: Expecting value: line 1 column 1 (char 0)"},
		{`[1]`, "Input should be a valid dictionary or object to extract fields from"},
		{`{"model":7,"max_tokens":64,"messages":[]}`, "model: Input should be a valid string"},
		{`{"model":"m","max_tokens":"64","messages":[]}`, "max_tokens: Input should be a valid integer"},
		{`{"model":"m","max_tokens":64,"messages":{}}`, "messages: Input should be a valid list"},
		{`{"model":"m","max_tokens":64,"messages":[],"stream":"yes"}`, "stream: Input should be a valid boolean"},
		{`{"model":"m","max_tokens":64,"messages":[],"system":5}`, "system: Input should be a valid list"},
		{msg(`{"role":"tool","content":"x"}`), "messages.0.role: Input should be 'user', 'assistant' or 'system'"},
		{msg(`{"role":"user"}`), "messages.0.content: Field required"},
		{msg(`{"role":"user","content":[{"type":"video"}]}`), "messages.0.content.0: Input tag 'video' found using 'type' does not match any of the expected tags: 'advisor_tool_result', 'bash_code_execution_tool_result', "},
		{msg(`{"role":"user","content":[{"text":"x"}]}`), "messages.0.content.0: Unable to extract tag using discriminator 'type'"},
		{msg(`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f"}]}`), "messages.0.content.0.tool_use.input: Field required"},
		{msg(`{"role":"user","content":[{"type":"tool_result"}]}`), "messages.0.content.0.tool_result.tool_use_id: Field required"},
		{`{"model":"m","max_tokens":64,"messages":[],"tools":[{"name":"f"}]}`, "tools.0.custom.input_schema: Field required"},
		{`{"model":"m","max_tokens":64,"messages":[],"tool_choice":{"type":"required"}}`, "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags: 'any', 'auto', 'none', 'tool'"},
		{`{"model":"m","max_tokens":64,"messages":[],"tool_choice":{"type":"tool"}}`, "tool_choice.tool.name: Field required"},
	} {
		status, h, body := post(t, ts, nil, tc.body)
		assertEnvelope(t, status, h, body, 400, "invalid_request_error", tc.want)
	}
}

// TestValidationErrorWhenStreaming: a rule breach in a stream:true
// request is a plain JSON 400, not a stream (recording in §0).
func TestValidationErrorWhenStreaming(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := anthropic.RuleCases()
	var bad string
	for _, rc := range c {
		if rc.Rule == anthropic.RuleNoContentAfterToolUse {
			bad = strings.Replace(string(rc.Bad), `{"model"`, `{"stream":true,"model"`, 1)
		}
	}
	status, h, body := post(t, ts, nil, bad)
	if !strings.HasPrefix(h.Get("Content-Type"), "application/json") || h.Get(wire.RuleHeader) != anthropic.RuleNoContentAfterToolUse {
		t.Fatalf("content-type %q rule %q", h.Get("Content-Type"), h.Get(wire.RuleHeader))
	}
	assertEnvelope(t, status, h, body, 400, "invalid_request_error", "messages.2: `tool_use` ids were found")
}

func TestMessageBodyShape(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	status, h, body := post(t, ts, nil, string(anthropic.RuleCases()[0].Good))
	if status != 200 || !strings.HasPrefix(h.Get("request-id"), "req_") {
		t.Fatalf("%d %v %s", status, h, body)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(body))
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		_ = dec.Decode(&skip)
	}
	if got := strings.Join(keys, ","); got != "id,type,role,model,content,stop_reason,stop_sequence,stop_details,usage" {
		t.Errorf("keys %s", got)
	}
	g := gjson.Parse(body)
	if g.Get("stop_sequence").Type != gjson.Null || g.Get("stop_reason").String() != "tool_use" ||
		g.Get("content.0.type").String() != "tool_use" || !g.Get("content.0.input").IsObject() ||
		g.Get("usage.service_tier").String() != "standard" {
		t.Errorf("body %s", body)
	}
}

// TestStreamWireShape reads the raw event stream.
func TestStreamWireShape(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	good := strings.Replace(string(anthropic.RuleCases()[0].Good), `{"model"`, `{"stream":true,"model"`, 1)
	status, h, body := post(t, ts, nil, good)
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", status, h.Get("Content-Type"))
	}
	type event struct{ name, data string }
	var events []event
	sc := bufio.NewScanner(strings.NewReader(body))
	var cur event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		case line == "":
			events = append(events, cur)
			cur = event{}
		}
	}
	if len(events) < 7 {
		t.Fatalf("%d events:\n%s", len(events), body)
	}
	for _, e := range events {
		if gjson.Get(e.data, "type").String() != e.name {
			t.Errorf("event %s carries type %s", e.name, gjson.Get(e.data, "type"))
		}
	}
	start := gjson.Get(events[0].data, "message")
	if start.Get("stop_reason").Type != gjson.Null || len(start.Get("content").Array()) != 0 || !strings.HasPrefix(start.Get("id").String(), "msg_01") {
		t.Errorf("message_start %s", events[0].data)
	}
	block := gjson.Get(events[1].data, "content_block")
	if block.Get("type").String() != "tool_use" || block.Get("input").Raw != "{}" || block.Get("caller.type").String() != "direct" {
		t.Errorf("content_block_start %s", events[1].data)
	}
	if events[2].name != "ping" || gjson.Get(events[3].data, "delta.partial_json").Raw != `""` {
		t.Errorf("want ping then an empty first input_json_delta: %v %v", events[2], events[3])
	}
	last := events[len(events)-2]
	if last.name != "message_delta" || gjson.Get(last.data, "delta.stop_reason").String() != "tool_use" || gjson.Get(last.data, "usage.output_tokens").Int() < 1 {
		t.Errorf("message_delta %s", last.data)
	}
	if events[len(events)-1].name != "message_stop" {
		t.Errorf("last event %v", events[len(events)-1])
	}
}

// TestMergedTurnsAccepted replays the live-accepted request of §3.3 rule
// 5: [assistant(text), assistant(tool_use), user(tool_result), user(text)]
// is merged and answered 200; the role breaches are only journaled.
func TestMergedTurnsAccepted(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	body := `{"model":"claude-haiku-4-5","max_tokens":64,"messages":[
		{"role":"assistant","content":[{"type":"text","text":"I will check."}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny"}]},
		{"role":"user","content":[{"type":"text","text":"Thanks"}]}]}`
	h := http.Header{"X-Api-Key": {"merged"}, "Anthropic-Version": {"2023-06-01"}}
	status, _, resp := post(t, ts, h, body)
	if status != 200 {
		t.Fatalf("%d %s", status, resp)
	}
	got := map[string]bool{}
	for _, v := range ts.Violations("merged") {
		if v.Level != rules.SHOULD {
			t.Errorf("MUST violation journaled: %v", v)
		}
		got[v.Rule] = true
	}
	if !got[anthropic.RuleFirstMessageUser] || !got[anthropic.RuleRoleAlternation] {
		t.Errorf("journaled %v, want the first-message and alternation SHOULDs", got)
	}
	if turns := ts.Journal("merged")[0].Conversation.Turns; len(turns) != 2 {
		t.Errorf("conversation has %d turns, want 2 merged turns", len(turns))
	}
	// Strict roles answer the same request with the historic text.
	strict := newServer(t, strictOptions())
	status, rh, resp := post(t, strict, nil, body)
	assertEnvelope(t, status, rh, resp, 400, "invalid_request_error", `messages: first message must use the "user" role`)
}

func TestLenientAnswersBreaches(t *testing.T) {
	o := rules.DefaultOptions()
	o.Lenient = true
	ts := newServer(t, mockprovider.Options{Rules: o})
	for _, c := range anthropic.RuleCases() {
		if c.WantStatus == 0 || c.Rule == anthropic.RuleStrictFirstUser || c.Rule == anthropic.RuleStrictRoleAlternation {
			continue
		}
		// A body that is not JSON, or not of the API's types, cannot be
		// served even leniently: only unknown members are let through.
		if c.Rule == anthropic.RuleValidJSON || c.Rule == anthropic.RuleFieldTypes {
			continue
		}
		key := "lenient-" + c.Rule
		status, _, body := post(t, ts, http.Header{"X-Api-Key": {key}, "Anthropic-Version": {"2023-06-01"}}, string(c.Bad))
		if status != 200 {
			t.Errorf("%s: lenient answered %d %s", c.Rule, status, body)
		}
		if len(ts.Violations(key)) == 0 {
			t.Errorf("%s: breach not journaled", c.Rule)
		}
	}
}

// TestRefusal: a scripted refusal ends with stop_reason "refusal".
func TestRefusal(t *testing.T) {
	set, err := scenario.NewSet(&scenario.Scenario{Name: "refuse", Turns: []scenario.Turn{{Refusal: "I can't help with that."}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := newServer(t, mockprovider.Options{Scenarios: set})
	_, _, body := post(t, ts, http.Header{"X-Api-Key": {"refuse"}, "Anthropic-Version": {"2023-06-01"}, mockprovider.ScenarioHeader: {"refuse"}}, simple)
	if gjson.Get(body, "stop_reason").String() != "refusal" || gjson.Get(body, "content.0.text").String() != "I can't help with that." {
		t.Errorf("refusal: %s", body)
	}
}

// TestThinkingBlocks: a reply carrying reasoning becomes a thinking block
// (streamed as thinking_delta + signature_delta) only when the request
// enabled thinking.
func TestThinkingBlocks(t *testing.T) {
	d := anthropic.New()
	reply := &model.Reply{Turn: conv.Turn{Role: conv.Assistant, Parts: []conv.Part{
		{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: "Need the weather."}},
		{Kind: conv.KindCall, Call: &conv.Call{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}}},
	}}}
	encode := func(body string) string {
		req, c, aerr := d.Decode(nil, []byte(body))
		if aerr != nil {
			t.Fatal(aerr)
		}
		rec := httptest.NewRecorder()
		x := &dialect.Exchange{W: rec, R: httptest.NewRequest(http.MethodPost, "/v1/messages", nil), Env: &rules.Env{}}
		d.Encode(x, req, c, reply)
		return rec.Body.String()
	}
	good := string(anthropic.RuleCases()[0].Good)
	if body := encode(good); gjson.Get(body, "content.0.type").String() != "tool_use" {
		t.Errorf("thinking block without thinking enabled: %s", body)
	}
	withThinking := strings.Replace(good, `{"model"`, `{"thinking":{"type":"enabled","budget_tokens":1024},"model"`, 1)
	body := encode(withThinking)
	if gjson.Get(body, "content.0.type").String() != "thinking" || gjson.Get(body, "content.0.signature").String() == "" ||
		gjson.Get(body, "content.1.type").String() != "tool_use" {
		t.Errorf("thinking: %s", body)
	}
	body = encode(strings.Replace(withThinking, `{"thinking"`, `{"stream":true,"thinking"`, 1))
	for _, want := range []string{`"thinking_delta"`, `"signature_delta"`, `"input_json_delta"`} {
		if !strings.Contains(body, want) {
			t.Errorf("thinking stream lacks %s:\n%s", want, body)
		}
	}
}

func TestTooLarge(t *testing.T) {
	ts := newServer(t, mockprovider.Options{BodyLimit: 16})
	status, h, body := post(t, ts, nil, simple)
	assertEnvelope(t, status, h, body, 413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
}

package openairesp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
)

// The Responses API's WebSocket mode, driven by the official SDK's
// client.Responses.Connect.

func wsClient(ts *mockprovider.TestServer, key string) openai.Client {
	return openai.NewClient(option.WithBaseURL(ts.OpenAIBaseURL()), option.WithAPIKey(key), option.WithMaxRetries(0))
}

func wsConnect(t *testing.T, c openai.Client) *responses.ResponseConnection {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Responses.Connect(ctx, responses.ResponseConnectionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func wsWeatherTool() responses.ToolUnionParam {
	return responses.ToolParamOfFunction("get_weather", map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"location": map[string]any{"type": "string"}},
		"required":             []string{"location"},
		"additionalProperties": false,
	}, true)
}

func wsInput(items ...responses.ResponseInputItemUnionParam) responses.ResponsesClientEventResponseCreateInputUnionParam {
	in := responses.ResponseInputParam(items)
	return responses.ResponsesClientEventResponseCreateInputUnionParam{OfResponse: &in}
}

func wsUser(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
}

// wsTurn sends one response.create and reads its events to the final
// response, checking they arrive in the SSE order.
func wsTurn(t *testing.T, conn *responses.ResponseConnection, ev responses.ResponsesClientEventResponseCreateParam) (*responses.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Create(ctx, ev); err != nil {
		t.Fatal(err)
	}
	var types []string
	for {
		e, err := conn.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, e.Type)
		switch e.Type {
		case "error":
			return nil, &responses.ResponseProtocolError{Event: e}
		case "response.completed", "response.failed", "response.incomplete":
			if types[0] != "response.created" || types[1] != "response.in_progress" {
				t.Errorf("events %v", types)
			}
			var env struct {
				Response responses.Response `json:"response"`
			}
			if err := json.Unmarshal([]byte(e.RawJSON()), &env); err != nil {
				t.Fatal(err)
			}
			return &env.Response, nil
		}
	}
}

// wsError reads the error event out of a failed turn.
func wsError(t *testing.T, err error) responses.ResponsesServerEventResponseWsError {
	t.Helper()
	pe, ok := err.(*responses.ResponseProtocolError)
	if !ok {
		t.Fatalf("want an error event, got %v", err)
	}
	return pe.Event.AsResponsesServerEventResponseWsError()
}

func wsCalls(r *responses.Response) []responses.ResponseFunctionToolCall {
	var out []responses.ResponseFunctionToolCall
	for _, item := range r.Output {
		if item.Type == "function_call" {
			out = append(out, item.AsFunctionCall())
		}
	}
	return out
}

func wsOutput(callID, text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(text)},
	}}
}

func TestResponsesSocketToolLoop(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	conn := wsConnect(t, wsClient(ts, "sk-ws-loop"))
	tools := []responses.ToolUnionParam{wsWeatherTool()}
	first, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Tools: tools, Input: wsInput(wsUser("Weather in Oslo?"))})
	if err != nil {
		t.Fatal(err)
	}
	cs := wsCalls(first)
	if len(cs) != 1 || cs[0].Name != "get_weather" {
		t.Fatalf("first response %s", first.RawJSON())
	}
	final, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Tools: tools,
		PreviousResponseID: openai.String(first.ID), Input: wsInput(wsOutput(cs[0].CallID, "sunny and 21C"))})
	if err != nil {
		t.Fatal(err)
	}
	if final.PreviousResponseID != first.ID || !strings.Contains(final.OutputText(), "sunny") || len(wsCalls(final)) != 0 || final.Status != "completed" {
		t.Errorf("final response %s", final.RawJSON())
	}
	// Each message went through the POST pipeline: journaled as a stream.
	j := ts.Journal("sk-ws-loop")
	if len(j) != 2 || j[0].Method != http.MethodPost || j[0].Path != "/v1/responses" || len(j[1].Events) == 0 || j[1].Status != 200 {
		t.Fatalf("journal %+v", j)
	}
	noViolationsFor(t, ts, "sk-ws-loop")
}

func noViolationsFor(t *testing.T, ts *mockprovider.TestServer, key string) {
	t.Helper()
	for _, v := range ts.Violations(key) {
		t.Errorf("unexpected violation: %s", v)
	}
}

func TestResponsesSocketResponsesInSequence(t *testing.T) {
	// With request logging, whose writer the upgrade hijacks through.
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	conn := wsConnect(t, wsClient(ts, "sk-ws-seq"))
	var ids []string
	for _, q := range []string{"Hello", "And again"} {
		r, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Input: wsInput(wsUser(q))})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "completed" || r.OutputText() == "" {
			t.Errorf("response %s", r.RawJSON())
		}
		ids = append(ids, r.ID)
	}
	if ids[0] == ids[1] {
		t.Errorf("one id for two responses: %v", ids)
	}
}

func TestResponsesSocketUnstoredStaysOnItsSocket(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := wsClient(ts, "sk-ws-store")
	conn := wsConnect(t, c)
	first, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Store: openai.Bool(false), Input: wsInput(wsUser("Remember 42"))})
	if err != nil {
		t.Fatal(err)
	}
	next, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Store: openai.Bool(false),
		PreviousResponseID: openai.String(first.ID), Input: wsInput(wsUser("What did I ask you to remember?"))})
	if err != nil {
		t.Fatalf("continuing on the same socket: %v", err)
	}
	if next.PreviousResponseID != first.ID || !strings.Contains(next.RawJSON(), `"store":false`) {
		t.Errorf("continuation %s", next.RawJSON())
	}
	// The continuation saw the first turn: user, assistant, user.
	if j := ts.Journal("sk-ws-store"); len(j) != 2 || len(j[1].Conversation.Turns) != 3 || !j[1].Conversation.Stream {
		t.Errorf("continuation conversation %+v", j[len(j)-1].Conversation)
	}

	// A new socket, and POST, know nothing of it.
	other := wsConnect(t, c)
	_, err = wsTurn(t, other, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1",
		PreviousResponseID: openai.String(next.ID), Input: wsInput(wsUser("Again"))})
	e := wsError(t, err)
	if e.Status != 400 || e.Error.Code != "previous_response_not_found" || e.Error.Param != "previous_response_id" || e.Error.Type != "invalid_request_error" ||
		e.Error.Message != fmt.Sprintf("Previous response with id '%s' not found.", next.ID) {
		t.Errorf("new socket: %s", e.RawJSON())
	}
	j := ts.Journal("sk-ws-store")
	if last := j[len(j)-1]; last.Answered != openairesp.RulePreviousResponse || last.Status != 400 {
		t.Errorf("journal %+v", last)
	}
	_, err = c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", PreviousResponseID: openai.String(next.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Again")}})
	var apiErr *openai.Error
	if !asAPIError(err, &apiErr) || apiErr.Code != "previous_response_not_found" {
		t.Errorf("POST: %v", err)
	}
	// The socket that made them still has them.
	if _, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Store: openai.Bool(false),
		PreviousResponseID: openai.String(next.ID), Input: wsInput(wsUser("Once more"))}); err != nil {
		t.Errorf("same socket after another one failed: %v", err)
	}
}

func asAPIError(err error, target **openai.Error) bool {
	e, ok := err.(*openai.Error)
	if ok {
		*target = e
	}
	return ok
}

func TestResponsesSocketViolationKeepsSocketAndEvicts(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	conn := wsConnect(t, wsClient(ts, "sk-ws-rule"))
	first, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Store: openai.Bool(false), Input: wsInput(wsUser("Hi"))})
	if err != nil {
		t.Fatal(err)
	}
	// tool_choice without tools, continuing the unstored response; the
	// SDK's FinalResponse surfaces the error event as a protocol error.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Create(ctx, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Store: openai.Bool(false),
		PreviousResponseID: openai.String(first.ID), Input: wsInput(wsUser("Go on")),
		ToolChoice: responses.ResponsesClientEventResponseCreateToolChoiceUnionParam{OfToolChoiceMode: openai.Opt(responses.ToolChoiceOptionsRequired)}}); err != nil {
		t.Fatal(err)
	}
	_, err = conn.FinalResponse(ctx)
	e := wsError(t, err)
	if e.Status != 400 || e.Error.Param != "tool_choice" ||
		e.Error.Message != "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified." {
		t.Errorf("violation: %s", e.RawJSON())
	}
	j := ts.Journal("sk-ws-rule")
	if last := j[len(j)-1]; last.Answered != openairesp.RuleToolChoice {
		t.Errorf("journaled %+v", last)
	}
	// The failed continuation evicted the response it continued.
	_, err = wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Store: openai.Bool(false),
		PreviousResponseID: openai.String(first.ID), Input: wsInput(wsUser("Go on"))})
	if e := wsError(t, err); e.Error.Code != "previous_response_not_found" {
		t.Errorf("after a failed continuation: %s", e.RawJSON())
	}
	// And the socket still answers.
	if r, err := wsTurn(t, conn, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", Input: wsInput(wsUser("Still there?"))}); err != nil || r.Status != "completed" {
		t.Errorf("after errors: %v", err)
	}
}

func TestResponsesSocketStreamID(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	conn := wsConnect(t, wsClient(ts, "sk-ws-lane"))
	lane, err := conn.Lane("lane-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Create(ctx, responses.ResponsesClientEventResponseCreateParam{Model: "gpt-4.1", StreamID: openai.String("lane-1"), Input: wsInput(wsUser("Hi"))}); err != nil {
		t.Fatal(err)
	}
	r, err := lane.FinalResponse(ctx)
	if err != nil || r.Status != "completed" {
		t.Fatalf("lane: %v %+v", err, r)
	}
}

func TestResponsesSocketMissingKey(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := openai.NewClient(option.WithBaseURL(ts.OpenAIBaseURL()), option.WithAPIKey(""), option.WithMaxRetries(0))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if conn, err := c.Responses.Connect(ctx, responses.ResponseConnectionOptions{}); err == nil || !strings.Contains(err.Error(), "401") {
		if conn != nil {
			_ = conn.Close()
		}
		t.Fatalf("connect without a key: %v", err)
	}
	// The refusal is the POST one, before any upgrade.
	get, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/responses", nil)
	get.Header.Set("Connection", "Upgrade")
	get.Header.Set("Upgrade", "websocket")
	get.Header.Set("Sec-WebSocket-Version", "13")
	get.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	post, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/responses", strings.NewReader(`{"model":"gpt-4.1","input":"Hi"}`))
	var bodies []string
	for _, req := range []*http.Request{get, post} {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("%s: status %d", req.Method, res.StatusCode)
		}
		bodies = append(bodies, string(b))
	}
	if bodies[0] != bodies[1] {
		t.Errorf("upgrade refused with %s, POST with %s", bodies[0], bodies[1])
	}
}

// Messages the SDK cannot send, over a raw socket.
func TestResponsesSocketRawMessages(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{BodyLimit: 4096})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/responses",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer sk-ws-raw"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.CloseNow() }()
	exchange := func(msg string) map[string]any {
		t.Helper()
		if err := conn.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ev map[string]any
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return ev
	}
	errorOf := func(ev map[string]any) map[string]any {
		t.Helper()
		e, _ := ev["error"].(map[string]any)
		if ev["type"] != "error" || ev["status"] != float64(400) || e == nil || e["type"] != "invalid_request_error" {
			t.Fatalf("want an error event, got %v", ev)
		}
		return e
	}
	for _, c := range []struct{ msg, param, code, message string }{
		{`{"model":"gpt-4.1","input":"Hi"}`, "type", "missing_required_parameter", "Missing required parameter: 'type'."},
		{`{"type":7,"model":"gpt-4.1"}`, "type", "invalid_value", "Invalid value: 7. Supported values are: 'response.create' and 'response.steer'."},
		{`{"type":"session.update","model":"gpt-4.1"}`, "type", "invalid_value", "Invalid value: 'session.update'. Supported values are: 'response.create' and 'response.steer'."},
		{`{"type":"response.create","model":"gpt-4.1","input":"Hi","background":true}`, "background", "unsupported_parameter", "Unsupported parameter: 'background' is not supported in WebSocket mode."},
		{`{"type":"response.create","model":"gpt-4.1","input":"Hi","stream_id":"no spaces"}`, "stream_id", "invalid_value", "Invalid 'stream_id': string does not match pattern. Expected a string that matches the pattern '^[A-Za-z0-9_.-]{1,256}$'."},
		{`{"type":"response.create","model":"gpt-4.1","input":"Hi","generate":"yes"}`, "generate", "invalid_type", "Invalid type for 'generate': expected a boolean, but got a string instead."},
		// What the API has and the mock does not: said so, in its own voice.
		{`{"type":"response.create","model":"gpt-4.1","input":"Hi","generate":false}`, "generate", "<nil>", "toolwire: generate: false (a warmup without output) is not implemented by the mock"},
		{`{"type":"response.steer","previous_response_id":"resp_1","input":"Hi"}`, "type", "<nil>", "toolwire: response.steer is not implemented by the mock"},
		// The strict decoding of POST applies to the rest of the message.
		{`{"type":"response.create","model":"gpt-4.1","input":"Hi","temprature":1}`, "temprature", "unknown_parameter", "Unknown parameter: 'temprature'."},
	} {
		e := errorOf(exchange(c.msg))
		if e["param"] != c.param || fmt.Sprint(e["code"]) != c.code || e["message"] != c.message {
			t.Errorf("%s: %v", c.msg, e)
		}
	}
	// Not JSON: the answer POST gives a body that is not JSON.
	postError := func(body string) map[string]any {
		t.Helper()
		post, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/responses", strings.NewReader(body))
		post.Header.Set("Authorization", "Bearer sk-ws-raw")
		res, err := http.DefaultClient.Do(post)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Body.Close() }()
		var posted struct {
			Error map[string]any `json:"error"`
		}
		if err := json.NewDecoder(res.Body).Decode(&posted); err != nil || posted.Error["message"] == nil {
			t.Fatalf("POST %s: %v", body, err)
		}
		return posted.Error
	}
	for _, c := range []struct{ msg, like, rule string }{
		{`not json`, `not json`, openairesp.RuleValidJSON},
		{`{"type":"response.create","model":"gpt-4.1"`, `not json`, openairesp.RuleValidJSON},
		{`[1]`, `[1]`, openairesp.RuleFieldTypes},
	} {
		if e, want := errorOf(exchange(c.msg)), postError(c.like); fmt.Sprint(e) != fmt.Sprint(want) {
			t.Errorf("%s: %v, POST says %v", c.msg, e, want)
		}
		j := ts.Journal("sk-ws-raw")
		if last := j[len(j)-2]; last.Answered != c.rule { // the POST came after it
			t.Errorf("%s journaled %+v", c.msg, last)
		}
	}
	// stream and generate:true are accepted and dropped; stream_id is echoed.
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.cr\u0065ate","model":"gpt-4.1","input":"Hi","stream":false,"generate":true,"stream_id":"a.b"}`)); err != nil {
		t.Fatal(err)
	}
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Type     string `json:"type"`
			StreamID string `json:"stream_id"`
		}
		if err := json.Unmarshal(b, &ev); err != nil || ev.StreamID != "a.b" {
			t.Fatalf("event %s", b)
		}
		if ev.Type == "response.completed" {
			break
		}
		if ev.Type == "error" {
			t.Fatalf("event %s", b)
		}
	}
	// A message over the body limit closes the socket (1009).
	big := `{"type":"response.create","model":"gpt-4.1","input":"` + strings.Repeat("a", 5000) + `"}`
	_ = conn.Write(ctx, websocket.MessageText, []byte(big))
	if _, _, err := conn.Read(ctx); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Errorf("oversized message: %v", err)
	}
	// The refusals are journaled.
	j := ts.Journal("sk-ws-raw")
	if len(j) < 9 || j[0].Method != http.MethodGet || j[0].Status != 400 {
		t.Errorf("journal %+v", j)
	}
}

// Faults apply per message: the upgrade's X-Toolwire-Fault header is every
// message's. A rate limit is an error event with the 429; a disconnect
// drops the socket mid-stream.
func TestResponsesSocketFaults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(fault string) *websocket.Conn {
		conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/responses",
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer sk-ws-fault"}, mockprovider.FaultHeader: {fault}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.CloseNow() })
		if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-4.1","input":"Hi"}`)); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	limited := dial("rate_limit")
	_, b, err := limited.Read(ctx)
	var ev struct {
		Type   string `json:"type"`
		Status int    `json:"status"`
		Error  struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if err != nil || json.Unmarshal(b, &ev) != nil || ev.Type != "error" || ev.Status != 429 || ev.Error.Type == "" {
		t.Errorf("rate limit: %s %v", b, err)
	}
	dropped := dial("disconnect;after=2")
	var got int
	for {
		if _, _, err = dropped.Read(ctx); err != nil {
			break
		}
		got++
	}
	if got != 2 || websocket.CloseStatus(err) != -1 {
		t.Errorf("disconnect after 2 events: read %d, then %v", got, err)
	}
	if j := ts.Journal("sk-ws-fault"); len(j) != 2 || j[1].Fault != "disconnect" {
		t.Errorf("journal %+v", j)
	}
}

// A GET without an upgrade is what it was before the socket route: no such
// endpoint, in the API's words.
func TestResponsesSocketPlainGet(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/responses", nil)
	req.Header.Set("Authorization", "Bearer sk-ws-plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 404 || !strings.Contains(string(b), "Invalid URL (GET /v1/responses)") {
		t.Errorf("plain GET: %d %s", res.StatusCode, b)
	}
}

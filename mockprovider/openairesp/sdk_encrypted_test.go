package openairesp_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// statelessParams is a store:false request to a reasoning model that asks
// for its reasoning sealed, as a zero-retention client sends it.
func statelessParams(input responses.ResponseInputParam) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false), Tools: []responses.ToolUnionParam{weatherTool()},
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}, Input: inputList(input...)}
}

// respond sends params whole or streamed and returns the final response
// (streamed: the one response.completed carries, after checking that the
// reasoning item's response.output_item.done event carries the same
// encrypted_content).
func respond(t *testing.T, c openai.Client, params responses.ResponseNewParams, stream bool) (*responses.Response, error) {
	t.Helper()
	ctx := context.Background()
	if !stream {
		return c.Responses.New(ctx, params)
	}
	s := c.Responses.NewStreaming(ctx, params)
	defer s.Close()
	var done *responses.Response
	sealed := map[string]string{}
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_item.done":
			if ev.Item.Type == "reasoning" {
				sealed[ev.Item.ID] = ev.Item.EncryptedContent
			}
		case "response.completed":
			r := ev.Response
			done = &r
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if done == nil {
		t.Fatal("stream ended without response.completed")
	}
	for _, it := range done.Output {
		if it.Type == "reasoning" && sealed[it.ID] != it.EncryptedContent {
			t.Errorf("output_item.done carried %q, response.completed %q", sealed[it.ID], it.EncryptedContent)
		}
	}
	return done, nil
}

// withEncrypted is the response's output items as input, the reasoning
// items' encrypted_content replaced by edit of it.
func withEncrypted(r *responses.Response, edit func(string) string) responses.ResponseInputParam {
	var out responses.ResponseInputParam
	for _, it := range r.Output {
		raw := it.RawJSON()
		if it.Type == "reasoning" {
			var m map[string]any
			if err := json.Unmarshal([]byte(raw), &m); err != nil {
				panic(err)
			}
			m["encrypted_content"] = edit(it.EncryptedContent)
			b, _ := json.Marshal(m)
			raw = string(b)
		}
		out = append(out, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(raw)))
	}
	return out
}

// tamper changes one character in the middle of a value.
func tamper(s string) string {
	i := len(s) / 2
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// foreignToken is a value shaped as the real API's (a Fernet token:
// version 0x80, timestamp, IV, ciphertext, HMAC) that the mock did not
// issue.
func foreignToken() string {
	b := make([]byte, 1+8+16+32+32)
	b[0] = 0x80
	binary.BigEndian.PutUint64(b[1:9], 1780000000)
	for i := 9; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	return base64.URLEncoding.EncodeToString(b)
}

// TestSDKEncryptedReasoning: with include reasoning.encrypted_content and
// store:false, a reasoning model's reasoning item carries an
// encrypted_content (whole and streamed); the tool loop that passes the
// items back unchanged completes with nothing journaled; the same
// continuation with the value edited, invented or issued by the real API
// gets the API's 400 (invalid_encrypted_content, param null), which the
// SDK returns as *openai.Error.
func TestSDKEncryptedReasoning(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "whole", true: "streamed"}[stream]
		t.Run(name, func(t *testing.T) {
			ts := mockprovider.NewTestServer(t, mockprovider.Options{})
			key := "sk-encrypted-" + name
			c := client(ts, key)
			prompt := userText("What's the weather in Rome?")
			first, err := respond(t, c, statelessParams(responses.ResponseInputParam{prompt}), stream)
			if err != nil {
				t.Fatal(err)
			}
			cs := calls(first)
			if len(first.Output) == 0 || first.Output[0].Type != "reasoning" || len(cs) == 0 {
				t.Fatalf("want reasoning then a call: %s", first.RawJSON())
			}
			rs := first.Output[0]
			if !strings.HasPrefix(rs.EncryptedContent, "gAAAAAB") {
				t.Fatalf("encrypted_content %q", rs.EncryptedContent)
			}

			continuation := func(edit func(string) string) responses.ResponseNewParams {
				input := append(responses.ResponseInputParam{prompt}, withEncrypted(first, edit)...)
				for _, call := range cs {
					input = append(input, output(call.CallID, `{"temperature":21}`))
				}
				return statelessParams(input)
			}
			final, err := respond(t, c, continuation(func(s string) string { return s }), stream)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls(final)) != 0 || !strings.Contains(final.OutputText(), "temperature") {
				t.Errorf("final answer: %s", final.RawJSON())
			}
			noViolations(t, ts, key)

			for what, edit := range map[string]func(string) string{
				"tampered": tamper,
				"invented": func(string) string { return "not an encrypted value" },
				"foreign":  func(string) string { return foreignToken() },
			} {
				_, err := respond(t, c, continuation(edit), stream)
				var apiErr *openai.Error
				if !errors.As(err, &apiErr) {
					t.Fatalf("%s: want *openai.Error, got %v", what, err)
				}
				want := "The encrypted content for item " + rs.ID + " could not be verified. Reason: Encrypted content could not be decrypted or parsed."
				if apiErr.StatusCode != http.StatusBadRequest || apiErr.Message != want || apiErr.Code != "invalid_encrypted_content" ||
					apiErr.Type != "invalid_request_error" || apiErr.Param != "" || !strings.Contains(apiErr.RawJSON(), `"param": null`) && !strings.Contains(apiErr.RawJSON(), `"param":null`) {
					t.Errorf("%s: %d %s", what, apiErr.StatusCode, apiErr.RawJSON())
				}
				if got := apiErr.Response.Header.Get("X-Toolwire-Rule"); got != openairesp.RuleEncryptedContent {
					t.Errorf("%s: X-Toolwire-Rule %q", what, got)
				}
			}
		})
	}
}

// TestEncryptedContentWithoutID: a foreign value on a reasoning item
// without an id (which the API does not require) is named by its first and
// last four characters, as the API's answers quote a value without an
// item.
func TestEncryptedContentWithoutID(t *testing.T) {
	opts := rules.DefaultOptions()
	opts.Lenient = true
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Rules: opts})
	value := foreignToken()
	body := `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Hi"},{"type":"reasoning","summary":[],"encrypted_content":"` + value + `"},
		{"role":"user","content":"Again"}]}`
	if status, _, resp := post(t, ts.URL+openairesp.Path, "sk-no-id", []byte(body), nil); status != http.StatusOK {
		t.Fatalf("lenient: %d %s", status, resp)
	}
	want := "The encrypted content " + value[:4] + "..." + value[len(value)-4:] + " could not be verified. Reason: Encrypted content could not be decrypted or parsed."
	for _, v := range ts.Violations("sk-no-id") {
		if v.Rule == openairesp.RuleEncryptedContent {
			if v.Message != want {
				t.Errorf("message %q\nwant %q", v.Message, want)
			}
			return
		}
	}
	t.Errorf("not journaled: %v", ts.Violations("sk-no-id"))
}

// TestSDKCompactionTampered: a compaction item passed back with its
// encrypted_content edited is the same 400 as a reasoning item's, naming
// the compaction item; as issued it stands for the history it replaced.
func TestSDKCompactionTampered(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-compaction-tampered")
	ctx := context.Background()
	compacted, err := c.Responses.Compact(ctx, responses.ResponseCompactParams{Model: "gpt-4.1",
		Input: responses.ResponseCompactParamsInputUnion{OfResponseInputItemArray: responses.ResponseInputParam{userText("Weather in Rome?")}}})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	next := func(edit func(string) string) responses.ResponseNewParams {
		var input responses.ResponseInputParam
		for _, it := range compacted.Output {
			raw := it.RawJSON()
			if it.Type == "compaction" {
				id = it.ID
				b, _ := json.Marshal(map[string]string{"type": "compaction", "id": it.ID, "encrypted_content": edit(it.EncryptedContent)})
				raw = string(b)
			}
			input = append(input, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(raw)))
		}
		return responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(append(input, userText("And tomorrow?"))...)}
	}
	if _, err := c.Responses.New(ctx, next(func(s string) string { return s })); err != nil {
		t.Fatal(err)
	}
	_, err = c.Responses.New(ctx, next(tamper))
	apiErr := apiError(t, err, http.StatusBadRequest, "The encrypted content for item "+id+" could not be verified. Reason: Encrypted content could not be decrypted or parsed.")
	if apiErr.Code != "invalid_encrypted_content" {
		t.Errorf("code %q", apiErr.Code)
	}
}

// TestReasoningWithoutIDPassedBack: a store:false continuation may pass a
// reasoning item back by its encrypted_content alone, without its id, as
// Codex does ("Response API doesn't require IDs on reasoning items
// anymore", openai/codex#3390); it is answered, nothing journaled.
func TestReasoningWithoutIDPassedBack(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	first := `{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"input":"What's the weather in Tokyo?",` +
		`"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`
	status, _, resp := post(t, ts.URL+openairesp.Path, "sk-no-rs-id", []byte(first), nil)
	if status != http.StatusOK {
		t.Fatalf("first turn: %d %s", status, resp)
	}
	var out struct {
		Output []map[string]any `json:"output"`
	}
	if err := json.Unmarshal(resp, &out); err != nil || len(out.Output) < 2 || out.Output[0]["type"] != "reasoning" {
		t.Fatalf("first turn output: %s (%v)", resp, err)
	}
	reasoning, call := out.Output[0], out.Output[1]
	delete(reasoning, "id")
	delete(call, "id")
	delete(call, "status")
	next, _ := json.Marshal(map[string]any{"model": "gpt-5", "store": false,
		"tools": []any{map[string]any{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}, "required": []any{"location"}}}},
		"input": []any{map[string]any{"role": "user", "content": "What's the weather in Tokyo?"}, reasoning, call,
			map[string]any{"type": "function_call_output", "call_id": call["call_id"], "output": "18C"}}})
	if status, _, resp := post(t, ts.URL+openairesp.Path, "sk-no-rs-id", next, nil); status != http.StatusOK {
		t.Fatalf("continuation without the reasoning id: %d %s", status, resp)
	}
	if vs := ts.Violations("sk-no-rs-id"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

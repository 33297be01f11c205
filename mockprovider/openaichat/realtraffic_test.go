package openaichat_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// loopWithNames is a finished tool loop as LangChain.js replays it: every
// message carries a name (a tool message its function's), and the
// assistant message carries the members the API returned with it.
func loopWithNames() []openai.ChatCompletionMessageParamUnion {
	system := openai.SystemMessage("Be brief.")
	system.OfSystem.Name = openai.String("setup")
	developer := openai.DeveloperMessage("Answer in Celsius.")
	developer.OfDeveloper.Name = openai.String("policy")
	user := openai.UserMessage("Weather in Paris?")
	user.OfUser.Name = openai.String("alice")
	call := openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
		Name:    openai.String("weather_bot"),
		Refusal: openai.String(""),
		Audio:   openai.ChatCompletionAssistantMessageParamAudio{ID: "audio_abc123"},
		ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: "call_1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "get_weather", Arguments: `{"city":"Paris"}`},
		}}},
	}}
	// function_call: null, as clients copy it from the response.
	call.OfAssistant.SetExtraFields(map[string]any{"function_call": nil})
	result := openai.ToolMessage(`{"temperature":22}`, "call_1")
	// name is not in the SDK's tool message type; LangChain.js sends it.
	result.OfTool.SetExtraFields(map[string]any{"name": "get_weather"})
	return []openai.ChatCompletionMessageParamUnion{system, developer, user, call, result}
}

// TestSDKMessageNames: name on a tool message (LangChain.js sends it on
// every one; experientiallabs/experiential#803 quotes the API taking it),
// and the members the SDK defines for the other roles (name everywhere;
// refusal, audio and function_call: null on an assistant message) are
// answered 200 with nothing journaled.
func TestSDKMessageNames(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key)
	params := weatherParams("unused")
	params.Model = "gpt-4.1"
	params.Messages = loopWithNames()
	if _, err := client.Chat.Completions.New(context.Background(), params); err != nil {
		t.Fatal(describe(err))
	}
	s := client.Chat.Completions.NewStreaming(context.Background(), params)
	for s.Next() {
	}
	if err := s.Err(); err != nil {
		t.Fatal(describe(err))
	}
	ts.RequireNoViolations(t, key)
}

// TestSDKMessageExtraMembers: a member no role defines, inside a message,
// is taken and journaled as a message-members SHOULD; the same member at
// the top level is still the API's 400.
func TestSDKMessageExtraMembers(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key)
	params := weatherParams("Weather in Paris?")
	params.Model = "gpt-4o"
	params.Messages[1].OfUser.SetExtraFields(map[string]any{"id": "msg_local_1"})
	if _, err := client.Chat.Completions.New(context.Background(), params); err != nil {
		t.Fatal(describe(err))
	}
	vs := ts.Violations(key)
	if len(vs) != 1 || vs[0].Rule != openaichat.RuleMessageMembers || vs[0].Path != "messages.1.id" {
		t.Fatalf("journaled %v", vs)
	}
	top := weatherParams("Weather in Paris?")
	top.Model = "gpt-4o"
	top.SetExtraFields(map[string]any{"id": "msg_local_1"})
	_, err := client.Chat.Completions.New(context.Background(), top)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Message != "Unrecognized request argument supplied: id" {
		t.Fatalf("top-level member: %v", describe(err))
	}
}

// TestSDKSamplingRanges: temperature and top_p outside their ranges are
// the API's 400 with its param and code, streamed and not; the bounds
// themselves pass.
func TestSDKSamplingRanges(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	for _, c := range []struct {
		set         func(*openai.ChatCompletionNewParams)
		param, code string
		msg         string
	}{
		{func(p *openai.ChatCompletionNewParams) { p.Temperature = openai.Float(-1) }, "temperature", "decimal_below_min_value",
			"Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
		{func(p *openai.ChatCompletionNewParams) { p.Temperature = openai.Float(2.5) }, "temperature", "decimal_above_max_value",
			"Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead."},
		{func(p *openai.ChatCompletionNewParams) { p.TopP = openai.Float(-0.1) }, "top_p", "decimal_below_min_value",
			"Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -0.1 instead."},
		{func(p *openai.ChatCompletionNewParams) { p.TopP = openai.Float(1.01) }, "top_p", "decimal_above_max_value",
			"Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.01 instead."},
	} {
		p := weatherParams("hi")
		p.Model = "gpt-4o"
		c.set(&p)
		for _, streamed := range []bool{false, true} {
			e := sdkError(t, client, p, streamed)
			if e.StatusCode != http.StatusBadRequest || e.Message != c.msg || e.Param != c.param || e.Code != c.code || e.Type != "invalid_request_error" {
				t.Errorf("streamed %v: %d %s", streamed, e.StatusCode, e.RawJSON())
			}
			if got := e.Response.Header.Get(wire.RuleHeader); got != openaichat.RuleFieldTypes {
				t.Errorf("%s = %q", wire.RuleHeader, got)
			}
		}
	}
	p := weatherParams("hi")
	p.Model = "gpt-4o"
	p.Temperature, p.TopP = openai.Float(2), openai.Float(0)
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(describe(err))
	}
}

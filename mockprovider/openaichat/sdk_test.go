package openaichat_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

const sdkModel = "gpt-4o-mini"

func newClient(ts *mockprovider.TestServer, key string, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{
		option.WithBaseURL(ts.OpenAIBaseURL()), option.WithAPIKey(key),
	}, opts...)...)
}

func weatherParams(prompt string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    sdkModel,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Use tools."), openai.UserMessage(prompt)},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name:        "get_weather",
			Description: openai.String("Get the current weather for a city."),
			Parameters: openai.FunctionParameters{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required":   []string{"city"},
			},
		})},
	}
}

// toolFunc answers one call with the tool message content.
type toolFunc func(name string, args map[string]any) string

// runLoop drives a complete tool loop through the SDK: call, answer each
// tool call, repeat until the model answers in text. It returns the final
// completion and every completion seen.
func runLoop(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams, tool toolFunc, opts ...option.RequestOption) (*openai.ChatCompletion, []*openai.ChatCompletion) {
	t.Helper()
	var seen []*openai.ChatCompletion
	for turn := 0; turn < 6; turn++ {
		resp, err := client.Chat.Completions.New(context.Background(), params, opts...)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, describe(err))
		}
		seen = append(seen, resp)
		msg := resp.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return resp, seen
		}
		params.Messages = append(params.Messages, msg.ToParam())
		for _, tc := range msg.ToolCalls {
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
				t.Fatalf("call %s arguments %q are not a JSON object: %v", tc.ID, tc.Function.Arguments, err)
			}
			params.Messages = append(params.Messages, openai.ToolMessage(tool(tc.Function.Name, args), tc.ID))
		}
	}
	t.Fatal("tool loop did not end within 6 turns")
	return nil, nil
}

// describe includes the raw body of an API error in test output.
func describe(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return apiErr.Error() + " " + apiErr.RawJSON()
	}
	return err.Error()
}

func weatherTool(name string, args map[string]any) string {
	city, _ := args["city"].(string)
	return `{"city":"` + city + `","temperature":21}`
}

func TestSDKToolLoopDefaultModel(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	final, seen := runLoop(t, newClient(ts, key), weatherParams("What's the weather in Paris?"), weatherTool)
	if len(seen) != 2 {
		t.Fatalf("want call then answer, got %d completions", len(seen))
	}
	first := seen[0]
	call := first.Choices[0].Message.ToolCalls[0]
	if first.Choices[0].FinishReason != "tool_calls" || call.Function.Name != "get_weather" || !strings.HasPrefix(call.ID, "call_") || len(call.ID) != 29 {
		t.Errorf("first completion: finish %q call %+v", first.Choices[0].FinishReason, call)
	}
	if first.Object != "chat.completion" || !strings.HasPrefix(first.ID, "chatcmpl-") || first.Usage.TotalTokens == 0 || first.Choices[0].Message.Content != "" {
		t.Errorf("completion shape: %s", first.RawJSON())
	}
	// content is null (not "") beside calls, and the real optional fields are there.
	var raw struct {
		Choices []struct {
			Message map[string]json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	_ = json.Unmarshal([]byte(first.RawJSON()), &raw)
	m := raw.Choices[0].Message
	if string(m["content"]) != "null" || string(m["refusal"]) != "null" || string(m["annotations"]) != "[]" {
		t.Errorf("message fields: %s", first.RawJSON())
	}
	if final.Choices[0].FinishReason != "stop" || !strings.Contains(final.Choices[0].Message.Content, `\"temperature\":21`) {
		t.Errorf("final answer does not quote the tool result: %q", final.Choices[0].Message.Content)
	}
	if vs := ts.Violations(key); len(vs) != 0 {
		t.Errorf("violations: %v", vs)
	}
}

// TestSDKErrorResult: Chat has no error flag; an error travels as the tool
// message text and comes back quoted.
func TestSDKErrorResult(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	failing := func(string, map[string]any) string { return "Error: weather service unavailable" }
	final, _ := runLoop(t, newClient(ts, sessionKey(t)), weatherParams("Weather in Oslo?"), failing)
	if !strings.Contains(final.Choices[0].Message.Content, "weather service unavailable") {
		t.Errorf("final answer: %q", final.Choices[0].Message.Content)
	}
}

func scenarioServer(t *testing.T) *mockprovider.TestServer {
	t.Helper()
	set, err := mockprovider.BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	err = set.Add(&scenario.Scenario{Name: "parallel-weather", Turns: []scenario.Turn{
		{Text: "Checking both.", Calls: []scenario.Call{
			{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}},
			{Name: "get_weather", Arguments: map[string]any{"city": "Rome"}},
		}},
		{Text: "Both cities: {{results}}"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Add(&scenario.Scenario{Name: "refuse", Turns: []scenario.Turn{{Refusal: "I can't help with that."}}}); err != nil {
		t.Fatal(err)
	}
	return mockprovider.NewTestServer(t, mockprovider.Options{Scenarios: set})
}

func TestSDKScenarioSingleCall(t *testing.T) {
	ts := scenarioServer(t)
	key := sessionKey(t)
	client := newClient(ts, key, option.WithHeader(mockprovider.ScenarioHeader, "single-call"))
	params := weatherParams("What's the weather in Tokyo?")
	params.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name: "get_weather", Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}},
	})}
	var gotArgs map[string]any
	final, seen := runLoop(t, client, params, func(_ string, args map[string]any) string {
		gotArgs = args
		return "18 degrees, partly cloudy"
	})
	if len(seen) != 2 || gotArgs["location"] != "Tokyo, Japan" {
		t.Errorf("scripted call: %d turns, args %v", len(seen), gotArgs)
	}
	if !strings.HasPrefix(final.Choices[0].Message.Content, "The weather: ") || !strings.Contains(final.Choices[0].Message.Content, "partly cloudy") {
		t.Errorf("final: %q", final.Choices[0].Message.Content)
	}
	if j := ts.Journal(key); len(j) != 2 || j[0].Scenario != "single-call" || j[1].Turn != 1 {
		t.Errorf("journal scenario/turns wrong: %+v", j)
	}
}

func TestSDKScenarioParallelCalls(t *testing.T) {
	ts := scenarioServer(t)
	key := sessionKey(t)
	client := newClient(ts, key, option.WithHeader(mockprovider.ScenarioHeader, "parallel-weather"))
	final, seen := runLoop(t, client, weatherParams("Paris and Rome?"), weatherTool)
	msg := seen[0].Choices[0].Message
	if len(msg.ToolCalls) != 2 || msg.Content != "Checking both." || msg.ToolCalls[0].ID == msg.ToolCalls[1].ID {
		t.Fatalf("parallel turn: %s", seen[0].RawJSON())
	}
	got := final.Choices[0].Message.Content
	if !strings.Contains(got, "Paris") || !strings.Contains(got, "Rome") {
		t.Errorf("final does not quote both results: %q", got)
	}
	// Both results were grouped into one neutral turn.
	last := ts.Journal(key)[1].Conversation
	if n := len(last.LastTurn().Results()); n != 2 {
		t.Errorf("results grouped into %d-result turn, want 2", n)
	}
}

// TestSDKImageFallback: an image in a tool message is rejected with the
// real error; resending the result as text goes through.
func TestSDKImageFallback(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	key := sessionKey(t)
	client := newClient(ts, key, option.WithMaxRetries(0))
	params := weatherParams("Show me the radar for Paris.")
	first, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	call := first.Choices[0].Message.ToolCalls[0]
	params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), openai.ToolMessage("placeholder", call.ID))
	toolIndex := len(params.Messages) - 1

	withImage := option.WithJSONSet("messages."+itoa(toolIndex)+".content", []any{
		map[string]any{"type": "text", "text": "radar image"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0KGgo="}},
	})
	_, err = client.Chat.Completions.New(context.Background(), params, withImage)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("image in tool message accepted: %v", err)
	}
	wantMsg := "Invalid 'messages[" + itoa(toolIndex) + "]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."
	if apiErr.StatusCode != http.StatusBadRequest || apiErr.Message != wantMsg || apiErr.Code != "invalid_value" || apiErr.Param != "messages["+itoa(toolIndex)+"]" {
		t.Errorf("rejection: %d %s", apiErr.StatusCode, apiErr.RawJSON())
	}
	if rule := apiErr.Response.Header.Get(wire.RuleHeader); rule != openaichat.RuleImageOnlyInUser {
		t.Errorf("rule header %q", rule)
	}

	params.Messages[toolIndex] = openai.ToolMessage("radar image (image omitted: tool messages carry text only)", call.ID)
	final, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatalf("text fallback rejected: %v", describe(err))
	}
	if !strings.Contains(final.Choices[0].Message.Content, "image omitted") {
		t.Errorf("final: %q", final.Choices[0].Message.Content)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestSDKRefusal: a refusal travels in message.refusal with content null,
// whole or streamed.
func TestSDKRefusal(t *testing.T) {
	ts := scenarioServer(t)
	client := newClient(ts, sessionKey(t), option.WithHeader(mockprovider.ScenarioHeader, "refuse"))
	params := openai.ChatCompletionNewParams{Model: sdkModel, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Do something bad.")}}
	resp, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	msg := resp.Choices[0].Message
	if msg.Refusal != "I can't help with that." || msg.Content != "" || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("refusal: %s", resp.RawJSON())
	}
	acc := accumulate(t, client, params)
	if got := acc.Choices[0].Message.Refusal; got != "I can't help with that." {
		t.Errorf("streamed refusal %q", got)
	}
}

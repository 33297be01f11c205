package openairesp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

func client(ts *mockprovider.TestServer, key string, opts ...option.RequestOption) openai.Client {
	base := []option.RequestOption{option.WithBaseURL(ts.OpenAIBaseURL()), option.WithAPIKey(key), option.WithMaxRetries(0)}
	return openai.NewClient(append(base, opts...)...)
}

func weatherTool() responses.ToolUnionParam {
	return responses.ToolParamOfFunction("get_weather", map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"location": map[string]any{"type": "string"}},
		"required":             []string{"location"},
		"additionalProperties": false,
	}, true)
}

func timeTool() responses.ToolUnionParam {
	return responses.ToolParamOfFunction("get_time", map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"zone": map[string]any{"type": "string"}},
		"required":             []string{"zone"},
		"additionalProperties": false,
	}, true)
}

func userText(s string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(s, responses.EasyInputMessageRoleUser)
}

// replay turns every output item back into an input item, unchanged, as
// https://platform.openai.com/docs/guides/function-calling says a client must (reasoning items included).
func replay(r *responses.Response) responses.ResponseInputParam {
	var out responses.ResponseInputParam
	for _, item := range r.Output {
		out = append(out, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(item.RawJSON())))
	}
	return out
}

func calls(r *responses.Response) []responses.ResponseFunctionToolCall {
	var out []responses.ResponseFunctionToolCall
	for _, item := range r.Output {
		if item.Type == "function_call" {
			out = append(out, item.AsFunctionCall())
		}
	}
	return out
}

func output(callID, text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(text)},
	}}
}

func imageOutput(callID string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: responses.ResponseFunctionCallOutputItemListParam{
			{OfInputText: &responses.ResponseInputTextContentParam{Text: "Image read successfully"}},
			{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: openai.String("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")}},
		}},
	}}
}

func inputList(items ...responses.ResponseInputItemUnionParam) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfInputItemList: items}
}

func noViolations(t *testing.T, ts *mockprovider.TestServer, key string) {
	t.Helper()
	for _, v := range ts.Violations(key) {
		t.Errorf("unexpected violation: %s", v)
	}
}

// loop drives a tool loop by replaying every output item plus the
// outputs, as https://platform.openai.com/docs/guides/function-calling's complete example does, until a text answer.
func loop(t *testing.T, c openai.Client, model string, tools []responses.ToolUnionParam, prompt string, answer func(responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam, opts ...option.RequestOption) (*responses.Response, int) {
	t.Helper()
	ctx := context.Background()
	input := responses.ResponseInputParam{userText(prompt)}
	for turn := 1; turn <= 5; turn++ {
		r, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: model, Tools: tools, Input: inputList(input...)}, opts...)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		cs := calls(r)
		if len(cs) == 0 {
			return r, turn
		}
		input = append(input, replay(r)...)
		for _, call := range cs {
			input = append(input, answer(call))
		}
	}
	t.Fatal("no final answer after 5 turns")
	return nil, 0
}

func TestSDKDefaultToolLoop(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-default")
	r, turns := loop(t, c, "gpt-4.1", []responses.ToolUnionParam{weatherTool()}, "What's the weather in Tokyo?",
		func(call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
			if call.Name != "get_weather" || !strings.HasPrefix(call.CallID, "call_") || !strings.HasPrefix(call.ID, "fc_") {
				t.Errorf("call %+v", call)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args["location"] == nil {
				t.Errorf("arguments %q do not follow the schema", call.Arguments)
			}
			return output(call.CallID, `{"temperature":18,"condition":"partly cloudy"}`)
		})
	if turns != 2 {
		t.Errorf("answered after %d turns, want 2", turns)
	}
	if !strings.Contains(r.OutputText(), `partly cloudy`) || r.Status != "completed" || r.Object != "response" {
		t.Errorf("final response %s", r.RawJSON())
	}
	if r.Usage.TotalTokens != r.Usage.InputTokens+r.Usage.OutputTokens || r.Usage.InputTokens == 0 {
		t.Errorf("usage %+v", r.Usage)
	}
	noViolations(t, ts, "sk-default")
}

func TestSDKErrorAndImageResults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-results")
	r, _ := loop(t, c, "gpt-4.1", []responses.ToolUnionParam{weatherTool()}, "Weather?",
		func(call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
			return output(call.CallID, "Error: city not found")
		})
	if !strings.Contains(r.OutputText(), "Error: city not found") {
		t.Errorf("error result not quoted back: %q", r.OutputText())
	}
	r, _ = loop(t, c, "gpt-4.1", []responses.ToolUnionParam{weatherTool()}, "Weather map?",
		func(call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
			return imageOutput(call.CallID)
		})
	if text := r.OutputText(); !strings.Contains(text, "Image read successfully") || !strings.Contains(text, "[image image/png]") {
		t.Errorf("image result not seen: %q", text)
	}
	noViolations(t, ts, "sk-results")
}

func TestSDKScenarioSingleCall(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-scenario", option.WithHeader(mockprovider.ScenarioHeader, "single-call"))
	r, turns := loop(t, c, "gpt-4.1", []responses.ToolUnionParam{weatherTool()}, "What's the weather in Tokyo?",
		func(call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
			if call.Arguments != `{"location":"Tokyo, Japan"}` {
				t.Errorf("scripted arguments %s", call.Arguments)
			}
			return output(call.CallID, `{"temperature":18}`)
		})
	if turns != 2 || !strings.HasPrefix(r.OutputText(), "The weather: ") || !strings.Contains(r.OutputText(), "temperature") {
		t.Errorf("turns %d, text %q", turns, r.OutputText())
	}
	noViolations(t, ts, "sk-scenario")
}

// scenarios adds test-local scripts to the built-in set.
func scenarios(t *testing.T) *scenario.Set {
	t.Helper()
	set, err := mockprovider.BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []*scenario.Scenario{
		{Name: "parallel", Turns: []scenario.Turn{
			{Reasoning: &scenario.Reasoning{Summary: "Two lookups are needed."}, Calls: []scenario.Call{
				{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}},
				{Name: "get_time", Arguments: map[string]any{"zone": "Europe/Paris"}},
			}},
			{Text: "Both: {{results}}"},
		}},
	} {
		if err := set.Add(sc); err != nil {
			t.Fatal(err)
		}
	}
	return set
}

func TestSDKScenarioParallelCalls(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Scenarios: scenarios(t)})
	c := client(ts, "sk-parallel", option.WithHeader(mockprovider.ScenarioHeader, "parallel"))
	seen := map[string]bool{}
	r, turns := loop(t, c, "gpt-5", []responses.ToolUnionParam{weatherTool(), timeTool()}, "Weather and time in Paris?",
		func(call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
			seen[call.Name] = true
			return output(call.CallID, call.Name+" ok")
		})
	if turns != 2 || !seen["get_weather"] || !seen["get_time"] {
		t.Errorf("turns %d, calls %v", turns, seen)
	}
	if text := r.OutputText(); !strings.Contains(text, `get_weather: "get_weather ok"`) || !strings.Contains(text, `get_time: "get_time ok"`) {
		t.Errorf("text %q", text)
	}
	noViolations(t, ts, "sk-parallel")
}

// TestSDKReasoningReplay covers https://platform.openai.com/docs/guides/function-calling's reasoning note: with gpt-5 the
// output holds a reasoning item before the call; replaying everything
// works, dropping the reasoning item is rejected with the real message.
func TestSDKReasoningReplay(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-reasoning")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: inputList(userText("Weather in Oslo?")),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Output) != 2 || first.Output[0].Type != "reasoning" || first.Output[1].Type != "function_call" {
		t.Fatalf("output %s", first.RawJSON())
	}
	rs, fc := first.Output[0].AsReasoning(), first.Output[1].AsFunctionCall()
	if !strings.HasPrefix(rs.ID, "rs_") || rs.EncryptedContent == "" {
		t.Errorf("reasoning item %s", first.Output[0].RawJSON())
	}

	// Dropping the reasoning item while keeping the fc_ id is rejected.
	dropped := responses.ResponseInputParam{userText("Weather in Oslo?"), replay(first)[1], output(fc.CallID, "sunny")}
	_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: inputList(dropped...)})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Param != "input" || apiErr.Type != "invalid_request_error" {
		t.Fatalf("dropped reasoning: %v", err)
	}
	want := fmt.Sprintf("Item '%s' of type 'function_call' was provided without its required 'reasoning' item: '%s'.", fc.ID, rs.ID)
	if apiErr.Message != want {
		t.Errorf("message %q\nwant    %q", apiErr.Message, want)
	}

	// Replaying every item (reasoning included) answers the call.
	full := append(append(responses.ResponseInputParam{userText("Weather in Oslo?")}, replay(first)...), output(fc.CallID, "sunny"))
	final, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: inputList(full...)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(final.OutputText(), "sunny") {
		t.Errorf("final %s", final.RawJSON())
	}
}

// TestSDKPreviousResponseID continues with outputs only: the stored items
// (reasoning and call) are prepended by the server.
func TestSDKPreviousResponseID(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-prev")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	cs := calls(first)
	if len(cs) != 1 {
		t.Fatalf("output %s", first.RawJSON())
	}
	final, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, PreviousResponseID: openai.String(first.ID),
		Input: inputList(output(cs[0].CallID, "warm"))})
	if err != nil {
		t.Fatal(err)
	}
	if final.PreviousResponseID != first.ID || !strings.Contains(final.OutputText(), "warm") || len(calls(final)) != 0 {
		t.Errorf("final %s", final.RawJSON())
	}
	got, err := c.Responses.Get(ctx, final.ID, responses.ResponseGetParams{})
	if err != nil || got.ID != final.ID || got.OutputText() != final.OutputText() {
		t.Fatalf("get: %v %+v", err, got)
	}
	page, err := c.Responses.InputItems.List(ctx, final.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, it := range page.Data {
		types = append(types, it.Type)
	}
	if strings.Join(types, ",") != "message,reasoning,function_call,function_call_output" {
		t.Errorf("input items %v", types)
	}

	// store:false responses cannot be continued; deleted ones neither.
	unstored, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Store: openai.Bool(false), Input: inputList(userText("Hi"))})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Responses.Delete(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{unstored.ID, first.ID} {
		_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", PreviousResponseID: openai.String(id), Input: inputList(userText("Again"))})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "previous_response_not_found" || apiErr.Param != "previous_response_id" ||
			apiErr.Message != fmt.Sprintf("Previous response with id '%s' not found.", id) {
			t.Errorf("continuing %s: %v", id, err)
		}
		_, err = c.Responses.Get(ctx, id, responses.ResponseGetParams{})
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Message != fmt.Sprintf("Response with id '%s' not found.", id) {
			t.Errorf("get %s: %v", id, err)
		}
	}
	// Another key does not see this key's responses.
	other := client(ts, "sk-other")
	if _, err := other.Responses.Get(ctx, final.ID, responses.ResponseGetParams{}); err == nil {
		t.Error("a response was visible to another key")
	}
}

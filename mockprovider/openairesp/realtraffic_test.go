package openairesp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
)

// rawItem is an input item as a client replays it: the output item's JSON
// unchanged, sent through the SDK.
func rawItem(s string) responses.ResponseInputItemUnionParam {
	return param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(s))
}

// noViolation fails when the session journaled a violation of rule.
func noViolation(t *testing.T, ts *mockprovider.TestServer, key, rule string) {
	t.Helper()
	for _, v := range ts.Violations(key) {
		if v.Rule == rule {
			t.Errorf("%s journaled: %s", rule, v)
		}
	}
}

// TestSDKReasoningThenHostedToolItem: a reasoning item may be followed by
// any output item it produced, a hosted-tool or custom-tool call as much
// as a function call (microsoft/agent-framework#6110 keeps reasoning with
// hosted MCP calls; vercel/ai#8379 replays reasoning before web_search
// calls). Each request is answered 200, nothing journaled.
func TestSDKReasoningThenHostedToolItem(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-hosted")
	items := map[string][]string{
		"web_search_call":       {`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"weather Tokyo"}}`},
		"mcp_call":              {`{"type":"mcp_call","id":"mcp_1","server_label":"docs","name":"search","arguments":"{}","output":"ok"}`},
		"code_interpreter_call": {`{"type":"code_interpreter_call","id":"ci_1","code":"print(1)","container_id":"cntr_1","status":"completed","outputs":[]}`},
		"image_generation_call": {`{"type":"image_generation_call","id":"ig_1","status":"completed","result":"aGk="}`},
		"tool_search_call":      {`{"type":"tool_search_call","id":"ts_1","call_id":"call_ts","execution":"server","status":"completed","arguments":{"query":"weather"}}`},
		"file_search_call":      {`{"type":"file_search_call","id":"fs_1","queries":["weather"],"status":"completed"}`},
		"computer_call": {`{"type":"computer_call","id":"cu_1","call_id":"call_cu","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"}`,
			`{"type":"computer_call_output","call_id":"call_cu","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,iVBORw0KGgo="}}`},
		"local_shell_call": {`{"type":"local_shell_call","id":"lsh_1","call_id":"call_ls","action":{"type":"exec","command":["ls"],"env":{}},"status":"completed"}`,
			`{"type":"local_shell_call_output","id":"lsh_1","output":"a.txt"}`},
		"shell_call": {`{"type":"shell_call","call_id":"call_sh","action":{"commands":["ls"]},"status":"completed"}`,
			`{"type":"shell_call_output","call_id":"call_sh","output":[{"stdout":"a.txt","stderr":"","outcome":{"type":"exit","exit_code":0}}]}`},
		"apply_patch_call": {`{"type":"apply_patch_call","call_id":"call_ap","operation":{"type":"delete_file","path":"a.txt"},"status":"completed"}`,
			`{"type":"apply_patch_call_output","call_id":"call_ap","status":"completed"}`},
		"custom_tool_call": {`{"type":"custom_tool_call","call_id":"call_ct","name":"grep","input":"foo"}`,
			`{"type":"custom_tool_call_output","call_id":"call_ct","output":"no match"}`},
	}
	for name, follow := range items {
		t.Run(name, func(t *testing.T) {
			key := "sk-hosted-" + name
			c := client(ts, key)
			input := responses.ResponseInputParam{userText("What's the weather in Tokyo?"), rawItem(`{"type":"reasoning","id":"rs_1","summary":[]}`)}
			for _, it := range follow {
				input = append(input, rawItem(it))
			}
			input = append(input, userText("Thanks, go on."))
			if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-5", Input: inputList(input...)}); err != nil {
				t.Fatalf("%v %s", err, ts.Violations(key))
			}
			noViolation(t, ts, key, openairesp.RuleReasoningFollowed)
		})
	}
	// Still refused: a user message where the item the reasoning preceded
	// belongs.
	_, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-5", Input: inputList(userText("Hi"),
		rawItem(`{"type":"reasoning","id":"rs_2","summary":[]}`), userText("Again"))})
	apiErr := apiError(t, err, 400, "Item 'rs_2' of type 'reasoning' was provided without its required following item.")
	if apiErr.Param != "input" || apiErr.Code != "" || apiErr.Type != "invalid_request_error" {
		t.Errorf("param %q, code %q, type %q", apiErr.Param, apiErr.Code, apiErr.Type)
	}
}

// TestSDKReasoningThenIDlessMessage: an assistant message replayed without
// the id the API gave it cannot be paired with the reasoning item before
// it, the 400 clients meet when they drop item ids (vercel/ai#7099).
func TestSDKReasoningThenIDlessMessage(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-idless")
	ctx := context.Background()
	reasoning := rawItem(`{"type":"reasoning","id":"rs_0a1b","summary":[]}`)
	idless := responses.ResponseInputItemParamOfMessage("Hello! How can I help?", responses.EasyInputMessageRoleAssistant)
	_, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Input: inputList(userText("Hello there"),
		reasoning, idless, userText("And again?"))})
	resp := apiError(t, err, 400, "Item 'rs_0a1b' of type 'reasoning' was provided without its required following item.")
	if resp.Param != "input" || resp.Code != "" {
		t.Errorf("param %q, code %q", resp.Param, resp.Code)
	}
	if got := resp.Response.Header.Get("X-Toolwire-Rule"); got != openairesp.RuleReasoningFollowed {
		t.Errorf("X-Toolwire-Rule %q", got)
	}
	// The fix: the message as the API output it, id included.
	withID := responses.ResponseInputItemParamOfOutputMessage([]responses.ResponseOutputMessageContentUnionParam{
		{OfOutputText: &responses.ResponseOutputTextParam{Text: "Hello! How can I help?", Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}},
	}, "msg_0a1b", responses.ResponseOutputMessageStatusCompleted)
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Input: inputList(userText("Hello there"), reasoning, withID, userText("And again?"))}); err != nil {
		t.Fatal(err)
	}
}

// TestSDKReasoningByIDWithStoreOff: with store:false a reasoning item sent
// back without its encrypted_content can only be looked up by its id, and
// nothing was kept: the API's 404 (can1357/oh-my-pi#41).
func TestSDKReasoningByIDWithStoreOff(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-rs-store-off")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false), Tools: tools, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	cs := calls(first)
	if first.Output[0].Type != "reasoning" || len(cs) == 0 {
		t.Fatalf("want reasoning then a call, got %s", first.RawJSON())
	}
	// Without include=reasoning.encrypted_content the reasoning item
	// carries only its id and summary.
	input := inputList(append(append(responses.ResponseInputParam{userText("Weather in Rome?")}, replay(first)...), output(cs[0].CallID, "warm"))...)
	_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false), Tools: tools, Input: input})
	want := "Item with id '" + first.Output[0].ID + "' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."
	apiErr := apiError(t, err, 404, want)
	if apiErr.Param != "input" || apiErr.Type != "invalid_request_error" {
		t.Errorf("param %q, type %q", apiErr.Param, apiErr.Type)
	}
	if got := apiErr.Response.Header.Get("X-Toolwire-Rule"); got != openairesp.RuleItemsPersisted {
		t.Errorf("X-Toolwire-Rule %q", got)
	}
	// With store left on, the same replay is found.
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: input}); err != nil {
		t.Fatal(err)
	}
}

// TestSDKToolSearchClientOutput: a tool search the client runs
// (execution "client") is answered by a function_call_output with the
// tool_search_call's call_id; its arguments must be an object.
func TestSDKToolSearchClientOutput(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-tool-search")
	search := responses.ResponseInputItemUnionParam{OfToolSearchCall: &responses.ResponseInputItemToolSearchCallParam{
		CallID: openai.String("call_ts1"), Execution: "client", Status: "completed", Arguments: map[string]any{"query": "weather"},
	}}
	if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-5", Tools: []responses.ToolUnionParam{weatherTool()},
		Input: inputList(userText("Which tool tells the weather?"), search, output("call_ts1", `["get_weather"]`))}); err != nil {
		t.Fatal(err)
	}
	noViolation(t, ts, "sk-tool-search", openairesp.RuleToolCall)
	// Its arguments are an object: a JSON string (a function_call's form)
	// is the API's type error.
	search.OfToolSearchCall.Arguments = `{"query":"weather"}`
	_, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-5", Tools: []responses.ToolUnionParam{weatherTool()},
		Input: inputList(userText("Which tool tells the weather?"), search, output("call_ts1", `["get_weather"]`))})
	apiErr := apiError(t, err, 400, "Invalid type for 'input[1].arguments': expected an object, but got a string instead.")
	if apiErr.Param != "input[1].arguments" || apiErr.Code != "invalid_type" || apiErr.Response.Header.Get("X-Toolwire-Rule") != openairesp.RuleFieldTypes {
		t.Errorf("param %q, code %q, rule %q", apiErr.Param, apiErr.Code, apiErr.Response.Header.Get("X-Toolwire-Rule"))
	}
}

// TestSDKToolChoiceFromAdditionalTools: tools an additional_tools input
// item brings are declared tools: a tool_choice may force one of them
// with no tools member at all, and the model calls it.
func TestSDKToolChoiceFromAdditionalTools(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-additional-tools")
	extra := responses.ResponseInputItemUnionParam{OfAdditionalTools: &responses.ResponseInputItemAdditionalToolsParam{Tools: []responses.ToolUnionParam{weatherTool()}}}
	resp, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1",
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "get_weather"}},
		Input:      inputList(extra, userText("Weather in Tokyo?"))})
	if err != nil {
		t.Fatal(err)
	}
	if cs := calls(resp); len(cs) != 1 || cs[0].Name != "get_weather" {
		t.Fatalf("want one get_weather call, got %s", resp.RawJSON())
	}
	// A name neither tools nor additional_tools declares is still refused.
	_, err = c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1",
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "get_time"}},
		Input:      inputList(extra, userText("Time in Tokyo?"))})
	apiError(t, err, 400, "Tool choice 'get_time' not found in 'tools' parameter.")
}

// TestSDKImageMember: openai-go v3.98 sends the image member (context
// compression of image inputs); the API takes it.
func TestSDKImageMember(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-image")
	for _, mode := range []string{"auto", "enabled", "disabled"} {
		if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Describe the picture.")),
			Image: responses.ResponseNewParamsImage{ContextCompression: mode}}); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
	}
	ts.RequireNoViolations(t, "sk-image")
}

// TestSDKSamplingRanges: temperature and top_p outside their ranges get
// the API's 400 with its param and code.
func TestSDKSamplingRanges(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-ranges")
	for _, tc := range []struct {
		set         func(*responses.ResponseNewParams)
		param, code string
		message     string
	}{
		{func(p *responses.ResponseNewParams) { p.Temperature = openai.Float(-1) }, "temperature", "decimal_below_min_value",
			"Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
		{func(p *responses.ResponseNewParams) { p.Temperature = openai.Float(2.5) }, "temperature", "decimal_above_max_value",
			"Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead."},
		{func(p *responses.ResponseNewParams) { p.TopP = openai.Float(-0.5) }, "top_p", "decimal_below_min_value",
			"Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -0.5 instead."},
		{func(p *responses.ResponseNewParams) { p.TopP = openai.Float(1.5) }, "top_p", "decimal_above_max_value",
			"Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead."},
	} {
		p := responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Hi"))}
		tc.set(&p)
		_, err := c.Responses.New(context.Background(), p)
		apiErr := apiError(t, err, 400, tc.message)
		if apiErr.Param != tc.param || apiErr.Code != tc.code || apiErr.Response.Header.Get("X-Toolwire-Rule") != openairesp.RuleFieldTypes {
			t.Errorf("%s: param %q, code %q, rule %q", tc.message, apiErr.Param, apiErr.Code, apiErr.Response.Header.Get("X-Toolwire-Rule"))
		}
	}
	// The bounds themselves are values the API takes.
	if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Hi")),
		Temperature: openai.Float(2), TopP: openai.Float(0)}); err != nil {
		t.Fatal(err)
	}
}

// TestSDKUnsupportedInputFile: an input_file of a kind no accepted-type
// list names is refused with the API's text; documents it reads pass.
func TestSDKUnsupportedInputFile(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-files")
	file := func(f responses.ResponseInputFileParam) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			{OfInputText: &responses.ResponseInputTextParam{Text: "Summarize the file."}},
			{OfInputFile: &f},
		}, responses.EasyInputMessageRoleUser)
	}
	for _, f := range []responses.ResponseInputFileParam{
		{Filename: openai.String("backup.zip"), FileData: openai.String("data:application/zip;base64,UEsDBA==")},
		{Filename: openai.String("voice"), FileData: openai.String("data:audio/mpeg;base64,SUQz")},
		{FileURL: openai.String("https://example.com/files/setup.exe")},
	} {
		_, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(file(f))})
		apiErr := apiError(t, err, 400, openairesp.UnsupportedFileMessage)
		if apiErr.Param != "input" || apiErr.Code != "unsupported_file" {
			t.Errorf("param %q, code %q", apiErr.Param, apiErr.Code)
		}
	}
	for _, f := range []responses.ResponseInputFileParam{
		{Filename: openai.String("report.pdf"), FileData: openai.String("data:application/pdf;base64,JVBERi0xLjQK")},
		{Filename: openai.String("notes.md"), FileData: openai.String("data:text/markdown;base64,IyBOb3Rlcw==")},
		{Filename: openai.String("sheet.xlsx"), FileData: openai.String("data:application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;base64,UEsDBA==")},
		{FileID: openai.String("file-abc123")},
	} {
		if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(file(f))}); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

// TestSDKStoredPromptWithoutModel: a stored prompt carries its model and
// input, so the real API answers a request naming only the prompt (the
// dd-trace-py cassettes in testdata/corpus); without the prompt the same
// request is still the API's missing-model 400.
func TestSDKStoredPromptWithoutModel(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-prompt")
	prompt := responses.ResponsePromptParam{ID: "pmpt_123", Version: openai.String("2"),
		Variables: map[string]responses.ResponsePromptVariableUnionParam{"city": {OfString: openai.String("Tokyo")}}}
	if _, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Prompt: prompt}); err != nil {
		t.Fatalf("a stored prompt without model or input: %v", err)
	}
	ts.RequireNoViolations(t, "sk-prompt")
	_, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Input: inputList(userText("Hi"))})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "Missing required parameter: 'model'." {
		t.Fatalf("no model and no prompt: %v", err)
	}
}

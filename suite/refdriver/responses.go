package refdriver

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/toolwire/toolwire/mockprovider/conv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/suite/task"
)

func (d *Driver) runResponses(ctx context.Context, env Env, t *task.Task) (string, error) {
	client := openai.NewClient(option.WithBaseURL(env.OpenAIBaseURL), option.WithAPIKey(env.APIKey), option.WithHTTPClient(httpClient(env, d.editFor(conv.OpenAIResponses))))
	choice := openAIToolChoice(t.ToolChoice, true)
	limit := d.startLimit(t)

	var tools []responses.ToolUnionParam
	for _, tool := range t.Tools {
		fn := &responses.FunctionToolParam{Name: tool.Name, Parameters: tool.Parameters, Strict: openai.Bool(tool.Strict || d.Break == StrictWithLooseSchema)}
		if tool.Description != "" {
			fn.Description = openai.String(tool.Description)
		}
		tools = append(tools, responses.ToolUnionParam{OfFunction: fn})
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(t.Prompt, responses.EasyInputMessageRoleUser)}
	// Chaining breaks continue with previous_response_id and send only
	// the new items; prevID is the response to continue from.
	chain := d.Break == PreviousResponseUnknown || d.Break == DropOutputWithPreviousResp
	prevID := ""
	// With item references, the items the API stored (store defaults to
	// true) go back as item_reference by id instead of in full.
	byReference := d.byReference(t, chain)

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		params := responses.ResponseNewParams{Model: shared.ResponsesModel(t.Model), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: tools}
		if t.System != "" {
			params.Instructions = openai.String(t.System)
		}
		if chain && prevID != "" {
			params.PreviousResponseID = openai.String(prevID)
		}
		if d.Break == PreviousResponseUnknown {
			params.Store = openai.Bool(false)
		}
		if limit > 0 {
			params.MaxOutputTokens = openai.Int(int64(limit))
		}
		var reqOpts []option.RequestOption
		if choice != nil && d.forcing(answered) {
			reqOpts = append(reqOpts, option.WithJSONSet("tool_choice", choice))
		}
		resp, err := responsesTurn(ctx, &client, params, t.Stream, reqOpts...)
		if err != nil {
			return "", err
		}
		if retry, err := d.retryCut(resp.Status == responses.ResponseStatusIncomplete && hasFunctionCall(resp), &limit); err != nil {
			return "", err
		} else if retry {
			turn-- // the same turn, asked again
			continue
		}
		if chain {
			prevID, input = resp.ID, nil
		}
		type call struct{ callID, itemID, name, args string }
		var calls []call
		var reasoning []responses.ResponseInputItemUnionParam
		// Every output item goes back, in order: reasoning items must
		// precede the function_call items they produced (https://platform.openai.com/docs/guides/function-calling
		// §Important OpenAI details).
		for _, item := range resp.Output {
			raw := item.RawJSON()
			typ := gjson.Get(raw, "type").Str
			if typ == "reasoning" && d.Break == DropReasoning {
				continue
			}
			if typ == "function_call" {
				calls = append(calls, call{gjson.Get(raw, "call_id").Str, gjson.Get(raw, "id").Str, gjson.Get(raw, "name").Str, gjson.Get(raw, "arguments").Str})
			}
			if chain || d.Break == ResultsAsUserText && typ != "message" {
				continue
			}
			p := param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(raw))
			if id := gjson.Get(raw, "id").Str; byReference && id != "" && !(typ == "function_call" && d.Break == CallsReplayedInFull) {
				p = param.Override[responses.ResponseInputItemUnionParam](mustJSON(map[string]any{"type": "item_reference", "id": id}))
			}
			if typ == "reasoning" && d.Break == ReasoningWithoutFollowingItem {
				reasoning = append(reasoning, p)
				continue
			}
			input = append(input, p)
		}
		input = append(input, reasoning...)
		if len(calls) == 0 {
			return resp.OutputText(), nil
		}
		ids := make([]string, len(calls))
		results := make([]task.CallToolResult, len(calls))
		for i, c := range calls {
			ids[i] = c.callID
			if d.Break == ItemIDForCallID && c.itemID != "" {
				ids[i] = c.itemID
			}
			args, ok := parseArgs(c.args)
			res, err := d.answer(t, c.name, args, !ok)
			if err != nil {
				return "", err
			}
			results[i] = res
		}
		switch d.Break {
		case ResultsAsUserText, DropOutputWithPreviousResp:
			names, texts := make([]string, len(calls)), make([]string, len(calls))
			for i, c := range calls {
				names[i], texts[i] = c.name, plainText(results[i], d.Break)
			}
			input = append(input, responses.ResponseInputItemParamOfMessage(resultsAsText(names, texts), responses.EasyInputMessageRoleUser))
			continue
		case SwappedIDs:
			swapFirstTwo(ids)
		}
		n := len(results)
		if d.Break == UnansweredCall {
			n--
		}
		for i := 0; i < n; i++ {
			out := map[string]any{"type": "function_call_output", "call_id": ids[i], "output": d.responsesOutput(results[i])}
			if d.Break == ToolRoleInResponses {
				out = map[string]any{"role": "tool", "tool_call_id": ids[i], "content": plainText(results[i], d.Break)}
			}
			input = append(input, param.Override[responses.ResponseInputItemUnionParam](mustJSON(out)))
		}
		answered = true
	}
	return "", errTooManyTurns(t.MaxTurns)
}

func hasFunctionCall(resp *responses.Response) bool {
	for _, item := range resp.Output {
		if item.Type == "function_call" {
			return true
		}
	}
	return false
}

// responsesTurn sends one request; a stream is read to its
// response.completed event, which carries the whole response.
func responsesTurn(ctx context.Context, client *openai.Client, params responses.ResponseNewParams, stream bool, opts ...option.RequestOption) (*responses.Response, error) {
	if !stream {
		return client.Responses.New(ctx, params, opts...)
	}
	s := client.Responses.NewStreaming(ctx, params, opts...)
	defer s.Close()
	var done *responses.Response
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.completed", "response.incomplete":
			r := ev.Response
			done = &r
		case "response.failed", "error":
			return nil, errors.New("stream failed: " + ev.RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if done == nil {
		return nil, errors.New("stream ended without response.completed")
	}
	return done, nil
}

// responsesOutput converts a CallToolResult to function_call_output.output:
// a string, or an input_text/input_image/input_file array when the result
// carries media (https://platform.openai.com/docs/guides/function-calling).
func (d *Driver) responsesOutput(r task.CallToolResult) any {
	if d.Break == OutputAsObject {
		if r.StructuredContent != nil {
			return r.StructuredContent
		}
		var obj map[string]any
		if json.Unmarshal([]byte(r.Text()), &obj) == nil && obj != nil {
			return obj
		}
		return map[string]any{"text": r.Text()}
	}
	media := r.Media()
	if len(media) == 0 {
		return plainText(r, d.Break)
	}
	var items []map[string]any
	if text := errorText(r, d.Break); text != "" {
		items = append(items, map[string]any{"type": "input_text", "text": text})
	} else if r.StructuredContent != nil {
		items = append(items, map[string]any{"type": "input_text", "text": string(mustJSON(r.StructuredContent))})
	}
	for i, m := range media {
		url := "data:" + m.MimeType + ";base64," + m.Data
		if m.IsImage() {
			items = append(items, map[string]any{"type": "input_image", "image_url": url})
		} else {
			items = append(items, map[string]any{"type": "input_file", "filename": mediaName(m, i), "file_data": url})
		}
	}
	return items
}

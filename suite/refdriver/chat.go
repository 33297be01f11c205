package refdriver

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/toolwire/toolwire/mockprovider/conv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/suite/task"
)

// openAIToolChoice is the tool_choice value of a task for both OpenAI APIs
// (nil = leave it to the API's default).
func openAIToolChoice(tc string, responses bool) any {
	switch tc {
	case "", "auto":
		return nil
	case "required", "none":
		return tc
	}
	if responses {
		return map[string]any{"type": "function", "name": tc}
	}
	return map[string]any{"type": "function", "function": map[string]any{"name": tc}}
}

func (d *Driver) runChat(ctx context.Context, env Env, t *task.Task) (string, error) {
	client := openai.NewClient(option.WithBaseURL(env.OpenAIBaseURL), option.WithAPIKey(env.APIKey), option.WithHTTPClient(httpClient(env, d.editFor(conv.OpenAIChat))))
	choice := openAIToolChoice(t.ToolChoice, false)
	limit := d.startLimit(t)

	var tools []openai.ChatCompletionToolUnionParam
	for _, tool := range t.Tools {
		def := shared.FunctionDefinitionParam{Name: tool.Name, Parameters: shared.FunctionParameters(tool.Parameters)}
		if tool.Description != "" {
			def.Description = openai.String(tool.Description)
		}
		if tool.Strict || d.Break == StrictWithLooseSchema {
			def.Strict = openai.Bool(true)
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(def))
	}
	var messages []openai.ChatCompletionMessageParamUnion
	if t.System != "" {
		messages = append(messages, openai.SystemMessage(t.System))
	}
	messages = append(messages, openai.UserMessage(t.Prompt))

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		params := openai.ChatCompletionNewParams{Model: shared.ChatModel(t.Model), Messages: messages, Tools: tools}
		if d.Break == StreamOptionsWithoutStream && !t.Stream {
			params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		}
		if limit > 0 {
			params.MaxCompletionTokens = openai.Int(int64(limit))
		}
		var reqOpts []option.RequestOption
		if choice != nil && d.forcing(answered) {
			reqOpts = append(reqOpts, option.WithJSONSet("tool_choice", choice))
		}
		msg, finish, err := chatTurn(ctx, &client, params, t.Stream, reqOpts...)
		if err != nil {
			return "", err
		}
		if retry, err := d.retryCut(finish == "length" && len(msg.ToolCalls) > 0, &limit); err != nil {
			return "", err
		} else if retry {
			turn-- // the same turn, asked again
			continue
		}
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		if d.Break != DropAssistantTurn && d.Break != ResultsAsUserText {
			messages = append(messages, msg.ToParam())
		}
		ids := make([]string, len(msg.ToolCalls))
		results := make([]task.CallToolResult, len(msg.ToolCalls))
		for i, call := range msg.ToolCalls {
			ids[i] = call.ID
			args, ok := parseArgs(call.Function.Arguments)
			res, err := d.answer(t, call.Function.Name, args, !ok)
			if err != nil {
				return "", err
			}
			results[i] = res
		}
		if d.Break == ResultsAsUserText {
			names, texts := make([]string, len(results)), make([]string, len(results))
			for i, call := range msg.ToolCalls {
				names[i], texts[i] = call.Function.Name, plainText(results[i], d.Break)
			}
			messages = append(messages, openai.UserMessage(resultsAsText(names, texts)))
			continue
		}
		if d.Break == SwappedIDs {
			swapFirstTwo(ids)
		}
		n := len(results)
		if d.Break == UnansweredCall {
			n--
		}
		for i := 0; i < n; i++ {
			messages = append(messages, d.chatToolMessage(ids[i], results[i]))
		}
		answered = true
	}
	return "", errTooManyTurns(t.MaxTurns)
}

// chatTurn sends one request and returns the assistant message and its
// finish_reason, assembling a stream with the SDK's accumulator.
func chatTurn(ctx context.Context, client *openai.Client, params openai.ChatCompletionNewParams, stream bool, opts ...option.RequestOption) (openai.ChatCompletionMessage, string, error) {
	if !stream {
		resp, err := client.Chat.Completions.New(ctx, params, opts...)
		if err != nil {
			return openai.ChatCompletionMessage{}, "", err
		}
		if len(resp.Choices) == 0 {
			return openai.ChatCompletionMessage{}, "", errors.New("chat completion has no choices")
		}
		return resp.Choices[0].Message, resp.Choices[0].FinishReason, nil
	}
	s := client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer s.Close()
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		return openai.ChatCompletionMessage{}, "", err
	}
	if len(acc.Choices) == 0 {
		return openai.ChatCompletionMessage{}, "", errors.New("stream ended without a choice")
	}
	return acc.Choices[0].Message, acc.Choices[0].FinishReason, nil
}

// chatToolMessage converts a CallToolResult to a tool message: text only,
// since tool messages take no images (https://ai.google.dev/gemini-api/docs/function-calling#multimodal); media
// become a note, errors an "Error:" prefix.
func (d *Driver) chatToolMessage(id string, r task.CallToolResult) openai.ChatCompletionMessageParamUnion {
	if d.Break == ImageInChatTool && len(r.Media()) > 0 {
		parts := []map[string]any{{"type": "text", "text": errorText(r, d.Break)}}
		for _, m := range r.Media() {
			parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + m.MimeType + ";base64," + m.Data}})
		}
		raw := mustJSON(map[string]any{"role": "tool", "tool_call_id": id, "content": parts})
		return param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(raw))
	}
	return openai.ToolMessage(plainText(r, d.Break), id)
}

// argumentsAsObject rewrites every replayed tool call's arguments from a
// JSON string into an object (arguments-as-object break).
func argumentsAsObject(body []byte) []byte {
	msgs := gjson.GetBytes(body, "messages")
	for i, m := range msgs.Array() {
		for j, tc := range m.Get("tool_calls").Array() {
			args := tc.Get("function.arguments")
			if args.Type == gjson.String && gjson.Valid(args.Str) {
				path := "messages." + itoa(i) + ".tool_calls." + itoa(j) + ".function.arguments"
				if out, err := sjson.SetRawBytes(body, path, []byte(args.Str)); err == nil {
					body = out
				}
			}
		}
	}
	return body
}

func itoa(i int) string { return jsonNumber(i) }

func jsonNumber(i int) string { b, _ := json.Marshal(i); return string(b) }

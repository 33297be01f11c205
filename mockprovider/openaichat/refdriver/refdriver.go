// Package refdriver is the reference driver's OpenAI Chat Completions
// loop on the official SDK (openai-go) and the table of its mistakes. It
// links the SDK, so the mock (package openaichat) does not import it.
package refdriver

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Dialect is the reference driver of OpenAI Chat Completions.
func Dialect() core.Dialect {
	return core.Dialect{Name: conv.OpenAIChat, Mistakes: core.Table(mistakes), Run: run}
}

func lookup(brk core.Break) *mistake { return core.Find(mistakes, brk) }

// toolChoice is the tool_choice value of a task (nil = leave it to the
// API's default).
func toolChoice(tc string) any {
	switch tc {
	case "", "auto":
		return nil
	case "required", "none":
		return tc
	}
	return map[string]any{"type": "function", "function": map[string]any{"name": tc}}
}

func run(ctx context.Context, brk core.Break, env core.Env, t *task.Task) (string, error) {
	m := lookup(brk)
	baseURL, key, err := env.Endpoint(openaiwire.EnvBaseURL, openaiwire.EnvKey)
	if err != nil {
		return "", err
	}
	client := openai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithHTTPClient(core.HTTPClient(env, m.Body)))
	choice := toolChoice(t.ToolChoice)
	limit := m.StartLimit(t)

	var tools []openai.ChatCompletionToolUnionParam
	for _, tool := range t.Tools {
		def := shared.FunctionDefinitionParam{Name: tool.Name, Parameters: shared.FunctionParameters(tool.Parameters)}
		if tool.Description != "" {
			def.Description = openai.String(tool.Description)
		}
		if tool.Strict {
			def.Strict = openai.Bool(true)
		}
		if m.tool != nil {
			m.tool(&def)
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
		params := openai.ChatCompletionNewParams{Model: shared.ChatModel(t.Model), Messages: messages, Tools: tools, ResponseFormat: taskResponseFormat(m.Output(t))}
		if m.params != nil {
			m.params(&params, t.Stream)
		}
		if limit > 0 {
			params.MaxCompletionTokens = openai.Int(int64(limit))
		}
		var reqOpts []option.RequestOption
		if choice != nil && m.Forcing(answered) {
			reqOpts = append(reqOpts, option.WithJSONSet("tool_choice", choice))
		}
		msg, finish, err := chatTurn(ctx, &client, params, t.Stream, reqOpts...)
		if err != nil {
			return "", err
		}
		if retry, err := m.RetryCut(finish == "length" && len(msg.ToolCalls) > 0, &limit); err != nil {
			return "", err
		} else if retry {
			turn-- // the same turn, asked again
			continue
		}
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		answers := make([]core.Answer, len(msg.ToolCalls))
		for i, call := range msg.ToolCalls {
			args, ok := task.ParseArguments(call.Function.Arguments)
			res, err := m.Answer(t, core.Call{Name: call.Function.Name, Args: args, BadArgs: !ok})
			if err != nil {
				return "", err
			}
			answers[i] = core.Answer{ID: call.ID, Name: call.Function.Name, Result: res}
		}
		reply, sent := m.sendBack(msg.ToParam(), m.Answers(answers))
		messages = append(messages, reply...)
		answered = answered || sent
	}
	return "", core.ErrTooManyTurns(t.MaxTurns)
}

// taskResponseFormat is the task's output schema as response_format
// json_schema, strict, so the API holds the answer to it
// (https://platform.openai.com/docs/guides/structured-outputs); the zero
// value, sent as nothing, for free text.
func taskResponseFormat(out *task.Output) openai.ChatCompletionNewParamsResponseFormatUnion {
	if out == nil {
		return openai.ChatCompletionNewParamsResponseFormatUnion{}
	}
	return openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: out.Name, Schema: out.Schema, Strict: openai.Bool(true)}}}
}

// sendBack is what follows a model turn with calls: the turn itself, then
// one tool message per answer; sent reports whether the results went
// back as results.
func (m *mistake) sendBack(callTurn openai.ChatCompletionMessageParamUnion, answers []core.Answer) (reply []openai.ChatCompletionMessageParamUnion, sent bool) {
	if m.reply != nil {
		return m.reply(m, callTurn, answers)
	}
	return append([]openai.ChatCompletionMessageParamUnion{callTurn}, m.toolMessages(answers)...), true
}

func (m *mistake) toolMessages(answers []core.Answer) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	for _, a := range answers {
		out = append(out, m.toolMessage(a))
	}
	return out
}

// toolMessage converts a CallToolResult to a tool message: text only,
// since tool messages take no images (https://ai.google.dev/gemini-api/docs/function-calling#multimodal); media
// become a note, errors an "Error:" prefix.
func (m *mistake) toolMessage(a core.Answer) openai.ChatCompletionMessageParamUnion {
	if m.toolMessageHook != nil {
		if msg, ok := m.toolMessageHook(m, a); ok {
			return msg
		}
	}
	return openai.ToolMessage(m.PlainText(a.Result), a.ID)
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

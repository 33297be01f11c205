// Package refdriver is the reference driver's OpenAI Responses loop on
// the official SDK (openai-go) and the table of its mistakes. It links
// the SDK, so the mock (package openairesp) does not import it.
package refdriver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Dialect is the reference driver of OpenAI Responses.
func Dialect() core.Dialect {
	return core.Dialect{Name: conv.OpenAIResponses, Mistakes: core.Table(mistakes), Run: run}
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
	return map[string]any{"type": "function", "name": tc}
}

// item is an output item of a response as it goes back in the next
// request's input: in full, or by reference to its id.
type item struct {
	typ, id, raw string
	byReference  bool
}

func (it item) param() responses.ResponseInputItemUnionParam {
	if it.byReference {
		return param.Override[responses.ResponseInputItemUnionParam](core.MustJSON(map[string]any{"type": "item_reference", "id": it.id}))
	}
	return param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(it.raw))
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

	var tools []responses.ToolUnionParam
	for _, tool := range t.Tools {
		fn := &responses.FunctionToolParam{Name: tool.Name, Parameters: tool.Parameters, Strict: openai.Bool(tool.Strict)}
		if tool.Description != "" {
			fn.Description = openai.String(tool.Description)
		}
		if m.tool != nil {
			m.tool(fn)
		}
		tools = append(tools, responses.ToolUnionParam{OfFunction: fn})
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(t.Prompt, responses.EasyInputMessageRoleUser)}
	// prevID is the response a chained loop continues from.
	prevID := ""

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		params := responses.ResponseNewParams{Model: shared.ResponsesModel(t.Model), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: tools,
			Text: taskTextFormat(m.Output(t))}
		if t.System != "" {
			params.Instructions = openai.String(t.System)
		}
		if prevID != "" {
			params.PreviousResponseID = openai.String(prevID)
		}
		if m.params != nil {
			m.params(&params)
		}
		if limit > 0 {
			params.MaxOutputTokens = openai.Int(int64(limit))
		}
		var reqOpts []option.RequestOption
		if choice != nil && m.Forcing(answered) {
			reqOpts = append(reqOpts, option.WithJSONSet("tool_choice", choice))
		}
		resp, err := responsesTurn(ctx, &client, params, t.Stream, reqOpts...)
		if err != nil {
			return "", err
		}
		if retry, err := m.RetryCut(resp.Status == responses.ResponseStatusIncomplete && hasFunctionCall(resp), &limit); err != nil {
			return "", err
		} else if retry {
			turn-- // the same turn, asked again
			continue
		}
		type call struct{ callID, itemID, name, args string }
		var calls []call
		// Every output item goes back, in order: reasoning items must
		// precede the function_call items they produced (https://platform.openai.com/docs/guides/function-calling
		// §Important OpenAI details). With item references, the items
		// the API stored (store defaults to true) go back by id.
		var items []item
		for _, out := range resp.Output {
			raw := out.RawJSON()
			it := item{typ: gjson.Get(raw, "type").Str, id: gjson.Get(raw, "id").Str, raw: raw}
			it.byReference = t.ItemReferences && it.id != ""
			if it.typ == "function_call" {
				calls = append(calls, call{gjson.Get(raw, "call_id").Str, it.id, gjson.Get(raw, "name").Str, gjson.Get(raw, "arguments").Str})
			}
			items = append(items, it)
		}
		if m.chained {
			// previous_response_id carries the output items.
			prevID, input = resp.ID, nil
		} else {
			if m.replay != nil {
				items = m.replay(items)
			}
			for _, it := range items {
				input = append(input, it.param())
			}
		}
		if len(calls) == 0 {
			return resp.OutputText(), nil
		}
		answers := make([]core.Answer, len(calls))
		for i, c := range calls {
			args, ok := task.ParseArguments(c.args)
			res, err := m.Answer(t, core.Call{Name: c.name, Args: args, BadArgs: !ok})
			if err != nil {
				return "", err
			}
			id := c.callID
			if m.callID != nil {
				id = m.callID(c.callID, c.itemID)
			}
			answers[i] = core.Answer{ID: id, Name: c.name, Result: res}
		}
		reply, sent := m.sendBack(m.Answers(answers))
		input = append(input, reply...)
		answered = answered || sent
	}
	return "", core.ErrTooManyTurns(t.MaxTurns)
}

// taskTextFormat is the task's output schema as text.format json_schema,
// strict, so the API holds the answer to it
// (https://platform.openai.com/docs/guides/structured-outputs); the zero
// value, sent as nothing, for free text.
func taskTextFormat(out *task.Output) responses.ResponseTextConfigParam {
	if out == nil {
		return responses.ResponseTextConfigParam{}
	}
	return responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
		Name: out.Name, Schema: out.Schema, Strict: openai.Bool(true)}}}
}

// sendBack is what follows the output items of a response with calls: a
// function_call_output item per answer; sent reports whether the results
// went back as results.
func (m *mistake) sendBack(answers []core.Answer) (reply []responses.ResponseInputItemUnionParam, sent bool) {
	if m.reply != nil {
		return m.reply(m, answers)
	}
	for _, a := range answers {
		out := map[string]any{"type": "function_call_output", "call_id": a.ID, "output": m.output(a.Result)}
		if m.resultItem != nil {
			out = m.resultItem(m, a)
		}
		reply = append(reply, param.Override[responses.ResponseInputItemUnionParam](core.MustJSON(out)))
	}
	return reply, true
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

// output converts a CallToolResult to function_call_output.output: a
// string, or an input_text/input_image/input_file array when the result
// carries media (https://platform.openai.com/docs/guides/function-calling).
func (m *mistake) output(r task.CallToolResult) any {
	if m.outputHook != nil {
		return m.outputHook(r)
	}
	media := r.Media()
	if len(media) == 0 {
		return m.PlainText(r)
	}
	var items []map[string]any
	if text := m.ErrorText(r); text != "" {
		items = append(items, map[string]any{"type": "input_text", "text": text})
	} else if r.StructuredContent != nil {
		items = append(items, map[string]any{"type": "input_text", "text": string(core.MustJSON(r.StructuredContent))})
	}
	for i, md := range media {
		url := "data:" + md.MimeType + ";base64," + md.Data
		if md.IsImage() {
			items = append(items, map[string]any{"type": "input_image", "image_url": url})
		} else {
			items = append(items, map[string]any{"type": "input_file", "filename": core.MediaName(md, i), "file_data": url})
		}
	}
	return items
}

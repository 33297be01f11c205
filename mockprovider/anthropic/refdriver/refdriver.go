// Package refdriver is the reference driver's Anthropic Messages loop on
// the official SDK (anthropic-sdk-go) and the table of its mistakes. It
// links the SDK, so the mock (package anthropic) does not import it.
package refdriver

import (
	"context"
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	mock "github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Dialect is the reference driver of Anthropic Messages.
func Dialect() core.Dialect {
	return core.Dialect{Name: conv.Anthropic, Mistakes: core.Table(mistakes), Run: run}
}

func lookup(brk core.Break) *mistake { return core.Find(mistakes, brk) }

func run(ctx context.Context, brk core.Break, env core.Env, t *task.Task) (string, error) {
	m := lookup(brk)
	baseURL, key, err := env.Endpoint(mock.EnvBaseURL, mock.EnvKey)
	if err != nil {
		return "", err
	}
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithHTTPClient(core.HTTPClient(env, m.Body))}
	// The output token limit: the task's, else 1024. With thinking on,
	// the budget counts against max_tokens, which must exceed it: the
	// budget goes on top.
	limit := 1024
	if n := m.StartLimit(t); n > 0 {
		limit = n
	}
	if t.Thinking != nil {
		limit += t.Thinking.BudgetTokens
		// A tool loop thinks between its calls: every assistant message
		// then opens with its own signed thinking block, each passed back.
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", interleavedThinkingBeta))
	}
	client := anthropic.NewClient(opts...)

	var tools []anthropic.ToolUnionParam
	for _, tool := range t.Tools {
		schema := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
		for k, v := range tool.Parameters {
			switch k {
			case "type":
			case "properties":
				schema.Properties = v
			case "required":
				for _, r := range asList(v) {
					if s, ok := r.(string); ok {
						schema.Required = append(schema.Required, s)
					}
				}
			default:
				schema.ExtraFields[k] = v
			}
		}
		tp := &anthropic.ToolParam{Name: tool.Name, InputSchema: schema}
		if tool.Description != "" {
			tp.Description = anthropic.String(tool.Description)
		}
		if tool.Strict {
			tp.Strict = anthropic.Bool(true)
		}
		tools = append(tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	messages := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(t.Prompt))}

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		params := anthropic.MessageNewParams{Model: anthropic.Model(t.Model), MaxTokens: int64(limit), Messages: messages, Tools: tools}
		if out := m.Output(t); out != nil {
			// JSON outputs: the text answer keeps to the schema
			// (https://platform.claude.com/docs/en/build-with-claude/structured-outputs).
			params.OutputConfig = anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: out.Schema}}
		}
		if t.System != "" {
			params.System = []anthropic.TextBlockParam{{Text: t.System}}
		}
		if t.Thinking != nil {
			params.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(t.Thinking.BudgetTokens))
		}
		choice := t.ToolChoice
		if !m.Forcing(answered) {
			choice = ""
		}
		switch choice {
		case "", "auto":
		case "required":
			params.ToolChoice = anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{}}
		case "none":
			params.ToolChoice = anthropic.ToolChoiceUnionParam{OfNone: &anthropic.ToolChoiceNoneParam{}}
		default:
			params.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: choice}}
		}
		msg, err := anthropicTurn(ctx, &client, params, t.Stream)
		if err != nil {
			return "", err
		}
		if retry, err := m.RetryCut(msg.StopReason == anthropic.StopReasonMaxTokens && hasToolUse(msg), &limit); err != nil {
			return "", err
		} else if retry {
			turn-- // the same turn, asked again
			continue
		}
		var answers []core.Answer
		text := ""
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				text += b.Text
			case "tool_use":
				// input is already an object (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
				var args map[string]any
				ok := json.Unmarshal(b.Input, &args) == nil && args != nil
				res, err := m.Answer(t, core.Call{Name: b.Name, Args: args, BadArgs: !ok})
				if err != nil {
					return "", err
				}
				id := b.ID
				if m.toolUseID != nil {
					id = m.toolUseID(msg, id)
				}
				answers = append(answers, core.Answer{ID: id, Name: b.Name, Result: res})
			}
		}
		if len(answers) == 0 {
			return text, nil
		}
		reply, sent := m.sendBack(msg.ToParam(), m.Answers(answers))
		messages = append(messages, reply...)
		answered = answered || sent
	}
	return "", core.ErrTooManyTurns(t.MaxTurns)
}

// sendBack is what follows a model turn with calls: the turn itself, then
// all results in ONE user message, first in its content
// (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use); sent
// reports whether the results went back as results.
func (m *mistake) sendBack(callTurn anthropic.MessageParam, answers []core.Answer) (reply []anthropic.MessageParam, sent bool) {
	if m.reply != nil {
		return m.reply(m, callTurn, answers)
	}
	return append([]anthropic.MessageParam{callTurn}, resultMessage(m.toolResults(answers))...), true
}

// resultMessage is the user message of the tool_result blocks (none
// when every call went unanswered).
func resultMessage(blocks []anthropic.ContentBlockParamUnion) []anthropic.MessageParam {
	if len(blocks) == 0 {
		return nil
	}
	return []anthropic.MessageParam{anthropic.NewUserMessage(blocks...)}
}

func (m *mistake) toolResults(answers []core.Answer) []anthropic.ContentBlockParamUnion {
	var blocks []anthropic.ContentBlockParamUnion
	for _, a := range answers {
		blocks = append(blocks, m.toolResult(a.ID, a.Result))
	}
	return blocks
}

// anthropicTurn sends one request; a stream is folded with the SDK's
// Message.Accumulate.
func anthropicTurn(ctx context.Context, client *anthropic.Client, params anthropic.MessageNewParams, stream bool) (*anthropic.Message, error) {
	if !stream {
		return client.Messages.New(ctx, params)
	}
	s := client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	msg := &anthropic.Message{}
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return nil, err
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return msg, nil
}

// anthropicToolResult converts a CallToolResult to a tool_result block:
// text, image and document blocks, is_error for tool errors (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use
// §The `is_error` flag, §Rich content in results).
func (m *mistake) toolResult(id string, r task.CallToolResult) anthropic.ContentBlockParamUnion {
	var content []any
	for _, c := range r.Content {
		if m.contentItem != nil {
			if item, ok := m.contentItem(c); ok {
				content = append(content, item)
				continue
			}
		}
		switch {
		case c.Type == "text":
			content = append(content, map[string]any{"type": "text", "text": c.Text})
		case c.Type == "image" && c.Data != "":
			content = append(content, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": c.MimeType, "data": c.Data}})
		case c.Type == "resource" && c.Resource != nil:
			res := c.Resource
			switch {
			case res.Text != "":
				content = append(content, map[string]any{"type": "text", "text": res.Text})
			case res.Blob != "" && res.MimeType == "application/pdf":
				content = append(content, map[string]any{"type": "document", "source": map[string]any{"type": "base64", "media_type": res.MimeType, "data": res.Blob}})
			case res.Blob != "" && len(res.MimeType) > 6 && res.MimeType[:6] == "image/":
				content = append(content, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": res.MimeType, "data": res.Blob}})
			}
		}
	}
	if len(content) == 0 && r.StructuredContent != nil {
		content = append(content, map[string]any{"type": "text", "text": string(core.MustJSON(r.StructuredContent))})
	}
	block := map[string]any{"type": "tool_result", "tool_use_id": id}
	if len(content) > 0 {
		block["content"] = content
	}
	if r.IsError && !m.UnmarkedErrors {
		block["is_error"] = true
	}
	return param.Override[anthropic.ContentBlockParamUnion](core.MustJSON(block))
}

func hasToolUse(msg *anthropic.Message) bool {
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			return true
		}
	}
	return false
}

// interleavedThinkingBeta lets the model think between tool calls
// (https://platform.claude.com/docs/en/build-with-claude/extended-thinking#interleaved-thinking).
const interleavedThinkingBeta = "interleaved-thinking-2025-05-14"

func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}

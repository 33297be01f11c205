// Package refdriver is the reference driver's Bedrock Converse loop on
// the official SDK (github.com/aws/aws-sdk-go-v2/service/bedrockruntime)
// and the table of its mistakes. It links the SDK, so the mock (package
// bedrock) does not import it.
package refdriver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/toolwire/toolwire/mockprovider/conv"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Dialect is the reference driver of Bedrock Converse.
func Dialect() core.Dialect {
	return core.Dialect{Name: conv.Bedrock, Mistakes: core.Table(mistakes), Run: run}
}

func lookup(brk core.Break) *mistake { return core.Find(mistakes, brk) }

func run(ctx context.Context, brk core.Break, env core.Env, t *task.Task) (string, error) {
	m := lookup(brk)
	client, err := newClient(env, m)
	if err != nil {
		return "", err
	}

	var tools []types.Tool
	for _, tool := range t.Tools {
		schema := tool.Parameters
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		spec := types.ToolSpecification{Name: aws.String(tool.Name), InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)}}
		// An empty description is refused (minimum length 1): leave it out.
		if tool.Description != "" {
			spec.Description = aws.String(tool.Description)
		}
		if tool.Strict {
			spec.Strict = aws.Bool(true)
		}
		tools = append(tools, &types.ToolMemberToolSpec{Value: spec})
	}
	limit := m.StartLimit(t)
	messages := []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: t.Prompt}}}}

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		modelID := t.Model
		if m.model != nil {
			modelID = m.model(t.Model)
		}
		in := &bedrockruntime.ConverseInput{ModelId: aws.String(modelID), Messages: messages}
		if t.System != "" {
			in.System = []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: t.System}}
		}
		maxTokens := limit
		if t.Thinking != nil {
			// Claude's extended thinking; a tool loop thinks between its
			// calls (the interleaved-thinking beta), and every assistant
			// turn goes back with its signed reasoning.
			in.AdditionalModelRequestFields = document.NewLazyDocument(map[string]any{
				"thinking":       map[string]any{"type": "enabled", "budget_tokens": t.Thinking.BudgetTokens},
				"anthropic_beta": []string{interleavedThinkingBeta},
			})
			if maxTokens == 0 {
				maxTokens = defaultMaxTokens
			}
			maxTokens += t.Thinking.BudgetTokens
		}
		if maxTokens > 0 {
			in.InferenceConfig = &types.InferenceConfiguration{MaxTokens: aws.Int32(int32(maxTokens))}
		}
		in.OutputConfig = outputConfig(m.Output(t))
		// The API wants toolConfig whenever the history holds toolUse or
		// toolResult blocks; the tasks always declare their tools.
		if len(tools) > 0 {
			in.ToolConfig = &types.ToolConfiguration{Tools: tools}
			choice := t.ToolChoice
			if !m.Forcing(answered) {
				choice = ""
			}
			switch choice {
			case "", "auto", "none":
				// Converse has no "none": a driver asked for it declares
				// the tools with the default choice.
			case "required":
				in.ToolConfig.ToolChoice = &types.ToolChoiceMemberAny{Value: types.AnyToolChoice{}}
			default:
				in.ToolConfig.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(choice)}}
			}
		}
		msg, stop, err := converseTurn(ctx, client, in, t.Stream)
		if err != nil {
			return "", err
		}
		// The API leaves a call the limit cut out of its answer: a cut
		// turn with nothing in it is asked again.
		if retry, err := m.RetryCut(stop == types.StopReasonMaxTokens && isEmpty(msg), &limit); err != nil {
			return "", err
		} else if retry {
			turn-- // the same turn, asked again
			continue
		}
		var answers []core.Answer
		text := ""
		for _, b := range msg.Content {
			switch v := b.(type) {
			case *types.ContentBlockMemberText:
				text += v.Value
			case *types.ContentBlockMemberToolUse:
				args, ok := inputArgs(v.Value.Input)
				res, err := m.Answer(t, core.Call{Name: aws.ToString(v.Value.Name), Args: args, BadArgs: !ok})
				if err != nil {
					return "", err
				}
				answers = append(answers, core.Answer{ID: aws.ToString(v.Value.ToolUseId), Name: aws.ToString(v.Value.Name), Result: res})
			}
		}
		if len(answers) == 0 {
			return text, nil
		}
		reply, sent := m.sendBack(msg, m.Answers(answers))
		messages = append(messages, reply...)
		answered = answered || sent
	}
	return "", core.ErrTooManyTurns(t.MaxTurns)
}

// interleavedThinkingBeta lets the model think between tool calls
// (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html).
const interleavedThinkingBeta = "interleaved-thinking-2025-05-14"

// defaultMaxTokens is the answer's token limit beside a thinking budget
// when the task sets none: Claude wants maxTokens above budget_tokens.
const defaultMaxTokens = 4096

// sendBack is what follows a model turn with calls: the turn as received
// (reasoning blocks and their signatures included), then one user message
// holding only the toolResult blocks, one per toolUse, in call order
// (https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html);
// sent reports whether the results went back as results.
func (m *mistake) sendBack(callTurn types.Message, answers []core.Answer) (reply []types.Message, sent bool) {
	if m.reply != nil {
		return m.reply(m, callTurn, answers)
	}
	return append([]types.Message{callTurn}, resultMessage(m.toolResults(answers))...), true
}

func resultMessage(blocks []types.ContentBlock) []types.Message {
	if len(blocks) == 0 {
		return nil
	}
	return []types.Message{{Role: types.ConversationRoleUser, Content: blocks}}
}

func (m *mistake) toolResults(answers []core.Answer) []types.ContentBlock {
	var blocks []types.ContentBlock
	for _, a := range answers {
		blocks = append(blocks, &types.ContentBlockMemberToolResult{Value: m.toolResult(a.ID, a.Result)})
	}
	return blocks
}

// toolResult converts an MCP CallToolResult to a toolResult block: text
// items as text blocks, images and PDF/text documents as image and
// document blocks, structuredContent as a json block, isError as status
// "error" (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultBlock.html).
// An error result always carries content: the API refuses an empty one.
func (m *mistake) toolResult(id string, r task.CallToolResult) types.ToolResultBlock {
	var content []types.ToolResultContentBlock
	for i, c := range r.Content {
		switch {
		case c.Type == "text":
			content = append(content, &types.ToolResultContentBlockMemberText{Value: c.Text})
		case m.noMedia && (c.Type == "image" || c.Type == "resource" && c.Resource != nil && c.Resource.Blob != ""):
			content = append(content, &types.ToolResultContentBlockMemberText{Value: "[" + c.MimeType + " attachment omitted]"})
		case c.Type == "image" && c.Data != "":
			if img, ok := imageBlock(c.MimeType, c.Data); ok {
				content = append(content, &types.ToolResultContentBlockMemberImage{Value: img})
			}
		case c.Type == "resource" && c.Resource != nil:
			res := c.Resource
			switch {
			case res.Blob != "" && strings.HasPrefix(res.MimeType, "image/"):
				if img, ok := imageBlock(res.MimeType, res.Blob); ok {
					content = append(content, &types.ToolResultContentBlockMemberImage{Value: img})
				}
			case res.Blob != "" && documentFormat[res.MimeType] != "":
				if data, err := base64.StdEncoding.DecodeString(res.Blob); err == nil {
					content = append(content, &types.ToolResultContentBlockMemberDocument{Value: types.DocumentBlock{
						Format: documentFormat[res.MimeType], Name: aws.String(documentName(i)), Source: &types.DocumentSourceMemberBytes{Value: data}}})
				}
			case res.Text != "":
				content = append(content, &types.ToolResultContentBlockMemberText{Value: res.Text})
			}
		}
	}
	if r.StructuredContent != nil && m.structured == nil {
		content = append(content, &types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument(r.StructuredContent)})
	} else if r.StructuredContent != nil {
		content = append(content, m.structured(r.StructuredContent))
	}
	block := types.ToolResultBlock{ToolUseId: aws.String(id), Content: content}
	if r.IsError && !m.UnmarkedErrors {
		block.Status = types.ToolResultStatusError
		if len(block.Content) == 0 {
			block.Content = []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: "Error"}}
		}
	}
	if m.result != nil {
		m.result(&block)
	}
	return block
}

// documentFormat maps the MIME types of documents the API takes to its
// format names (DocumentBlock.format).
var documentFormat = map[string]types.DocumentFormat{
	"application/pdf": types.DocumentFormatPdf, "text/plain": types.DocumentFormatTxt, "text/csv": types.DocumentFormatCsv,
	"text/html": types.DocumentFormatHtml, "text/markdown": types.DocumentFormatMd,
}

// documentName is a document's name: the API allows letters, digits,
// single spaces, hyphens, parentheses and brackets only.
func documentName(i int) string { return "document " + string(rune('1'+i%9)) }

func imageBlock(mime, data string) (types.ImageBlock, bool) {
	format := types.ImageFormat(strings.TrimPrefix(mime, "image/"))
	switch format {
	case types.ImageFormatPng, types.ImageFormatJpeg, types.ImageFormatGif, types.ImageFormatWebp:
	default:
		return types.ImageBlock{}, false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return types.ImageBlock{}, false
	}
	return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberBytes{Value: b}}, true
}

// isEmpty reports a message with no call and no text.
func isEmpty(msg types.Message) bool {
	for _, b := range msg.Content {
		switch v := b.(type) {
		case *types.ContentBlockMemberToolUse:
			return false
		case *types.ContentBlockMemberText:
			if v.Value != "" {
				return false
			}
		}
	}
	return true
}

// inputArgs reads a toolUse's input as an object (ok false when it is
// not one). It goes through the document's JSON: a document built
// locally (a streamed call's) does not unmarshal into a map.
func inputArgs(doc document.Interface) (map[string]any, bool) {
	if doc == nil {
		return nil, false
	}
	b, err := doc.MarshalSmithyDocument()
	if err != nil {
		return nil, false
	}
	var args map[string]any
	if json.Unmarshal(b, &args) != nil || args == nil {
		return nil, false
	}
	return args, true
}

// converseTurn sends one request and returns the assistant message and
// the stop reason; a stream's events are gathered into one message, a
// toolUse's input from its deltas.
// outputConfig is the task's output schema as outputConfig.textFormat
// json_schema, the schema a JSON string as Converse takes it
// (bedrockruntime types.JsonSchemaDefinition); nil for free text.
func outputConfig(out *task.Output) *types.OutputConfig {
	if out == nil {
		return nil
	}
	return &types.OutputConfig{TextFormat: &types.OutputFormat{Type: types.OutputFormatTypeJsonSchema,
		Structure: &types.OutputFormatStructureMemberJsonSchema{Value: types.JsonSchemaDefinition{Name: aws.String(out.Name), Schema: aws.String(string(core.MustJSON(out.Schema)))}}}}
}

func converseTurn(ctx context.Context, client *bedrockruntime.Client, in *bedrockruntime.ConverseInput, stream bool) (types.Message, types.StopReason, error) {
	if !stream {
		out, err := client.Converse(ctx, in)
		if err != nil {
			return types.Message{}, "", err
		}
		msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
		if !ok {
			return types.Message{}, "", errors.New("response has no message")
		}
		return msg.Value, out.StopReason, nil
	}
	out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId: in.ModelId, Messages: in.Messages, System: in.System, InferenceConfig: in.InferenceConfig, ToolConfig: in.ToolConfig, OutputConfig: in.OutputConfig,
		AdditionalModelRequestFields: in.AdditionalModelRequestFields,
	})
	if err != nil {
		return types.Message{}, "", err
	}
	s := out.GetStream()
	defer s.Close()
	var acc accumulator
	for ev := range s.Events() {
		acc.add(ev)
	}
	if err := s.Err(); err != nil {
		return types.Message{}, "", err
	}
	msg, err := acc.message()
	return msg, acc.stop, err
}

// accumulator folds a ConverseStream's events into the message they spell.
type accumulator struct {
	blocks []*streamBlock
	stop   types.StopReason
}

type streamBlock struct {
	text, reasoning, signature, input string
	redacted                          []byte
	toolUse                           *types.ToolUseBlockStart
}

func (a *accumulator) at(i *int32) *streamBlock {
	n := int(aws.ToInt32(i))
	for len(a.blocks) <= n {
		a.blocks = append(a.blocks, &streamBlock{})
	}
	return a.blocks[n]
}

func (a *accumulator) add(ev types.ConverseStreamOutput) {
	switch v := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		if u, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
			a.at(v.Value.ContentBlockIndex).toolUse = &u.Value
		}
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		b := a.at(v.Value.ContentBlockIndex)
		switch d := v.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			b.text += d.Value
		case *types.ContentBlockDeltaMemberToolUse:
			b.input += aws.ToString(d.Value.Input)
		case *types.ContentBlockDeltaMemberReasoningContent:
			switch r := d.Value.(type) {
			case *types.ReasoningContentBlockDeltaMemberText:
				b.reasoning += r.Value
			case *types.ReasoningContentBlockDeltaMemberSignature:
				b.signature += r.Value
			case *types.ReasoningContentBlockDeltaMemberRedactedContent:
				b.redacted = append(b.redacted, r.Value...)
			}
		}
	case *types.ConverseStreamOutputMemberMessageStop:
		a.stop = v.Value.StopReason
	}
}

func (a *accumulator) message() (types.Message, error) {
	msg := types.Message{Role: types.ConversationRoleAssistant}
	for _, b := range a.blocks {
		switch {
		case b.toolUse != nil:
			var input any = map[string]any{}
			if b.input != "" {
				if err := json.Unmarshal([]byte(b.input), &input); err != nil {
					// Arguments that are not JSON go back as the model sent them.
					input = b.input
				}
			}
			msg.Content = append(msg.Content, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: b.toolUse.ToolUseId, Name: b.toolUse.Name, Input: document.NewLazyDocument(input)}})
		case b.redacted != nil:
			msg.Content = append(msg.Content, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: b.redacted}})
		case b.reasoning != "" || b.signature != "":
			msg.Content = append(msg.Content, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{
				Value: types.ReasoningTextBlock{Text: aws.String(b.reasoning), Signature: aws.String(b.signature)}}})
		default:
			msg.Content = append(msg.Content, &types.ContentBlockMemberText{Value: b.text})
		}
	}
	return msg, nil
}

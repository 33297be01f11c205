package bedrock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
)

const reportSchema = `{"type":"object","properties":{"city":{"type":"string"},"temperature_c":{"type":"number"},"sunny":{"type":"boolean"}},"required":["city","temperature_c","sunny"],"additionalProperties":false}`

// report is the Go form of reportSchema; decoding refuses other members.
type report struct {
	City         string  `json:"city"`
	TemperatureC float64 `json:"temperature_c"`
	Sunny        bool    `json:"sunny"`
}

func reportFormat() *types.OutputConfig {
	return &types.OutputConfig{TextFormat: &types.OutputFormat{Type: types.OutputFormatTypeJsonSchema,
		Structure: &types.OutputFormatStructureMemberJsonSchema{Value: types.JsonSchemaDefinition{Name: aws.String("report"), Schema: aws.String(reportSchema)}}}}
}

// The answer ending a tool loop under outputConfig.textFormat is JSON in
// the schema, whole and streamed; without it, free text.
func TestSDKStructuredOutputAfterToolLoop(t *testing.T) {
	for _, stream := range []bool{false, true} {
		ts := newServer(t)
		client := newClient(ts, "AKIDOUTPUT")
		ctx := context.Background()
		turn := func(msgs []types.Message, format *types.OutputConfig) types.Message {
			t.Helper()
			if !stream {
				out, err := client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig(), OutputConfig: format})
				if err != nil {
					t.Fatal(err)
				}
				return out.Output.(*types.ConverseOutputMemberMessage).Value
			}
			out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig(), OutputConfig: format})
			if err != nil {
				t.Fatal(err)
			}
			s := out.GetStream()
			defer s.Close()
			msg := types.Message{Role: types.ConversationRoleAssistant}
			var text string
			var use *types.ToolUseBlock
			var input string
			for ev := range s.Events() {
				switch v := ev.(type) {
				case *types.ConverseStreamOutputMemberContentBlockStart:
					if u, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
						use = &types.ToolUseBlock{ToolUseId: u.Value.ToolUseId, Name: u.Value.Name}
					}
				case *types.ConverseStreamOutputMemberContentBlockDelta:
					switch d := v.Value.Delta.(type) {
					case *types.ContentBlockDeltaMemberText:
						text += d.Value
					case *types.ContentBlockDeltaMemberToolUse:
						input += aws.ToString(d.Value.Input)
					}
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if use != nil {
				var args map[string]any
				if err := json.Unmarshal([]byte(input), &args); err != nil {
					t.Fatalf("streamed input %q: %v", input, err)
				}
				use.Input = document.NewLazyDocument(args)
				msg.Content = append(msg.Content, &types.ContentBlockMemberToolUse{Value: *use})
			}
			if text != "" {
				msg.Content = append(msg.Content, &types.ContentBlockMemberText{Value: text})
			}
			return msg
		}
		msgs := []types.Message{ask()}
		call := turn(msgs, reportFormat())
		var id string
		for _, b := range call.Content {
			if u, ok := b.(*types.ContentBlockMemberToolUse); ok {
				id = aws.ToString(u.Value.ToolUseId)
			}
		}
		if id == "" {
			t.Fatalf("stream %v: no toolUse in %+v", stream, call.Content)
		}
		msgs = append(msgs, call, resultFor(id))
		final := turn(msgs, reportFormat())
		text := final.Content[len(final.Content)-1].(*types.ContentBlockMemberText).Value
		dec := json.NewDecoder(bytes.NewReader([]byte(text)))
		dec.DisallowUnknownFields()
		var r report
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("stream %v: final text %q is not the schema's JSON: %v", stream, text, err)
		}
		if vs := ts.Violations("AKIDOUTPUT"); len(vs) != 0 {
			t.Fatalf("stream %v: violations %v", stream, vs)
		}
		// The same loop without the demand ends in free text.
		free := turn(msgs, nil)
		if text := free.Content[len(free.Content)-1].(*types.ContentBlockMemberText).Value; json.Valid([]byte(text)) {
			t.Fatalf("stream %v: answer without outputConfig is JSON: %s", stream, text)
		}
	}
}

package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/bedrock/refdriver"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

const sdkModel = "us.anthropic.claude-haiku-4-5-20251001-v1:0"

// newServer starts a mock serving only the Bedrock dialect.
func newServer(t *testing.T) *mockprovider.TestServer {
	t.Helper()
	return mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{bedrock.New()}})
}

// newClient is the official client pointed at the mock with static
// credentials; akid names the session. Its HTTP client keeps the SDK from
// closing the connection under a stream now and then (refdriver.HTTPClient).
func newClient(ts *mockprovider.TestServer, akid string) *bedrockruntime.Client {
	return bedrockruntime.New(bedrockruntime.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(ts.URL),
		RetryMaxAttempts: 1,
		HTTPClient:       refdriver.HTTPClient(&http.Client{}),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: akid, SecretAccessKey: "secret"}, nil
		}),
	})
}

func weatherConfig() *types.ToolConfiguration {
	schema := document.NewLazyDocument(map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"},
	})
	return &types.ToolConfiguration{Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{
		Name: aws.String("get_weather"), Description: aws.String("Get current weather for a city."),
		InputSchema: &types.ToolInputSchemaMemberJson{Value: schema},
	}}}}
}

func ask() types.Message {
	return types.Message{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "What is the weather in Paris?"}}}
}

func resultFor(id string) types.Message {
	return types.Message{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
		ToolUseId: aws.String(id),
		Content:   []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument(map[string]any{"temperature": 18})}},
	}}}}
}

// TestSDKToolLoop: Converse through the official client: a toolUse with
// input from the schema and stopReason tool_use, then the result sent
// back and a final text; no rule breached, the access key names the
// session.
func TestSDKToolLoop(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDLOOP")
	ctx := context.Background()
	msgs := []types.Message{ask()}
	out, err := client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != types.StopReasonToolUse || out.Usage == nil || aws.ToInt32(out.Usage.TotalTokens) == 0 {
		t.Fatalf("stop %q usage %+v", out.StopReason, out.Usage)
	}
	msg := out.Output.(*types.ConverseOutputMemberMessage).Value
	var use *types.ToolUseBlock
	for _, b := range msg.Content {
		if u, ok := b.(*types.ContentBlockMemberToolUse); ok {
			use = &u.Value
		}
	}
	if use == nil || aws.ToString(use.Name) != "get_weather" || !strings.HasPrefix(aws.ToString(use.ToolUseId), "tooluse_") {
		t.Fatalf("content = %+v", msg.Content)
	}
	var input map[string]any
	if err := use.Input.UnmarshalSmithyDocument(&input); err != nil || input["city"] == nil {
		t.Fatalf("input = %v (%v)", input, err)
	}

	msgs = append(msgs, msg, resultFor(aws.ToString(use.ToolUseId)))
	out, err = client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig()})
	if err != nil {
		t.Fatal(err)
	}
	final := out.Output.(*types.ConverseOutputMemberMessage).Value
	text, ok := final.Content[0].(*types.ContentBlockMemberText)
	if out.StopReason != types.StopReasonEndTurn || !ok || !strings.Contains(text.Value, "temperature") {
		t.Fatalf("final = %q %+v", out.StopReason, final.Content)
	}
	if n := len(ts.Journal("AKIDLOOP")); n != 2 {
		t.Fatalf("journal of AKIDLOOP has %d entries, want 2", n)
	}
	if vs := ts.Violations("AKIDLOOP"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

// TestSDKStreamToolLoop: ConverseStream through the official client: the
// event stream carries messageStart, a toolUse block whose input arrives
// in deltas, messageStop tool_use and metadata; the result sent back
// streams the final text.
func TestSDKStreamToolLoop(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDSTREAM")
	ctx := context.Background()
	msgs := []types.Message{ask()}

	turn := func() (id, name, input, text string, stop types.StopReason, usage *types.TokenUsage) {
		t.Helper()
		out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig()})
		if err != nil {
			t.Fatal(err)
		}
		stream := out.GetStream()
		defer stream.Close()
		started := false
		for ev := range stream.Events() {
			switch v := ev.(type) {
			case *types.ConverseStreamOutputMemberMessageStart:
				started = v.Value.Role == types.ConversationRoleAssistant
			case *types.ConverseStreamOutputMemberContentBlockStart:
				if u, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
					id, name = aws.ToString(u.Value.ToolUseId), aws.ToString(u.Value.Name)
				}
			case *types.ConverseStreamOutputMemberContentBlockDelta:
				switch d := v.Value.Delta.(type) {
				case *types.ContentBlockDeltaMemberToolUse:
					input += aws.ToString(d.Value.Input)
				case *types.ContentBlockDeltaMemberText:
					text += d.Value
				}
			case *types.ConverseStreamOutputMemberMessageStop:
				stop = v.Value.StopReason
			case *types.ConverseStreamOutputMemberMetadata:
				usage = v.Value.Usage
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if !started {
			t.Fatal("no messageStart")
		}
		return
	}

	id, name, input, _, stop, usage := turn()
	var args map[string]any
	if stop != types.StopReasonToolUse || name != "get_weather" || id == "" || json.Unmarshal([]byte(input), &args) != nil || args["city"] == nil || usage == nil {
		t.Fatalf("id %q name %q input %q stop %q usage %+v", id, name, input, stop, usage)
	}
	msgs = append(msgs, types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
		ToolUseId: aws.String(id), Name: aws.String(name), Input: document.NewLazyDocument(args),
	}}}}, resultFor(id))
	_, _, _, text, stop, _ := turn()
	if stop != types.StopReasonEndTurn || !strings.Contains(text, "temperature") {
		t.Fatalf("final %q stop %q", text, stop)
	}
	if vs := ts.Violations("AKIDSTREAM"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

// TestSDKRefusal: a rule breach reaches the client as Bedrock's
// ValidationException with the API's text.
func TestSDKRefusal(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDBAD")
	msgs := []types.Message{ask(), {Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
		ToolUseId: aws.String("tooluse_01"), Name: aws.String("get_weather"), Input: document.NewLazyDocument(map[string]any{"city": "Paris"}),
	}}}}, resultFor("tooluse_01")}
	msgs[2].Content = append(msgs[2].Content, &types.ContentBlockMemberText{Value: "and now?"})
	_, err := client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig()})
	var ve *types.ValidationException
	if !errors.As(err, &ve) || ve.ErrorMessage() != "messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same turn." {
		t.Fatalf("err = %v", err)
	}
}

// TestSDKThrottled: a rate_limit fault is a ThrottlingException.
func TestSDKThrottled(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDFAULT")
	_, err := client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()}},
		func(o *bedrockruntime.Options) {
			o.HTTPClient = headerClient{name: mockprovider.FaultHeader, value: "rate_limit"}
		})
	var te *types.ThrottlingException
	if !errors.As(err, &te) {
		t.Fatalf("err = %v", err)
	}
}

// TestMissingCredentials: an unsigned request is Bedrock's 403.
func TestMissingCredentials(t *testing.T) {
	ts := newServer(t)
	resp, err := http.Post(ts.URL+"/model/"+sdkModel+"/converse", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("X-Amzn-Errortype") != "AccessDeniedException" || !strings.Contains(string(b), "Authorization header is missing") {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, b)
	}
}

var _ smithy.APIError = (*types.ValidationException)(nil)

// headerClient adds one header to every request.
type headerClient struct{ name, value string }

func (c headerClient) Do(r *http.Request) (*http.Response, error) {
	r.Header.Set(c.name, c.value)
	return http.DefaultClient.Do(r)
}

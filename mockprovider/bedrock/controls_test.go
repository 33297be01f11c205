package bedrock_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// drain reads a ConverseStream to its end: the reasoning text and
// signature, the tool names started, the text, the stop reason.
func drain(t *testing.T, out *bedrockruntime.ConverseStreamOutput) (reasoning, signature string, tools []string, text string, stop types.StopReason, err error) {
	t.Helper()
	stream := out.GetStream()
	defer stream.Close()
	for ev := range stream.Events() {
		switch v := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if u, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				tools = append(tools, aws.ToString(u.Value.Name))
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			switch d := v.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				text += d.Value
			case *types.ContentBlockDeltaMemberReasoningContent:
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					reasoning += r.Value
				case *types.ReasoningContentBlockDeltaMemberSignature:
					signature += r.Value
				}
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			stop = v.Value.StopReason
		}
	}
	return reasoning, signature, tools, text, stop, stream.Err()
}

// TestStreamReasoning: a scripted reasoning step streams as
// reasoningContent deltas, its text then its signature, before the call.
func TestStreamReasoning(t *testing.T) {
	set, err := mockprovider.BuiltinScenarios()
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Add(&scenario.Scenario{Name: "bedrock-reasoning", Description: "Reasoning before a call.", Turns: []scenario.Turn{
		{Reasoning: &scenario.Reasoning{Summary: "The user wants the weather: call get_weather."}, Calls: []scenario.Call{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}},
		{Text: "{{results}}"},
	}}); err != nil {
		t.Fatal(err)
	}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{bedrock.New()}, Scenarios: set})
	client := newClient(ts, "AKIDREASON")
	out, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()}, ToolConfig: weatherConfig()},
		func(o *bedrockruntime.Options) {
			o.HTTPClient = headerClient{name: mockprovider.ScenarioHeader, value: "bedrock-reasoning"}
		})
	if err != nil {
		t.Fatal(err)
	}
	reasoning, signature, tools, _, stop, err := drain(t, out)
	if err != nil || !strings.Contains(reasoning, "call get_weather") || signature == "" || len(tools) != 1 || stop != types.StopReasonToolUse {
		t.Fatalf("reasoning %q signature %q tools %v stop %q err %v", reasoning, signature, tools, stop, err)
	}
}

// TestForcedToolAndTokenLimit: toolChoice tool{name} makes the call to
// that tool; a maxTokens too small for the answer ends with max_tokens.
func TestForcedToolAndTokenLimit(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDCTRL")
	cfg := weatherConfig()
	cfg.Tools = append(cfg.Tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("get_time"),
		InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object"})}}})
	cfg.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String("get_time")}}
	out, err := client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()}, ToolConfig: cfg})
	if err != nil {
		t.Fatal(err)
	}
	msg := out.Output.(*types.ConverseOutputMemberMessage).Value
	u, ok := msg.Content[len(msg.Content)-1].(*types.ContentBlockMemberToolUse)
	if !ok || aws.ToString(u.Value.Name) != "get_time" {
		t.Fatalf("content = %+v", msg.Content)
	}

	out, err = client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != types.StopReasonMaxTokens {
		t.Fatalf("stop = %q", out.StopReason)
	}
}

// TestStreamFault: a stream_error fault after two events ends the stream
// with an exception message the SDK reports as
// ServiceUnavailableException.
func TestStreamFault(t *testing.T) {
	ts := newServer(t)
	client := newClient(ts, "AKIDSTREAMFAULT")
	out, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()}},
		func(o *bedrockruntime.Options) {
			o.HTTPClient = headerClient{name: mockprovider.FaultHeader, value: "stream_error;after=2"}
		})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, _, _, err = drain(t, out)
	var su *types.ServiceUnavailableException
	if !errors.As(err, &su) {
		t.Fatalf("err = %v", err)
	}
}

// TestUnknownMember: a member the Converse request does not define is a
// 400 ValidationException under bedrock.known-fields.
func TestUnknownMember(t *testing.T) {
	ts := newServer(t)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+bedrock.New().Endpoint(sdkModel, false),
		strings.NewReader(`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"max_tokens":10}`))
	bedrock.New().SetAuth(req.Header, "AKIDUNKNOWN")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// No capture shows Converse refusing a member it does not define: it
	// is answered, and journaled as a SHOULD.
	vs := ts.Violations("AKIDUNKNOWN")
	if resp.StatusCode != 200 || len(vs) != 1 || vs[0].Rule != bedrock.RuleKnownFields || vs[0].Level != rules.SHOULD || vs[0].Path != "max_tokens" {
		t.Fatalf("%d %v", resp.StatusCode, vs)
	}
}

// TestLenientJournalsUnknownMember: with --lenient an unknown member is
// answered and journaled under bedrock.known-fields.
func TestLenientJournalsUnknownMember(t *testing.T) {
	opts := rules.DefaultOptions()
	opts.Lenient = true
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{bedrock.New()}, Rules: opts})
	req, _ := http.NewRequest(http.MethodPost, ts.URL+bedrock.New().Endpoint(sdkModel, false),
		strings.NewReader(`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"max_tokens":10}`))
	bedrock.New().SetAuth(req.Header, "AKIDLENIENT")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	vs := ts.Violations("AKIDLENIENT")
	if resp.StatusCode != 200 || len(vs) != 1 || vs[0].Rule != bedrock.RuleKnownFields || vs[0].Path != "max_tokens" {
		t.Fatalf("%d %v", resp.StatusCode, vs)
	}
}

// TestBearerKeyNamesSession: a Bedrock API key sent as a bearer token
// names the session; a SigV4 header without a Credential is refused as
// an unknown token.
func TestBearerKeyNamesSession(t *testing.T) {
	ts := newServer(t)
	post := func(auth string) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+bedrock.New().Endpoint(sdkModel, false),
			strings.NewReader(`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`))
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("Bearer ABSKbedrockkey"); code != 200 || len(ts.Journal("ABSKbedrockkey")) != 1 {
		t.Fatalf("bearer: %d, journal %d", code, len(ts.Journal("ABSKbedrockkey")))
	}
	if code := post("AWS4-HMAC-SHA256 SignedHeaders=host, Signature=0"); code != 403 {
		t.Fatalf("SigV4 without a credential: %d", code)
	}
}

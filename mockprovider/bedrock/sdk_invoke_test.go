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
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// invokeBody is an Anthropic Messages body as InvokeModel takes it: the
// Bedrock version in the body, no model member.
func invokeBody(t *testing.T, messages ...any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1024, "messages": messages,
		"tools": []any{map[string]any{"name": "get_weather", "description": "Get current weather for a city.",
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// anthropicAnswer is what a test reads of a Messages answer.
type anthropicAnswer struct {
	Content    []map[string]any `json:"content"`
	StopReason string           `json:"stop_reason"`
}

func (a anthropicAnswer) call() (id string) {
	for _, b := range a.Content {
		if b["type"] == "tool_use" {
			id, _ = b["id"].(string)
		}
	}
	return id
}

func (a anthropicAnswer) text() (s string) {
	for _, b := range a.Content {
		if b["type"] == "text" {
			t, _ := b["text"].(string)
			s += t
		}
	}
	return s
}

// streamedAnswer folds InvokeModelWithResponseStream's chunks, each the
// JSON of one Anthropic stream event, into the answer they spell.
func streamedAnswer(t *testing.T, out *bedrockruntime.InvokeModelWithResponseStreamOutput) anthropicAnswer {
	t.Helper()
	s := out.GetStream()
	defer s.Close()
	var a anthropicAnswer
	for ev := range s.Events() {
		chunk, ok := ev.(*types.ResponseStreamMemberChunk)
		if !ok {
			t.Fatalf("event %T", ev)
		}
		var e struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        struct {
				Type, Text, PartialJSON string
				StopReason              string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(chunk.Value.Bytes, &e); err != nil {
			t.Fatalf("chunk %q: %v", chunk.Value.Bytes, err)
		}
		switch e.Type {
		case "content_block_start":
			a.Content = append(a.Content, e.ContentBlock)
		case "content_block_delta":
			if e.Delta.Type == "text_delta" {
				a.Content[e.Index]["text"] = a.Content[e.Index]["text"].(string) + e.Delta.Text
			}
		case "message_delta":
			a.StopReason = e.Delta.StopReason
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSDKInvokeModelToolLoop: InvokeModel and
// InvokeModelWithResponseStream with an Anthropic body, through the
// official client: a tool_use, the result sent back, a final text; a body
// the Anthropic rules refuse is Bedrock's ValidationException with the
// Anthropic API's message.
func TestSDKInvokeModelToolLoop(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New(), bedrock.New()}})
	client := newClient(ts, "AKIDINVOKE")
	ctx := context.Background()
	ask := map[string]any{"role": "user", "content": "What is the weather in Paris?"}
	answered := func(first anthropicAnswer, id string) []byte {
		return invokeBody(t, ask, map[string]any{"role": "assistant", "content": first.Content},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "18C, cloudy"}}})
	}

	out, err := client.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{ModelId: aws.String(sdkModel), ContentType: aws.String("application/json"), Body: invokeBody(t, ask)})
	if err != nil {
		t.Fatal(err)
	}
	var first anthropicAnswer
	if err := json.Unmarshal(out.Body, &first); err != nil {
		t.Fatal(err)
	}
	id := first.call()
	if id == "" || first.StopReason != "tool_use" {
		t.Fatalf("first answer %s", out.Body)
	}
	out, err = client.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{ModelId: aws.String(sdkModel), ContentType: aws.String("application/json"), Body: answered(first, id)})
	if err != nil {
		t.Fatal(err)
	}
	var final anthropicAnswer
	if err := json.Unmarshal(out.Body, &final); err != nil || final.StopReason != "end_turn" || final.text() == "" {
		t.Fatalf("final answer %s (%v)", out.Body, err)
	}

	// Streamed: the same loop, each chunk an Anthropic event.
	sout, err := client.InvokeModelWithResponseStream(ctx, &bedrockruntime.InvokeModelWithResponseStreamInput{ModelId: aws.String(sdkModel),
		ContentType: aws.String("application/json"), Body: invokeBody(t, ask)})
	if err != nil {
		t.Fatal(err)
	}
	first = streamedAnswer(t, sout)
	id = first.call()
	if id == "" || first.StopReason != "tool_use" {
		t.Fatalf("first streamed answer %+v", first)
	}
	// The streamed tool_use starts with empty input: send back the input
	// the call was made with, as a client assembling the deltas would.
	for _, b := range first.Content {
		if b["type"] == "tool_use" {
			b["input"] = map[string]any{"city": "Paris"}
		}
	}
	sout, err = client.InvokeModelWithResponseStream(ctx, &bedrockruntime.InvokeModelWithResponseStreamInput{ModelId: aws.String(sdkModel),
		ContentType: aws.String("application/json"), Body: answered(first, id)})
	if err != nil {
		t.Fatal(err)
	}
	if final = streamedAnswer(t, sout); final.StopReason != "end_turn" || final.text() == "" {
		t.Fatalf("final streamed answer %+v", final)
	}

	// A result answering no call: the Anthropic rule's refusal, worded by
	// the Anthropic API, in Bedrock's shape.
	_, err = client.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{ModelId: aws.String(sdkModel), ContentType: aws.String("application/json"),
		Body: invokeBody(t, ask, map[string]any{"role": "assistant", "content": "Let me check."},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": "18C"}}})})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "ValidationException" || !strings.Contains(apiErr.ErrorMessage(), "tool_result") {
		t.Fatalf("stray result: %v", err)
	}

	// A model Bedrock does not serve: its 400, before the body is read.
	_, err = client.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{ModelId: aws.String("anthropic.claude-test-v1:0"), ContentType: aws.String("application/json"), Body: invokeBody(t, ask)})
	if !errors.As(err, &apiErr) || apiErr.ErrorMessage() != "The provided model identifier is invalid." {
		t.Fatalf("unknown model: %v", err)
	}
}

// TestInvokeFaults: injected faults come back in Bedrock's words, before
// the answer (ThrottlingException) and inside the stream (an exception
// message of the event stream), not in the Anthropic API's.
func TestInvokeFaults(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New(), bedrock.New()}})
	post := func(path, fault string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/model/"+sdkModel+path,
			strings.NewReader(`{"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDFAULT/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=00")
		req.Header.Set(mockprovider.FaultHeader, fault)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := post("/invoke", "rate_limit")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-Amzn-Errortype") != "ThrottlingException" || strings.Contains(string(body), "organization") {
		t.Fatalf("rate limit: %d %s %s", resp.StatusCode, resp.Header.Get("X-Amzn-Errortype"), body)
	}
	resp = post("/invoke-with-response-stream", "stream_error")
	dec := eventstream.NewDecoder()
	var last eventstream.Message
	for {
		msg, err := dec.Decode(resp.Body, nil)
		if err != nil {
			break
		}
		last = msg
	}
	if v := last.Headers.Get(":message-type"); v == nil || v.String() != "exception" {
		t.Fatalf("the stream did not end on an exception: %v", last.Headers)
	}
	if v := last.Headers.Get(":exception-type"); v == nil || v.String() != "serviceUnavailableException" || strings.Contains(string(last.Payload), "Overloaded") {
		t.Fatalf("exception %v %s", v, last.Payload)
	}
}

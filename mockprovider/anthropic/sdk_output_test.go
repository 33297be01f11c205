package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider"
)

// weatherReport is the final answer's shape in the structured-output
// tests: every member required, as the schema below says.
type weatherReport struct {
	City        string   `json:"city"`
	Temperature float64  `json:"temperature"`
	Conditions  []string `json:"conditions"`
	Severe      bool     `json:"severe"`
}

// reportSchema is weatherReport's schema in the structured-output subset
// (every object closed with additionalProperties: false).
func reportSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"city":        map[string]any{"type": "string"},
			"temperature": map[string]any{"type": "number"},
			"conditions":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"severe":      map[string]any{"type": "boolean"},
		},
		"required":             []string{"city", "temperature", "conditions", "severe"},
		"additionalProperties": false,
	}
}

// decodeReport unmarshals the message's one text block strictly: a
// member the struct does not know, or any trailing text, fails.
func decodeReport(t *testing.T, form string, msg *sdk.Message) weatherReport {
	t.Helper()
	var texts []string
	for _, b := range msg.Content {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	if len(texts) != 1 {
		t.Fatalf("%s: %d text blocks, want the one JSON answer: %+v", form, len(texts), msg.Content)
	}
	dec := json.NewDecoder(strings.NewReader(texts[0]))
	dec.DisallowUnknownFields()
	var r weatherReport
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("%s: final text %q is not a weatherReport: %v", form, texts[0], err)
	}
	if dec.More() {
		t.Fatalf("%s: text after the JSON value in %q", form, texts[0])
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(texts[0]), &raw); err != nil || len(raw) != 4 {
		t.Fatalf("%s: final text %q: want the four required members", form, texts[0])
	}
	return r
}

// TestSDKStructuredOutputAfterToolLoop: an agent whose last step asks for
// output_config.format gets the final answer as JSON valid against the
// schema, whole and streamed (text_delta events the SDK accumulates),
// after a get_weather call; the call turn is left a tool_use turn, and
// usage counts the JSON text.
func TestSDKStructuredOutputAfterToolLoop(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, form := range []string{"whole", "streamed"} {
		key := "sdk-output-" + form
		c := client(ts, key)
		send := nonStreaming(c)
		if form == "streamed" {
			send = streaming(c)
		}
		p := newParams("What's the weather in Paris? Answer as a report.")
		p.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: reportSchema()}}
		msgs := loop(t, send, p)
		if len(msgs) != 2 || len(toolUses(msgs[0])) != 1 {
			t.Fatalf("%s: %d turns, want a tool_use turn then the answer", form, len(msgs))
		}
		decodeReport(t, form, msgs[1])
		// About four bytes a token: the usage covers at least the JSON.
		if text := msgs[1].Content[0].Text; msgs[1].Usage.OutputTokens < int64(len(text)/4) {
			t.Errorf("%s: %d output tokens for a %d-byte answer", form, msgs[1].Usage.OutputTokens, len(text))
		}
		assertCleanJournal(t, ts, key, 2)
	}
}

// betaSend sends p through the SDK's beta client whole, or streamed and
// accumulated, then parses the answer into dest with the SDK's own
// structured-output helper (New parses a struct-pointer schema itself;
// a streamed message is parsed with BetaMessage.ParseOutput).
func betaSend(t *testing.T, c sdk.Client, form string, p sdk.BetaMessageNewParams, dest any) *sdk.BetaMessage {
	t.Helper()
	if form == "whole" {
		msg, err := c.Beta.Messages.New(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		return msg
	}
	s := c.Beta.Messages.NewStreaming(context.Background(), p)
	defer s.Close()
	var msg sdk.BetaMessage
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			t.Fatalf("%s: %v", form, err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("%s: %v", form, err)
	}
	if err := msg.ParseOutput(dest); err != nil {
		t.Fatalf("%s: ParseOutput: %v", form, err)
	}
	return &msg
}

// TestSDKBetaStructuredOutputParse: the SDK's beta client takes a Go
// struct pointer as the schema (it sends the schema it reflects and
// parses the answer back into the struct), under output_config.format
// and under the deprecated output_format with the structured-outputs
// beta, whole and streamed.
func TestSDKBetaStructuredOutputParse(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for _, shape := range []string{"output_config.format", "output_format"} {
		for _, form := range []string{"whole", "streamed"} {
			key := "sdk-beta-output-" + shape + "-" + form
			var report weatherReport
			p := sdk.BetaMessageNewParams{
				Model:     sdk.ModelClaudeHaiku4_5,
				MaxTokens: 1024,
				Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("Report the weather in Paris."))},
			}
			if shape == "output_format" {
				p.Betas = []sdk.AnthropicBeta{sdk.AnthropicBetaStructuredOutputs2025_11_13}
				p.OutputFormat = sdk.BetaJSONOutputFormatParam{Schema: &report}
			} else {
				p.OutputConfig = sdk.BetaOutputConfigParam{Format: sdk.BetaJSONOutputFormatParam{Schema: &report}}
			}
			msg := betaSend(t, client(ts, key), form, p, &report)
			if msg.StopReason != sdk.BetaStopReasonEndTurn || report.City == "" || report.Conditions == nil {
				t.Fatalf("%s %s: stop %q, parsed %+v from %+v", shape, form, msg.StopReason, report, msg.Content)
			}
			assertCleanJournal(t, ts, key, 1)
		}
	}
}

// TestSDKVertexStructuredOutput: the Vertex backend (the same dialect,
// :rawPredict and :streamRawPredict) shapes the answer too.
func TestSDKVertexStructuredOutput(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := vertexClient(ts, "vertex-output")
	for form, send := range map[string]func(sdk.MessageNewParams) (*sdk.Message, error){"whole": nonStreaming(c), "streamed": streaming(c)} {
		p := newParams("What's the weather in Paris? Answer as a report.")
		p.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: reportSchema()}}
		msgs := loop(t, send, p)
		decodeReport(t, form, msgs[len(msgs)-1])
	}
	for _, e := range ts.Journal("vertex-output") {
		if e.Status != 200 || len(e.Violations) > 0 {
			t.Fatalf("entry %d: status %d violations %v", e.Seq, e.Status, e.Violations)
		}
	}
}

// TestSDKStructuredOutputRefusals: what the API refuses reaches the SDK as
// *anthropic.Error with its status, type and text, whole and streamed —
// an open output schema, a bound the grammar cannot enforce on a strict
// tool, output_format on a model that no longer takes it — while the same
// open schema on a tool that is not strict is accepted.
func TestSDKStructuredOutputRefusals(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	open := reportSchema()
	delete(open, "additionalProperties")
	boundedTool := sdk.ToolParam{
		Name:   "get_weather",
		Strict: sdk.Bool(true),
		InputSchema: sdk.ToolInputSchemaParam{
			Properties:  map[string]any{"location": map[string]any{"type": "string", "maxLength": 80}},
			Required:    []string{"location"},
			ExtraFields: map[string]any{"additionalProperties": false},
		},
	}
	cases := []struct {
		name, want string
		send       func(c sdk.Client, stream bool) error
	}{
		{"open output schema", "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false",
			func(c sdk.Client, stream bool) error {
				p := newParams("Report the weather in Paris.")
				p.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: open}}
				return sendErr(c, stream, p)
			}},
		{"maxLength on a strict tool", "tools.0.custom: For 'string' type, property 'maxLength' is not supported",
			func(c sdk.Client, stream bool) error {
				p := newParams("What's the weather in Paris?")
				p.Tools = []sdk.ToolUnionParam{{OfTool: &boundedTool}}
				return sendErr(c, stream, p)
			}},
		{"output_format on Opus 4.7", "output_format: This field is deprecated. Use 'output_config.format' instead.",
			func(c sdk.Client, stream bool) error {
				var report weatherReport
				p := sdk.BetaMessageNewParams{
					Model: sdk.ModelClaudeOpus4_7, MaxTokens: 1024,
					Messages:     []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("Report the weather in Paris."))},
					Betas:        []sdk.AnthropicBeta{sdk.AnthropicBetaStructuredOutputs2025_11_13},
					OutputFormat: sdk.BetaJSONOutputFormatParam{Schema: &report},
				}
				if !stream {
					_, err := c.Beta.Messages.New(context.Background(), p)
					return err
				}
				s := c.Beta.Messages.NewStreaming(context.Background(), p)
				defer s.Close()
				for s.Next() {
				}
				return s.Err()
			}},
	}
	for _, tc := range cases {
		for _, stream := range []bool{false, true} {
			err := tc.send(client(ts, "sdk-output-refusals"), stream)
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("%s (stream %v): %v, want *anthropic.Error", tc.name, stream, err)
			}
			if apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" || !strings.HasPrefix(apiErr.Message, tc.want) {
				t.Errorf("%s (stream %v): %d %s %q, want 400 invalid_request_error %q", tc.name, stream, apiErr.StatusCode, apiErr.Type(), apiErr.Message, tc.want)
			}
		}
	}
	// The same open schema on a tool that is not strict: accepted.
	p := newParams("What's the weather in Paris?")
	p.Tools = []sdk.ToolUnionParam{{OfTool: &sdk.ToolParam{Name: "get_weather", InputSchema: sdk.ToolInputSchemaParam{
		Properties: map[string]any{"location": map[string]any{"type": "string", "maxLength": 80}}, Required: []string{"location"}}}}}
	if _, err := nonStreaming(client(ts, "sdk-output-loose"))(p); err != nil {
		t.Fatalf("a non-strict tool's schema is not compiled, yet: %v", err)
	}
	assertCleanJournal(t, ts, "sdk-output-loose", 1)
}

// sendErr sends p whole or streamed and returns the error.
func sendErr(c sdk.Client, stream bool, p sdk.MessageNewParams) error {
	send := nonStreaming(c)
	if stream {
		send = streaming(c)
	}
	_, err := send(p)
	return err
}

package openairesp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
)

// forecast is the Go form of forecastSchema, the app's own struct.
type forecast struct {
	Location string   `json:"location"`
	Celsius  float64  `json:"celsius"`
	Tags     []string `json:"tags"`
}

var forecastSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"location": map[string]any{"type": "string"},
		"celsius":  map[string]any{"type": "number"},
		"tags":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
	"required":             []string{"location", "celsius", "tags"},
	"additionalProperties": false,
}

func forecastText() responses.ResponseTextConfigParam {
	return responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigParamOfJSONSchema("forecast", forecastSchema)}
}

func decodeStrict(t *testing.T, text string, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		t.Fatalf("answer %q does not decode into %T: %v", text, v, err)
	}
}

// structuredLoop runs a tool loop with params' text format, each turn
// whole or streamed, and returns the final response.
func structuredLoop(t *testing.T, c openai.Client, text responses.ResponseTextConfigParam, prompt string, stream bool) *responses.Response {
	t.Helper()
	ctx := context.Background()
	input := responses.ResponseInputParam{userText(prompt)}
	for turn := 1; turn <= 5; turn++ {
		params := responses.ResponseNewParams{Model: "gpt-4.1", Tools: []responses.ToolUnionParam{weatherTool()}, Input: inputList(input...), Text: text}
		var r *responses.Response
		if stream {
			s := c.Responses.NewStreaming(ctx, params)
			for s.Next() {
				if ev := s.Current(); ev.Type == "response.completed" {
					resp := ev.Response
					r = &resp
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			s.Close()
		} else {
			var err error
			if r, err = c.Responses.New(ctx, params); err != nil {
				t.Fatal(err)
			}
		}
		if r == nil {
			t.Fatal("no final response")
		}
		cs := calls(r)
		if len(cs) == 0 {
			if turn != 2 {
				t.Errorf("answer came at turn %d, want after one call", turn)
			}
			return r
		}
		input = append(input, replay(r)...)
		for _, call := range cs {
			input = append(input, output(call.CallID, `{"celsius":21}`))
		}
	}
	t.Fatal("no final answer after 5 turns")
	return nil
}

// TestSDKStructuredAfterToolLoop: a json_schema text.format (name, schema
// and strict on the format itself) turns the answer that ends a tool loop
// into JSON the app's struct reads, whole and streamed; OutputText is the
// JSON, the response echoes the format, and usage counts the JSON text.
func TestSDKStructuredAfterToolLoop(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, stream := range []bool{false, true} {
		key := "sk-structured-" + map[bool]string{false: "whole", true: "streamed"}[stream]
		r := structuredLoop(t, client(ts, key), forecastText(), "Weather in Tokyo?", stream)
		var f forecast
		decodeStrict(t, r.OutputText(), &f)
		if r.Text.Format.Type != "json_schema" || r.Text.Format.Name != "forecast" {
			t.Errorf("stream %v: echoed format %s", stream, r.Text.RawJSON())
		}
		if want := int64(max(1, len(r.OutputText())/4)); r.Usage.OutputTokens < want {
			t.Errorf("stream %v: output tokens %d, fewer than the JSON text's %d", stream, r.Usage.OutputTokens, want)
		}
		noViolations(t, ts, key)
	}
}

// TestSDKJSONObject: json_object makes the answer a JSON object when the
// input says "JSON", whole and, after a tool loop, streamed.
func TestSDKJSONObject(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-json-object")
	r, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1",
		Input: inputList(userText("Describe Tokyo as a JSON object.")),
		Text:  responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &responses.ResponseFormatJSONObjectParam{}}}})
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(r.OutputText()), &obj); err != nil || obj == nil {
		t.Errorf("answer %q is not a JSON object", r.OutputText())
	}
	noViolations(t, ts, "sk-json-object")
	// After a tool loop, streamed.
	text := responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &responses.ResponseFormatJSONObjectParam{}}}
	final := structuredLoop(t, client(ts, "sk-json-object-stream"), text, "Weather in Tokyo, as JSON?", true)
	obj = nil
	if err := json.Unmarshal([]byte(final.OutputText()), &obj); err != nil || obj == nil {
		t.Errorf("streamed answer %q is not a JSON object", final.OutputText())
	}
	noViolations(t, ts, "sk-json-object-stream")
}

// sdkRefusal sends params and returns the API error the SDK raised.
func sdkRefusal(t *testing.T, params responses.ResponseNewParams) *openai.Error {
	t.Helper()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-refused")
	_, err := c.Responses.New(context.Background(), params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want *openai.Error, got %v", err)
	}
	return apiErr
}

// TestSDKStructuredRefusals: the schema and JSON-mode 400s arrive through
// the SDK as *openai.Error with the API's message, param and code, whole
// and streamed; the schema ones point at text.format.schema with code
// invalid_json_schema.
func TestSDKStructuredRefusals(t *testing.T) {
	strict := responses.ResponseFormatTextConfigParamOfJSONSchema("forecast", map[string]any{
		"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}, "required": []string{"location"},
	})
	strict.OfJSONSchema.Strict = openai.Bool(true)
	unique := responses.ResponseFormatTextConfigParamOfJSONSchema("forecast", map[string]any{
		"type": "object", "properties": map[string]any{"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "uniqueItems": true}},
		"required": []string{"tags"}, "additionalProperties": false,
	})
	unique.OfJSONSchema.Strict = openai.Bool(true)
	jsonObject := responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &responses.ResponseFormatJSONObjectParam{}}
	for name, c := range map[string]struct {
		format               responses.ResponseFormatTextConfigUnionParam
		instructions         string
		message, param, code string
	}{
		"loose strict schema":       {strict, "", "Invalid schema for response_format 'forecast': In context=(), 'additionalProperties' is required to be supplied and to be false.", "text.format.schema", "invalid_json_schema"},
		"uniqueItems":               {unique, "", "Invalid schema for response_format 'forecast': In context=('properties', 'tags'), 'uniqueItems' is not permitted.", "text.format.schema", "invalid_json_schema"},
		"json in instructions only": {jsonObject, "Answer in JSON.", "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.", "input", ""},
	} {
		params := responses.ResponseNewParams{Model: "gpt-4.1", Input: inputList(userText("Weather in Tokyo?")),
			Text: responses.ResponseTextConfigParam{Format: c.format}}
		if c.instructions != "" {
			params.Instructions = openai.String(c.instructions)
		}
		for _, e := range []*openai.Error{sdkRefusal(t, params), sdkStreamRefusal(t, params)} {
			if e.StatusCode != 400 || e.Message != c.message || e.Param != c.param || e.Code != c.code {
				t.Errorf("%s: status %d message %q param %q code %q", name, e.StatusCode, e.Message, e.Param, e.Code)
			}
		}
	}
}

// sdkStreamRefusal is sdkRefusal for a streamed request.
func sdkStreamRefusal(t *testing.T, params responses.ResponseNewParams) *openai.Error {
	t.Helper()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-refused-stream")
	stream := c.Responses.NewStreaming(context.Background(), params)
	defer stream.Close()
	for stream.Next() {
	}
	var apiErr *openai.Error
	if !errors.As(stream.Err(), &apiErr) {
		t.Fatalf("want *openai.Error, got %v", stream.Err())
	}
	return apiErr
}

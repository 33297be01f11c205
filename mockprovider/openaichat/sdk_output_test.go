package openaichat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/toolwire/toolwire/mockprovider"
)

// forecast is the Go form of forecastSchema: the app's own struct, which
// it decodes the final answer into.
type forecast struct {
	City        string   `json:"city"`
	Temperature float64  `json:"temperature"`
	Conditions  []string `json:"conditions"`
	Windy       bool     `json:"windy"`
}

var forecastSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city":        map[string]any{"type": "string"},
		"temperature": map[string]any{"type": "number"},
		"conditions":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"sunny", "rain"}}},
		"windy":       map[string]any{"type": "boolean"},
	},
	"required":             []string{"city", "temperature", "conditions", "windy"},
	"additionalProperties": false,
}

func forecastFormat() openai.ChatCompletionNewParamsResponseFormatUnion {
	return openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{
		JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: "forecast", Strict: openai.Bool(true), Schema: forecastSchema},
	}}
}

// decodeStrict decodes the whole text into v, refusing members v does not
// have, as a strict schema promises.
func decodeStrict(t *testing.T, text string, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		t.Fatalf("answer %q does not decode into %T: %v", text, v, err)
	}
}

// streamLoop is runLoop with every turn streamed and accumulated.
func streamLoop(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams) (final openai.ChatCompletion, turns int) {
	t.Helper()
	for turns = 1; turns <= 6; turns++ {
		acc := accumulate(t, client, params)
		msg := acc.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return acc.ChatCompletion, turns
		}
		params.Messages = append(params.Messages, msg.ToParam())
		for _, tc := range msg.ToolCalls {
			params.Messages = append(params.Messages, openai.ToolMessage(weatherTool(tc.Function.Name, nil), tc.ID))
		}
	}
	t.Fatal("tool loop did not end within 6 turns")
	return
}

// TestSDKStructuredAfterToolLoop: a strict json_schema response format
// turns the answer that ends a tool loop into JSON the app's struct reads
// (every required member there, none other, enum values kept), whole and
// streamed; the call turn before it is unchanged and usage counts the JSON
// text. Before the mock read response_format, the answer was prose.
func TestSDKStructuredAfterToolLoop(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	params := weatherParams("What's the weather in Paris?")
	params.ResponseFormat = forecastFormat()

	key := sessionKey(t)
	final, seen := runLoop(t, newClient(ts, key), params, weatherTool)
	streamed, turns := streamLoop(t, newClient(ts, key+"-stream"), params)
	if len(seen) != 2 || turns != 2 {
		t.Fatalf("want a call turn then the answer, got %d whole and %d streamed turns", len(seen), turns)
	}
	for form, c := range map[string]openai.ChatCompletion{"whole": *final, "streamed": streamed} {
		text := c.Choices[0].Message.Content
		var f forecast
		decodeStrict(t, text, &f)
		for _, cond := range f.Conditions {
			if cond != "sunny" && cond != "rain" {
				t.Errorf("%s: condition %q is not in the enum", form, cond)
			}
		}
		if c.Choices[0].FinishReason != "stop" {
			t.Errorf("%s: finish %q", form, c.Choices[0].FinishReason)
		}
	}
	if want := int64(max(1, len(final.Choices[0].Message.Content)/4)); final.Usage.CompletionTokens != want {
		t.Errorf("completion tokens %d, want %d for the JSON text", final.Usage.CompletionTokens, want)
	}
	for _, k := range []string{key, key + "-stream"} {
		if vs := ts.Violations(k); len(vs) != 0 {
			t.Errorf("%s: violations %v", k, vs)
		}
	}
}

// TestSDKJSONObject: json_object (JSON mode) makes the answer a JSON
// object, whole and streamed, when the messages say "JSON".
func TestSDKJSONObject(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	params := openai.ChatCompletionNewParams{
		Model:          sdkModel,
		Messages:       []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Describe Paris as a JSON object.")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &openai.ResponseFormatJSONObjectParam{}},
	}
	key := sessionKey(t)
	client := newClient(ts, key)
	whole, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	acc := accumulate(t, client, params)
	for form, text := range map[string]string{"whole": whole.Choices[0].Message.Content, "streamed": acc.Choices[0].Message.Content} {
		var obj map[string]any
		if err := json.Unmarshal([]byte(text), &obj); err != nil || obj == nil {
			t.Errorf("%s: answer %q is not a JSON object", form, text)
		}
	}
	if vs := ts.Violations(key); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestSDKTextFormatIsFreeText: response_format text leaves the answer as
// prose.
func TestSDKTextFormatIsFreeText(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	params := openai.ChatCompletionNewParams{
		Model:          sdkModel,
		Messages:       []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfText: &openai.ResponseFormatTextParam{}},
	}
	client := newClient(ts, sessionKey(t))
	resp, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(describe(err))
	}
	if text := resp.Choices[0].Message.Content; json.Valid([]byte(text)) {
		t.Errorf("text format answered JSON %q", text)
	}
}

// sdkRefusal sends params and returns the API error the SDK raised.
func sdkRefusal(t *testing.T, params openai.ChatCompletionNewParams) *openai.Error {
	t.Helper()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	_, err := client.Chat.Completions.New(context.Background(), params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want *openai.Error, got %v", err)
	}
	return apiErr
}

// TestSDKStructuredRefusals: the schema and JSON-mode 400s arrive through
// the SDK as *openai.Error with the API's message, param and code (null:
// ""), whole and streamed.
func TestSDKStructuredRefusals(t *testing.T) {
	loose := weatherParams("Weather in Paris?")
	loose.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{
		JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: "forecast", Strict: openai.Bool(true), Schema: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"},
		}},
	}}
	array := weatherParams("Weather in Paris?")
	array.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{
		JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: "cities", Schema: map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
	}}
	noWord := openai.ChatCompletionNewParams{Model: sdkModel, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Describe Paris.")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &openai.ResponseFormatJSONObjectParam{}}}
	for name, c := range map[string]struct {
		params         openai.ChatCompletionNewParams
		message, param string
	}{
		"loose strict schema": {loose, "Invalid schema for response_format 'forecast': In context=(), 'additionalProperties' is required to be supplied and to be false.", "response_format"},
		"array schema":        {array, `Invalid schema for response_format 'cities': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`, "response_format"},
		"json mode":           {noWord, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages"},
	} {
		for _, e := range []*openai.Error{sdkRefusal(t, c.params), sdkStreamRefusal(t, c.params)} {
			if e.StatusCode != 400 || e.Message != c.message || e.Param != c.param || e.Code != "" || e.Type != "invalid_request_error" {
				t.Errorf("%s: status %d message %q param %q code %q type %q", name, e.StatusCode, e.Message, e.Param, e.Code, e.Type)
			}
		}
	}
}

// sdkStreamRefusal is sdkRefusal for a streamed request.
func sdkStreamRefusal(t *testing.T, params openai.ChatCompletionNewParams) *openai.Error {
	t.Helper()
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	client := newClient(ts, sessionKey(t))
	stream := client.Chat.Completions.NewStreaming(context.Background(), params)
	defer stream.Close()
	for stream.Next() {
	}
	var apiErr *openai.Error
	if !errors.As(stream.Err(), &apiErr) {
		t.Fatalf("want *openai.Error, got %v", stream.Err())
	}
	return apiErr
}

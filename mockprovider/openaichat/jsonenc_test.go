package openaichat

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/model"
)

// FuzzAppendValue holds jsonscan.AppendJSON to json.Marshal on every value
// a JSON decode produces, and appendRaw to json.Marshal of the bytes as a
// json.RawMessage (valid or not).
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,-1.5e-7,1e21,123456789,0.000001,"<\u2028>"],"c":{"z":{},"y":[]}}`, `  [ 1 , "x" ]  `, `"s"`, `null`,
		`1e20`, `-0`, `{"a" : "b c", "d":[ 1, 2 ]}`, `{"<":"&"}`, "{\"k\":\"\xe2\x80\xa8\"}", `{`, `[1,]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wantRaw, rawErr := json.Marshal(json.RawMessage(b))
		gotRaw, ok := appendRaw(nil, b)
		if b == nil {
			return // RawMessage(nil) is omitted by the callers
		}
		if ok != (rawErr == nil) || ok && !bytes.Equal(gotRaw, wantRaw) {
			t.Fatalf("appendRaw(%q) = %s %v, json.Marshal = %s %v", b, gotRaw, ok, wantRaw, rawErr)
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		want, err := json.Marshal(v)
		got, ok := jsonscan.AppendJSON(nil, v)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Fatalf("jsonscan.AppendJSON(%#v) = %s %v, json.Marshal = %s %v", v, got, ok, want, err)
		}
	})
}

// TestAppendValueFailsWhereMarshalFails: the encoder reports failure for
// exactly the values json.Marshal refuses, so callers fall back to it, and
// encodes any other value as Marshal does.
func TestAppendValueFailsWhereMarshalFails(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), []any{math.Inf(-1)}, map[string]any{"a": 1}, map[string]any{"a": []string{"x"}}, json.Number("1")} {
		want, err := json.Marshal(v)
		got, ok := jsonscan.AppendJSON(nil, v)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Errorf("jsonscan.AppendJSON(%#v) = %s %v, json.Marshal = %s %v", v, got, ok, want, err)
		}
	}
}

// FuzzConversationMatchesMarshal: the conversation every body decodes to
// is encoded byte for byte as json.Marshal encodes it, and encodedLen is
// its length.
func FuzzConversationMatchesMarshal(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Good))
		f.Add([]byte(c.Bad))
	}
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, b := range benchBodies(f) {
		f.Add(b)
	}
	f.Add([]byte(manyCallsBody(20)))
	f.Add([]byte(`{"model":"<m>","tools":[{"type":"function","function":{"name":"f","description":"a & b","parameters":{"type":"object","description":"x\u2028<y>","properties":{"n":{"type":"number","default":1e-7}}},"strict":true}}],"tool_choice":{"type":"function","function":{"name":"f"}},"stream":true,"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}},{"type":"file","file":{"file_id":"f1","filename":"a.pdf"}}]},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"n\":1.5e300,\"s\":\"<\",\"l\":[null,false,{}]}"}},{"id":"d","type":"function","function":{"name":"f","arguments":{"n":1e400}}}]},{"role":"tool","tool_call_id":"c","content":"<ok>"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRequest(body)
		if err != nil {
			return
		}
		c := toConversation(req)
		checkConversationEncoding(t, c)
	})
}

func checkConversationEncoding(t *testing.T, c *conv.Conversation) {
	t.Helper()
	want, err := json.Marshal(c)
	got, ok := appendConversation(nil, c)
	if ok && (err != nil || !bytes.Equal(got, want)) {
		t.Fatalf("appendConversation\n got %s\nwant %s %v", got, want, err)
	}
	if n := encodedLen(c); n != len(want) {
		t.Fatalf("encodedLen = %d, len(json.Marshal) = %d (%v)", n, len(want), err)
	}
}

// TestConversationEncodingEveryField sets every field of every conv type,
// including those Chat never fills, and values json.Marshal refuses.
func TestConversationEncodingEveryField(t *testing.T) {
	full := &conv.Conversation{
		Dialect: conv.OpenAIResponses, Model: "m", System: "sys<", Stream: true, PreviousResponseID: "resp_1",
		Tools:      []conv.Tool{{Name: "f", Description: "d", Parameters: json.RawMessage(" { \"a\" : [1, \"<b c>\"] }\n"), Strict: true}, {Name: "g"}},
		ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: "f"},
		Turns: []conv.Turn{
			{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindText, Text: "hi"}, {Kind: conv.KindMedia, Media: &conv.Content{Type: conv.ContentImage, MIMEType: "image/png", Data: "AA", URL: "u", DisplayName: "n", Text: "t"}}}},
			{Role: conv.Assistant, Parts: []conv.Part{
				{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{ID: "rs", EncryptedContent: "e", Summary: "s"}},
				{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{}},
				{Kind: conv.KindCall, Call: &conv.Call{ID: "c", Name: "f", Arguments: map[string]any{"z": 1.0, "a": []any{"x", nil, true}}, ItemID: "fc", ThoughtSignature: "sig"}},
				{Kind: conv.KindCall, Call: &conv.Call{ID: "d", Name: "g"}},
			}},
			{Role: conv.User, Parts: []conv.Part{
				{Kind: conv.KindResult, Result: &conv.Result{CallID: "c", Name: "f", IsError: true, Structured: map[string]any{"k": "v"}, Content: []conv.Content{{Type: conv.ContentText, Text: "r"}}}},
				{Kind: conv.KindResult, Result: &conv.Result{}},
				{Kind: conv.KindResult, Result: &conv.Result{Name: "only"}},
				{Kind: conv.KindResult, Result: &conv.Result{IsError: true}},
				{Kind: conv.KindResult, Result: &conv.Result{Structured: map[string]any{}, Content: []conv.Content{}}},
			}},
			{Role: conv.User},
		},
	}
	checkConversationEncoding(t, full)
	checkConversationEncoding(t, &conv.Conversation{})
	checkConversationEncoding(t, &conv.Conversation{Turns: []conv.Turn{}, Tools: []conv.Tool{}})
	for _, bad := range []*conv.Conversation{
		{Turns: []conv.Turn{{Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{Arguments: map[string]any{"n": math.Inf(1)}}}}}}},
		{Turns: []conv.Turn{{Parts: []conv.Part{{Kind: conv.KindResult, Result: &conv.Result{Structured: map[string]any{"n": math.NaN()}}}}}}},
		{Tools: []conv.Tool{{Name: "f", Parameters: json.RawMessage(`{"a":`)}}},
		{Turns: []conv.Turn{{Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{Arguments: map[string]any{"n": 3, "m": json.Number("2")}}}}}}},
	} {
		checkConversationEncoding(t, bad)
	}
}

// TestConversationFieldsKnown fails when a conv type gains, loses or
// renames a field: appendConversation writes the fields it knows, so it
// must be taught about the change.
func TestConversationFieldsKnown(t *testing.T) {
	known := map[reflect.Type]string{
		reflect.TypeFor[conv.Conversation](): "Dialect:dialect Model:model System:system,omitempty Tools:tools,omitempty ToolChoice:tool_choice Turns:turns Stream:stream,omitempty PreviousResponseID:previous_response_id,omitempty",
		reflect.TypeFor[conv.Tool]():         "Name:name Description:description,omitempty Parameters:parameters,omitempty Strict:strict,omitempty",
		reflect.TypeFor[conv.ToolChoice]():   "Mode:mode Name:name,omitempty",
		reflect.TypeFor[conv.Turn]():         "Role:role Parts:parts",
		reflect.TypeFor[conv.Part]():         "Kind:kind Text:text,omitempty Call:call,omitempty Result:result,omitempty Reasoning:reasoning,omitempty Media:media,omitempty",
		reflect.TypeFor[conv.Call]():         "ID:id Name:name Arguments:arguments ItemID:item_id,omitempty ThoughtSignature:thought_signature,omitempty",
		reflect.TypeFor[conv.Result]():       "CallID:call_id,omitempty Name:name,omitempty Content:content,omitempty IsError:is_error,omitempty Structured:structured,omitempty",
		reflect.TypeFor[conv.Content]():      "Type:type Text:text,omitempty MIMEType:mime_type,omitempty Data:data,omitempty URL:url,omitempty DisplayName:display_name,omitempty",
		reflect.TypeFor[conv.Reasoning]():    "ID:id EncryptedContent:encrypted_content,omitempty Summary:summary,omitempty",
	}
	marshaler := reflect.TypeFor[json.Marshaler]()
	for typ, want := range known {
		var fields []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			fields = append(fields, f.Name+":"+f.Tag.Get("json"))
		}
		if got := strings.Join(fields, " "); got != want {
			t.Errorf("%v fields changed; teach appendConversation:\n got %s\nwant %s", typ, got, want)
		}
		if typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) {
			t.Errorf("%v has a MarshalJSON method now; appendConversation must call it", typ)
		}
	}
}

// FuzzCompletionMatchesMarshal holds appendCompletion to json.Marshal of
// the completion types it replaced.
func FuzzCompletionMatchesMarshal(f *testing.F) {
	f.Add("chatcmpl-1", int64(1700000000), "gpt-4.1", "fp_1", "hi", true, "", false, "call_1", "get_weather", `{"city":"Paris"}`, 2, "tool_calls", 10, 3)
	f.Add("", int64(-1), "<m>", "", "", false, "no & <", true, "", "", "", 0, "stop", 0, 0)
	f.Add("x", int64(0), "m", "f", "a\u2028\xff", true, "r", true, "", "n", "\x00", 3, "", 1, 1<<40)
	f.Fuzz(func(t *testing.T, id string, created int64, modelName, fp, text string, hasText bool, refusal string, hasRefusal bool,
		callID, callName, args string, calls int, finish string, prompt, completion int) {
		o := &output{ID: id, Created: created, Model: modelName, Fingerprint: fp, Text: text, HasText: hasText, Refusal: refusal, HasRefusal: hasRefusal, Finish: finish,
			Usage: usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
				PromptTokensDetails: promptTokensDetails{CachedTokens: prompt / 2, AudioTokens: 1}, CompletionTokensDetails: completionTokensDetails{ReasoningTokens: 2, AudioTokens: 3, AcceptedPredictionTokens: 4, RejectedPredictionTokens: -5}}}
		for i := range calls % 4 {
			o.Calls = append(o.Calls, outCall{ID: callID[:min(i, len(callID))], Name: callName[min(i, len(callName)):], Arguments: args})
		}
		want, err := json.Marshal(completionBody(o))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCompletion(nil, o); !bytes.Equal(got, want) {
			t.Fatalf("appendCompletion\n got %s\nwant %s", got, want)
		}
	})
}

// TestArgumentsJSONMatchesReply: argumentsJSON gives what the model's
// ArgumentsJSON gives, for scripted raw text, missing arguments, values
// it encodes and values it leaves to json.Marshal.
func TestArgumentsJSONMatchesReply(t *testing.T) {
	calls := []*conv.Call{
		{Name: "a", Arguments: map[string]any{"city": "Paris", "n": 2.5, "l": []any{true, nil}, "<": map[string]any{}}},
		{Name: "b"},
		{Name: "c", Arguments: map[string]any{"n": 3, "s": []string{"x"}}},
		{Name: "d", Arguments: map[string]any{"bad": math.NaN()}},
		{Name: "e", Arguments: map[string]any{}},
		{Name: "f", Arguments: map[string]any{"x": 1.0}},
	}
	reply := &model.Reply{RawArguments: map[int]string{5: `{"broken"`}}
	for _, c := range calls {
		reply.Turn.Parts = append(reply.Turn.Parts, conv.Part{Kind: conv.KindCall, Call: c})
	}
	for i, c := range calls {
		if got, want := argumentsJSON(reply, i, c), reply.ArgumentsJSON(i); got != want {
			t.Errorf("call %d: argumentsJSON = %q, ArgumentsJSON = %q", i, got, want)
		}
	}
}

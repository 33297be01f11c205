package gemini

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// promptTokensReference is how the prompt was counted before promptLen:
// the length of json.Marshal's encoding (0 when it fails).
func promptTokensReference(r *Request) int {
	b, _ := json.Marshal(struct {
		C []Content `json:"c"`
		S *Content  `json:"s"`
		T []Tool    `json:"t"`
	}{r.Contents, r.SystemInstruction, r.Tools})
	return tokens(len(b))
}

// promptLenReference is the exact byte count promptLen stands for.
func promptLenReference(r *Request) (int, bool) {
	b, err := json.Marshal(struct {
		C []Content `json:"c"`
		S *Content  `json:"s"`
		T []Tool    `json:"t"`
	}{r.Contents, r.SystemInstruction, r.Tools})
	return len(b), err == nil
}

// TestPromptTokensMatchesMarshal pins the counted length to the length
// of json.Marshal's encoding, which the usage numbers were built on.
func TestPromptTokensMatchesMarshal(t *testing.T) {
	for _, name := range []string{"gemini.call.json", "gemini.result.json"} {
		body, err := os.ReadFile("../benchmarks/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		req, aerr := decodeBody(body)
		if aerr != nil {
			t.Fatalf("%s: %v", name, aerr.Message)
		}
		for _, r := range []*Request{req, {}} {
			if got, want := promptTokens(r), promptTokensReference(r); got != want {
				t.Errorf("%s: promptTokens = %d, want %d", name, got, want)
			}
		}
	}
}

// TestPromptLenEdgeCases covers what decoded bodies rarely hold: escapes
// the encoder adds, invalid UTF-8, raw messages with spaces, HTML
// characters and line separators, and a raw message that is not JSON.
func TestPromptLenEdgeCases(t *testing.T) {
	text := "a\"\\\b\f\n\r\t\x01\x7f<>&\u2028\u2029é\xff\xe2\x80"
	yes, no := true, false
	reqs := []*Request{
		{},
		{Contents: []Content{}, Tools: []Tool{}, SystemInstruction: &Content{}},
		{Contents: []Content{{Role: text, Parts: []Part{{Text: &text, Thought: true, ThoughtSignature: text}, {}}}}},
		{Contents: []Content{{Parts: []Part{
			{FunctionCall: &FunctionCall{ID: "i", Name: text, Args: json.RawMessage(" { \"a\" : [ 1 , \"<x> & \u2028 \\\" \\u2029\" ] } ")}},
			{FunctionResponse: &FunctionResponse{Name: "n", Response: json.RawMessage(`{"a":"\u003c"}`), WillContinue: &yes, Scheduling: "SILENT",
				Parts: []FunctionResponsePart{{InlineData: &Blob{MIMEType: "image/png", Data: "AA==", DisplayName: "d"}}, {FileData: &FileData{FileURI: "u"}}, {}}}},
			{FunctionResponse: &FunctionResponse{WillContinue: &no}},
			{InlineData: &Blob{}}, {FileData: &FileData{MIMEType: "m", DisplayName: "x"}},
		}}}},
		{Tools: []Tool{{}, {FunctionDeclarations: []FunctionDeclaration{{Name: "f", Description: text, Parameters: json.RawMessage(`{"type":"OBJECT"}`), ParametersJSONSchema: json.RawMessage("\n{}\n")}}}}},
		{Tools: []Tool{{FunctionDeclarations: []FunctionDeclaration{{Parameters: json.RawMessage(`{`)}}}}},
		{Contents: []Content{{Parts: []Part{{FunctionCall: &FunctionCall{Args: json.RawMessage(`nul`)}}}}}},
	}
	for i, r := range reqs {
		gotN, gotOK := promptLen(r)
		wantN, wantOK := promptLenReference(r)
		if gotOK != wantOK || gotOK && gotN != wantN {
			t.Errorf("request %d: promptLen = %d %v, json.Marshal = %d %v", i, gotN, gotOK, wantN, wantOK)
		}
		if got, want := promptTokens(r), promptTokensReference(r); got != want {
			t.Errorf("request %d: promptTokens = %d, want %d", i, got, want)
		}
	}
}

// FuzzPromptLen holds promptLen to json.Marshal on every decoded body.
func FuzzPromptLen(f *testing.F) {
	fuzzBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, aerr := decodeBody(body)
		if aerr != nil {
			return
		}
		gotN, gotOK := promptLen(req)
		wantN, wantOK := promptLenReference(req)
		if gotOK != wantOK || gotOK && gotN != wantN {
			t.Fatalf("%q: promptLen = %d %v, json.Marshal = %d %v", body, gotN, gotOK, wantN, wantOK)
		}
	})
}

// fill sets every field of v, recursively: strings, true, one element per
// slice, a small object per raw message. A request filled this way holds
// every field promptLen must count, including any added later.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x<")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		if depth < 8 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.SetBytes([]byte(` {"k": [1, "<&>"]} `))
			return
		}
		if depth < 8 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			fill(v.Index(0), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

func TestPromptLenCountsEveryField(t *testing.T) {
	var r Request
	fill(reflect.ValueOf(&r).Elem(), 0)
	gotN, gotOK := promptLen(&r)
	wantN, wantOK := promptLenReference(&r)
	if gotOK != wantOK || gotN != wantN {
		t.Fatalf("promptLen = %d %v, json.Marshal = %d %v", gotN, gotOK, wantN, wantOK)
	}
}

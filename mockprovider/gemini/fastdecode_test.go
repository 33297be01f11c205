package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// decodeSeeds are bodies for the decoder equivalence fuzz targets, beside
// the rule cases and the benchmark bodies: every field, nulls, repeated
// and case-folded keys, snake_case names, escapes and wrong types.
var decodeSeeds = []string{
	`{}`, `{"contents":null,"tools":null,"systemInstruction":null,"toolConfig":null}`, `{"contents":[]}`,
	`{"contents":[null,{"parts":null},{"role":null,"parts":[]},{"parts":[null,{}]}]}`,
	`{"contents":[{"role":"user","parts":[{"text":"hi","thought":true,"thoughtSignature":"c2ln"}]}],"cachedContent":"cachedContents/x","generationConfig":{"temperature":0.2},"safetySettings":[]}`,
	`{"systemInstruction":{"parts":[{"text":"a"},{"text":null},{"text":"b"}]},"contents":[{"parts":[{"text":""}]}]}`,
	`{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":null}},{"functionCall":{"name":"g","args":"x"}},{"functionCall":{"name":"h","args":[1]}},{"functionCall":{"name":"i"}}]}]}`,
	`{"contents":[{"parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":1e400},"willContinue":false,"scheduling":"WHEN_IDLE","parts":[{"inlineData":{"mimeType":"image/png","data":"AA==","displayName":"a.png"}},{"fileData":{"fileUri":"gs://x","mimeType":"application/pdf"}},null,{}]}}]}]}`,
	`{"contents":[{"parts":[{"functionResponse":{"name":"f","response":null,"willContinue":null}}]}]}`,
	`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/jpeg","data":"AA=="}},{"fileData":{"fileUri":"https://x/y.pdf"}}]}]}`,
	`{"tools":[{"functionDeclarations":[{"name":"f","description":"d","parameters":{"type":"OBJECT","properties":{"a":{"type":"STRING"}}},"parametersJsonSchema":{"type":"object"}}]},{},{"googleSearch":{}}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f",null]}}}`,
	`{"toolConfig":{"functionCallingConfig":null}}`, `{"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":null,"mode":"NONE"}}}`,
	// Turned down: repeated, case-folded, escaped and snake_case keys.
	`{"contents":[],"contents":[{"parts":[]}]}`, `{"Contents":[{"parts":[{"text":"x"}]}]}`, `{"contents":[{"PARTS":[]}]}`,
	`{"cont\u0065nts":[{"parts":[{"text":"x"}]}]}`, `{"contents":[{"parts":[{"function_call":{"name":"f"}}]}]}`,
	`{"system_instruction":{"parts":[{"text":"s"}]},"contents":[]}`, `{"contents":[{"parts":[{"functionCall":{"name":"f","args":{"snake_key":1}}}]}]}`,
	`{"contents":[{"parts":[{"text":"x","text":"y"}]}]}`, `{"contents":[{"parts":[{"functionCall":{"name":"a"},"functionCall":{"id":"b"}}]}]}`,
	`{"contents":[{"parts":[{"thoughtſignature":"x"}]}]}`, "{\"contents\":[{\"parts\":[{\"text\":\"\xff\"}]}]}",
	// Wrong types.
	`{"contents":{}}`, `{"contents":[1]}`, `{"contents":[{"role":1}]}`, `{"contents":[{"parts":[{"thought":"true"}]}]}`,
	`{"contents":[{"parts":[{"text":1}]}]}`, `{"tools":[{"functionDeclarations":{}}]}`, `{"cachedContent":false}`,
	`{"contents":[{"parts":[{"functionResponse":{"willContinue":"yes"}}]}]}`, `{"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":[1]}}}`,
	// Not an object or not JSON.
	`[]`, `null`, `"x"`, `{"contents":[}`, `{"contents":[{"parts":[{"text":"a"}]}]} x`, `{"a":1}{}`,
	" \t{\"contents\" : [ { \"parts\" : [ { \"text\" : \"a\\n\\u00e9\" } ] } ] }\n",
}

// fuzzBodies adds every seed: decodeSeeds, the rule cases and the
// benchmark's request bodies.
func fuzzBodies(f *testing.F) {
	f.Helper()
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, rc := range RuleCases() {
		f.Add([]byte(rc.Bad))
		f.Add([]byte(rc.Good))
	}
	for _, name := range []string{"gemini.call.json", "gemini.result.json"} {
		b, err := os.ReadFile("../benchmarks/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzFastDecode holds fastDecode to the encoding/json decoder it stands
// in for: whenever it accepts a body, decodeWithEncodingJSON (and plain
// json.Unmarshal) must accept it too and give the same Request.
func FuzzFastDecode(f *testing.F) {
	fuzzBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return
		}
		fast, ok := fastDecode(trimmed)
		if !ok {
			return
		}
		ref, aerr := decodeWithEncodingJSON(trimmed)
		if aerr != nil {
			t.Fatalf("fastDecode accepted %q; reference error %q", body, aerr.Message)
		}
		if !reflect.DeepEqual(fast, ref) {
			t.Fatalf("fastDecode(%q) =\n%#v\nreference =\n%#v", body, fast, ref)
		}
		var plain Request
		if err := json.Unmarshal(trimmed, &plain); err != nil || !reflect.DeepEqual(*fast, plain) {
			t.Fatalf("fastDecode(%q) differs from json.Unmarshal (%v)", body, err)
		}
	})
}

// TestFastDecodeTakesCommonBodies keeps the fast path in use: the bodies
// the SDKs and the benchmark send must not fall back to encoding/json.
func TestFastDecodeTakesCommonBodies(t *testing.T) {
	bodies := [][]byte{}
	for _, name := range []string{"gemini.call.json", "gemini.result.json"} {
		b, err := os.ReadFile("../benchmarks/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	for _, rc := range RuleCases() {
		bodies = append(bodies, rc.Good)
	}
	for _, b := range bodies {
		if _, ok := fastDecode(bytes.TrimSpace(b)); !ok {
			t.Errorf("fastDecode turned down %s", b)
		}
	}
}

// TestFastDecodeKnowsEveryField holds each key list to its struct's JSON
// names, in order: a field added to a message must be decoded by the fast
// path too, or json.Unmarshal and fastDecode would part ways.
func TestFastDecodeKnowsEveryField(t *testing.T) {
	for _, m := range []struct {
		v    any
		keys []string
	}{
		{Request{}, requestKeys}, {Content{}, contentKeys}, {Part{}, partKeys}, {FunctionCall{}, callKeys},
		{FunctionResponse{}, responseKeys}, {FunctionResponsePart{}, responsePartKeys}, {Blob{}, blobKeys},
		{FileData{}, fileDataKeys}, {Tool{}, toolKeys}, {FunctionDeclaration{}, declarationKeys},
		{ToolConfig{}, toolConfigKeys}, {FunctionCallingConfig{}, callingConfigKeys},
	} {
		typ := reflect.TypeOf(m.v)
		var names []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "-" {
				names = append(names, name)
			}
		}
		if !reflect.DeepEqual(names, m.keys) {
			t.Errorf("%s: fields %q, the fast decoder knows %q", typ.Name(), names, m.keys)
		}
	}
}

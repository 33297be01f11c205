package gemini

import (
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// decodeControls decodes a body and returns its conversation's controls.
func decodeControls(t *testing.T, body string) conv.Controls {
	t.Helper()
	req, apiErr := decodeBody([]byte(body), false)
	if apiErr != nil {
		t.Fatal(apiErr.Message)
	}
	return toConversation(req).Controls
}

// The output demand a generationConfig makes: responseSchema converted to
// JSON Schema as function parameters are (nullable a type list,
// propertyOrdering kept), responseJsonSchema passed as sent, JSON mode
// with no schema a demand for any JSON value, text/x.enum its enum.
func TestDecodeOutputDemand(t *testing.T) {
	const ask = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":`
	cases := []struct {
		name, config string
		want         *conv.Output
		schema       string // JSON the Output's schema must equal
	}{
		{"responseSchema", `{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"name":{"type":"STRING","nullable":true},"age":{"type":"INTEGER"}},"required":["name"],"propertyOrdering":["name","age"]}}`,
			&conv.Output{Kind: conv.OutputJSONSchema}, `{"type":"object","properties":{"name":{"type":["string","null"]},"age":{"type":"integer"}},"required":["name"],"propertyOrdering":["name","age"]}`},
		{"responseJsonSchema", `{"responseMimeType":"application/json","responseJsonSchema":{"type":"array","items":{"type":"string"}}}`,
			&conv.Output{Kind: conv.OutputJSONSchema}, `{"type":"array","items":{"type":"string"}}`},
		{"JSON mode without a schema", `{"responseMimeType":"application/json"}`, &conv.Output{Kind: conv.OutputJSONSchema}, ``},
		{"enum", `{"responseMimeType":"text/x.enum","responseSchema":{"type":"STRING","format":"enum","enum":["A","B"]}}`,
			&conv.Output{Kind: conv.OutputJSONSchema}, `{"type":"string","format":"enum","enum":["A","B"]}`},
		{"plain text", `{"responseMimeType":"text/plain"}`, nil, ``},
		{"no mime type", `{"temperature":0.5}`, nil, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := decodeControls(t, ask+tc.config+`}`).Output
			if (got == nil) != (tc.want == nil) {
				t.Fatalf("output %+v, want %+v", got, tc.want)
			}
			if got == nil {
				return
			}
			if got.Kind != tc.want.Kind {
				t.Errorf("kind %s, want %s", got.Kind, tc.want.Kind)
			}
			if tc.schema == "" {
				if len(got.Schema) != 0 {
					t.Errorf("schema %s, want none", got.Schema)
				}
				return
			}
			var a, b any
			if err := json.Unmarshal(got.Schema, &a); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(tc.schema), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("schema %s\nwant   %s", got.Schema, tc.schema)
			}
		})
	}
}

// candidateCount and the allowed function names of ANY and VALIDATED
// become controls; ANY with one name still forces that function.
func TestDecodeCandidatesAndAllowedNames(t *testing.T) {
	const head = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"a"},{"name":"b"},{"name":"c"}]}]`
	if n := decodeControls(t, head+`,"generationConfig":{"candidateCount":3}}`).Candidates; n != 3 {
		t.Errorf("candidates %d, want 3", n)
	}
	for _, mode := range []string{"ANY", "VALIDATED"} {
		got := decodeControls(t, head+`,"toolConfig":{"functionCallingConfig":{"mode":"`+mode+`","allowedFunctionNames":["a","c"]}}}`).AllowedTools
		if !slices.Equal(got, []string{"a", "c"}) {
			t.Errorf("%s: allowed %v, want [a c]", mode, got)
		}
	}
	req, apiErr := decodeBody([]byte(head+`,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["b"]}}}`), false)
	if apiErr != nil {
		t.Fatal(apiErr.Message)
	}
	if tc := toConversation(req).ToolChoice; tc.Mode != conv.ToolChoiceFunction || tc.Name != "b" {
		t.Errorf("ANY with one name: tool choice %+v, want function b", tc)
	}
	if got := decodeControls(t, head+`,"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`).AllowedTools; got != nil {
		t.Errorf("AUTO: allowed %v, want none", got)
	}
}

// The key order of a schema is read in one pass: the memory it takes
// grows with the schema, not with its depth times its size (reading each
// level's value again made a 10,000-level schema cost gigabytes).
func TestKeyOrderLinearInDepth(t *testing.T) {
	nested := func(depth int) []byte {
		return []byte(strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`},"required":["a"]}`, depth))
	}
	allocated := func(depth int) uint64 {
		schema := nested(depth)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		k := readKeyOrder(schema)
		runtime.ReadMemStats(&after)
		for i := 0; i < depth; i++ {
			if k == nil || len(k.keys) != 1 || k.keys[0] != "a" {
				t.Fatalf("depth %d: level %d lost its key order", depth, i)
			}
			k = k.props["a"]
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(1000), allocated(4000)
	if large > 8*small {
		t.Errorf("4x the depth allocated %.1fx the memory (%d vs %d bytes): not linear", float64(large)/float64(small), large, small)
	}
}

package openaichat

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// FuzzDecodeMatchesReference checks decodeRequest, which walks tools on
// the bytes and caches the rendering of their parameters, against the
// generic-map decoder it replaced: same request, same error.
func FuzzDecodeMatchesReference(f *testing.F) {
	for _, c := range RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	f.Add([]byte(`{"tools":[{"type":"function","function":{"name":"f","parameters":{"b":1,"a":"<&>","a":[1.50,null]},"strict":true}}]}`))
	f.Add([]byte(`{"tools":null}`))
	f.Add([]byte(`{"tools":[null,1]}`))
	f.Add([]byte(`{"tools":[{"function":[]}],"tools":[{"type":"custom","function":{"parameters":"x","strict":1}}]}`))
	f.Add([]byte(`{"tools":{"a":1}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for range 2 { // the second pass is served from the cache
			got, gotErr := decodeRequest(body)
			want, wantErr := referenceDecodeRequest(body)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("decodeRequest(%q)\n got %+v %+v\nwant %+v %+v", body, got, gotErr, want, wantErr)
			}
		}
	})
}

// referenceDecodeRequest and referenceDecodeTool are the decoder as it was
// before tools were walked on the bytes.
func referenceDecodeRequest(body []byte) (*Request, *wire.APIError) {
	// One JSON value and nothing after it but space, as a json.Decoder
	// followed by io.EOF would demand; then decoded with UseNumber
	// semantics in one walk.
	if !json.Valid(body) {
		return nil, openaiwire.InvalidJSON()
	}
	obj, ok := jsonscan.AnyNumber(body).(map[string]any)
	if !ok {
		return nil, openaiwire.InvalidJSON()
	}
	req := &Request{}
	if v, ok := obj["model"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, invalidType("model", "a string", v)
		}
		req.Model, req.HasModel = s, s != ""
	}
	if v, ok := obj["messages"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidType("messages", "an array", v)
		}
		req.HasMessages = true
		req.Messages = make([]Message, 0, len(arr))
		for i, raw := range arr {
			m, err := decodeMessage(i, raw)
			if err != nil {
				return nil, err
			}
			req.Messages = append(req.Messages, m)
		}
	}
	if v, ok := obj["tools"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return nil, invalidType("tools", "an array", v)
		}
		for i, raw := range arr {
			t, err := referenceDecodeTool(i, raw)
			if err != nil {
				return nil, err
			}
			req.Tools = append(req.Tools, t)
		}
	}
	if v, ok := obj["tool_choice"]; ok && v != nil {
		tc, err := decodeToolChoice(v)
		if err != nil {
			return nil, err
		}
		req.ToolChoice = tc
	}
	if v, ok := obj["parallel_tool_calls"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, invalidType("parallel_tool_calls", "a boolean", v)
		}
		req.ParallelToolCalls = &b
	}
	if v, ok := obj["stream"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, invalidType("stream", "a boolean", v)
		}
		req.Stream = b
	}
	if v, ok := obj["stream_options"]; ok && v != nil {
		so, ok := v.(map[string]any)
		if !ok {
			return nil, invalidType("stream_options", "an object", v)
		}
		req.StreamOptionsSent = true
		if u, ok := so["include_usage"]; ok && u != nil {
			b, ok := u.(bool)
			if !ok {
				return nil, invalidType("stream_options.include_usage", "a boolean", u)
			}
			req.IncludeUsage = b
		}
	}
	return req, nil
}

func referenceDecodeTool(i int, raw any) (Tool, *wire.APIError) {
	path := "tools[" + strconv.Itoa(i) + "]"
	t := Tool{Index: i}
	obj, ok := raw.(map[string]any)
	if !ok {
		return t, invalidType(path, "an object", raw)
	}
	var err *wire.APIError
	if t.Type, t.HasType, err = optString(obj, "type", path, ""); err != nil {
		return t, err
	}
	if t.HasType && t.Type != "function" && t.Type != "custom" {
		return t, invalidValue(path+".type", t.Type, []string{"function", "custom"})
	}
	fn, ok := obj["function"]
	if !ok || fn == nil {
		return t, nil
	}
	f, ok := fn.(map[string]any)
	if !ok {
		return t, invalidType(path+".function", "an object", fn)
	}
	t.HasFunction = true
	if t.Name, t.HasName, err = optString(f, "name", path, ".function"); err != nil {
		return t, err
	}
	if t.Description, _, err = optString(f, "description", path, ".function"); err != nil {
		return t, err
	}
	if p, ok := f["parameters"]; ok && p != nil {
		// Kept as JSON even when it is not an object: the schema rule
		// reports that in the API's words.
		b, _ := json.Marshal(p)
		t.Parameters = b
	}
	if s, ok := f["strict"]; ok && s != nil {
		b, ok := s.(bool)
		if !ok {
			return t, invalidType(path+".function.strict", "a boolean", s)
		}
		t.Strict = b
	}
	return t, nil
}

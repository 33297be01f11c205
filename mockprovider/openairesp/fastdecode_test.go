package openairesp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzFastDecode holds the fast decoders to json.Unmarshal: whenever one
// accepts a value, json.Unmarshal must accept it too and fill the same
// struct.
func FuzzFastDecode(f *testing.F) {
	for _, rc := range RuleCases() {
		f.Add([]byte(rc.Bad))
		f.Add([]byte(rc.Good))
	}
	f.Add([]byte(`{"model":"m","model":null,"store":true,"store":null,"include":["a"],"stream":true,"stream":null,"tools":[null,{"type":"function","name":"f","name":null,"strict":false}]}`))
	f.Add([]byte(`{"type":"function_call","TYPE":"x","call_id":"c","arguments":"{}","summary":[{"text":"a\u00e9\ud800"}]}`))
	f.Add([]byte(`{"Model":"m","input":  [ 1 , {"role":"user"} ] }`))
	f.Add([]byte(`{"id":"i","id":null,"encrypted_content":"e","output":null,"content":{"x":[1, 2]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var fr Request
		if fastRequest(b, &fr) {
			var sr Request
			if err := json.Unmarshal(b, &sr); err != nil {
				t.Fatalf("fastRequest accepted %q, json.Unmarshal: %v", b, err)
			}
			if !reflect.DeepEqual(fr, sr) {
				t.Fatalf("fastRequest(%q) = %+v, json.Unmarshal = %+v", b, fr, sr)
			}
		}
		if !json.Valid(b) {
			return // the others are given spans of a validated body only
		}
		var ft, st Tool
		if fastTool(b, &ft) {
			if err := json.Unmarshal(b, &st); err != nil || !reflect.DeepEqual(ft, st) {
				t.Fatalf("fastTool(%q) = %+v; json.Unmarshal = %+v, %v", b, ft, st, err)
			}
		}
		var fi, si Item
		if fastItem(b, &fi) {
			if err := json.Unmarshal(b, &si); err != nil || !reflect.DeepEqual(fi, si) {
				t.Fatalf("fastItem(%q) = %+v; json.Unmarshal = %+v, %v", b, fi, si, err)
			}
		}
	})
}

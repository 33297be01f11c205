package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// equivalent checks every helper against the encoding/json call it
// stands for, on one valid JSON value.
func equivalent(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	var m map[string]json.RawMessage
	mapErr := json.Unmarshal(data, &m)
	obj, ok := ParseObject(data)
	if ok != (mapErr == nil) {
		t.Fatalf("ParseObject(%q) ok=%v, map decode err=%v", data, ok, mapErr)
	}
	if ok {
		if (m == nil) != (obj == nil) {
			t.Fatalf("ParseObject(%q) nil-ness differs", data)
		}
		for k, v := range m {
			got, found := obj.Get(k)
			if !found || !bytes.Equal(got, v) {
				t.Fatalf("ParseObject(%q)[%q] = %q, want %q", data, k, got, v)
			}
		}
		for _, f := range obj {
			if _, found := m[f.Key]; !found {
				t.Fatalf("ParseObject(%q) has extra key %q", data, f.Key)
			}
		}
	}
	var list []json.RawMessage
	listErr := json.Unmarshal(data, &list)
	arr, ok := ParseArray(data)
	if ok != (listErr == nil) || len(arr) != len(list) || (arr == nil) != (list == nil) {
		t.Fatalf("ParseArray(%q) = %q %v, want %q %v", data, arr, ok, list, listErr)
	}
	for i := range list {
		if !bytes.Equal(arr[i], list[i]) {
			t.Fatalf("ParseArray(%q)[%d] = %q, want %q", data, i, arr[i], list[i])
		}
	}
	var s string
	strErr := json.Unmarshal(data, &s)
	if got, ok := ToString(data); ok != (strErr == nil) || got != s {
		t.Fatalf("ToString(%q) = %q %v, want %q %v", data, got, ok, s, strErr)
	}
	if !IsNull(Trim(data)) {
		var n int64
		intErr := json.Unmarshal(data, &n)
		if got, ok := Int64(data); ok != (intErr == nil) || got != n {
			t.Fatalf("Int64(%q) = %d %v, want %d %v", data, got, ok, n, intErr)
		}
		var b bool
		boolErr := json.Unmarshal(data, &b)
		if got, ok := Bool(data); ok != (boolErr == nil) || got != b {
			t.Fatalf("Bool(%q) = %v %v, want %v %v", data, got, ok, b, boolErr)
		}
	}
}

var seeds = []string{
	`{}`, `[]`, `null`, ` null `, `"x"`, `""`, `"a\"b\\c\u00e9\ud83d\ude00"`, "\"caf\xc3\xa9\"", "\"bad\xff\"",
	`12`, `-3`, `1.5`, `1e3`, `99999999999999999999`, `-0`, `true`, `false`,
	` { "a" : 1 , "b":[1, {"c":"}]"}], "a": "last", "d\u0061": {"x":null}} `,
	`{"k\"ey":"v","":"",  "n" :null,"arr":[ [], {}, "]", -1.5e-3 ]}`,
	"{\"k\xff\":1,\"ok\":\"\\ud800\"}",
	`[1,"two",{"three":3},[4],null,true]`, "[ \n\t]", "{ \r\n}",
	// Runs of backslashes before a quote: even runs end the string.
	`{"a\\":"\\\"\\","b\\\\\"":["\\\\",{"c":"\"}\\"}]}`, `["\\","\\\\","\\\"]"]`,
}

func TestEquivalentToEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		equivalent(t, []byte(s))
	}
}

func FuzzEquivalent(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { equivalent(t, data) })
}

// FuzzAnyNumber holds AnyNumber to a json.Decoder with UseNumber on every
// valid document.
func FuzzAnyNumber(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":[true,false,null,-1.5e3,"x\u00e9\ud800\n"],"b":{},"c":[]}`, ` [ {"k" : "v" } , 0 ] `, `"s"`, `null`, "{\"\xff\":\"\xfe\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("decoder rejects valid %q: %v", b, err)
		}
		if got := AnyNumber(b); !reflect.DeepEqual(got, want) {
			t.Fatalf("AnyNumber(%q) = %#v, want %#v", b, got, want)
		}
	})
}

// FuzzAnyFloat holds AnyFloat to json.Unmarshal into an any, and
// ObjectFloat to json.Unmarshal into a fresh empty map, on every valid
// document (the error json.Unmarshal returns for an out-of-range number or
// a non-object is ignored by the callers, so only the value is compared).
func FuzzAnyFloat(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":[true,false,null,-1.5e3,"x\u00e9\ud800\n"],"b":{},"c":[]}`, ` [ {"k" : "v" } , 0 ] `, `"s"`, `null`, ` null `, `{"big":1e400,"l":[1e999,-0,0.1]}`, `1e400`, `[]`, `7`, "{\"\xff\":\"\xfe\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want any
		_ = json.Unmarshal(b, &want)
		if got := AnyFloat(b); !reflect.DeepEqual(got, want) {
			t.Fatalf("AnyFloat(%q) = %#v, want %#v", b, got, want)
		}
		wantMap := map[string]any{}
		_ = json.Unmarshal(b, &wantMap)
		if got := ObjectFloat(b); !reflect.DeepEqual(got, wantMap) {
			t.Fatalf("ObjectFloat(%q) = %#v, want %#v", b, got, wantMap)
		}
	})
}

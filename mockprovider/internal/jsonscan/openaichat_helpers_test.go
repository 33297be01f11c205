package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzUnquoteEscaped holds UnquoteEscaped to json.Unmarshal into a string
// on every valid string literal.
func FuzzUnquoteEscaped(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u20ac\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`, `"\ud800\u0041"`,
		`"\udc00\ud800"`, `"\ud83d\ude00\ud83d"`, `"\uD83D\uDE00"`, "\"caf\xc3\xa9 \xff\xfe \\n\"", "\"\xe2\x80\xa8\"", `"{\"city\":\"Paris\"}"`,
		`"\u0000\u001f<>&"`, "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\\t\"", `"\ud800\ud800\udc00"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		v = Trim(v) // the decoder hands over spans without space
		if !json.Valid(v) || len(v) < 2 || v[0] != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(v, &want); err != nil {
			t.Fatalf("json.Unmarshal(%q): %v", v, err)
		}
		if got := UnquoteEscaped(v); got != want {
			t.Fatalf("UnquoteEscaped(%q) = %q, want %q", v, got, want)
		}
	})
}

// FuzzChatWalkers holds ChatObject/ChatArray walks to ParseObject and
// ParseArray (themselves held to encoding/json by FuzzEquivalent), and
// ChatPlainKey to String: a plain key decodes to its own bytes.
func FuzzChatWalkers(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		want, wantOK := ParseObject(data)
		walk, ok := ChatObject(data)
		if ok != (wantOK && want != nil) {
			t.Fatalf("ChatObject(%q) ok=%v, ParseObject %v %v", data, ok, want, wantOK)
		}
		for n := 0; ok; n++ {
			raw, v, more := walk.Next()
			if !more {
				if n != len(want) {
					t.Fatalf("ChatObject(%q) walked %d members, want %d", data, n, len(want))
				}
				break
			}
			quoted := append(append([]byte{'"'}, raw...), '"')
			if String(quoted) != want[n].Key || !bytes.Equal(v, want[n].Value) {
				t.Fatalf("ChatObject(%q) member %d = %q:%q, want %q:%q", data, n, raw, v, want[n].Key, want[n].Value)
			}
			if ChatPlainKey(raw) && string(raw) != want[n].Key {
				t.Fatalf("plain key %q decodes to %q", raw, want[n].Key)
			}
		}
		wantArr, wantOK := ParseArray(data)
		elems, ok := ChatArray(data)
		if ok != (wantOK && wantArr != nil) {
			t.Fatalf("ChatArray(%q) ok=%v, ParseArray %v %v", data, ok, wantArr, wantOK)
		}
		for n := 0; ok; n++ {
			v, more := elems.Next()
			if !more {
				if n != len(wantArr) {
					t.Fatalf("ChatArray(%q) walked %d elements, want %d", data, n, len(wantArr))
				}
				break
			}
			if !bytes.Equal(v, wantArr[n]) {
				t.Fatalf("ChatArray(%q)[%d] = %q, want %q", data, n, v, wantArr[n])
			}
		}
	})
}

// FuzzChatArgumentsObject holds ChatArgumentsObject to json.Unmarshal
// into a nil map on every valid document.
func FuzzChatArgumentsObject(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"a":[true,false,null,-1.5e3,"x\u00e9\ud800\n"],"b":{},"c":[]}`, ` [ {"k" : "v" } , 0 ] `, `"s"`, `null`, ` null `,
		"{\"\xff\":\"\xfe\"}", `{"big":1e400}`, `{"l":[1e-400, -0, 0.1, 123456789012345678901234567890]}`, `{"x":[{"y":-1e309}]}`,
		` {"city":"Paris","units":"celsius"} `, `{}`, `7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want map[string]any
		wantOK := json.Unmarshal(b, &want) == nil && want != nil
		got, ok := ChatArgumentsObject(b)
		if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("ChatArgumentsObject(%q) = %#v %v, json.Unmarshal = %#v %v", b, got, ok, want, wantOK)
		}
	})
}

package jsonscan

import (
	"encoding/json"
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

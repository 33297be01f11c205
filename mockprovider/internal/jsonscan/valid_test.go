package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":}`, `{,}`, `{"a":1"b":2}`,
	`"x"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, "\"a\tb\"", "\"\xff\xfe\"", `"abc`, `"\`, `"\u12"`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-`, `1e`, `-1.5e-7`, `+1`, `1x`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `nulll`, ` null `, `null null`,
	`[{"a":[1,{"b":null}]}]`, `[{"a":[1,{"b":null}]}`, `[}`, `{]`, `{"a":[}`, `[[[]]]`, `]`, `}`, `[1]]`,
	"\t{\n\"a\"\r:\n[ ]\n}\n", `{"a":{"b":{"c":{}}}}`, `{"":""}`, `["\"\\\/\b\f\n\r\t"]`, "[\x00]",
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid = %v", c, got, want)
		}
	}
}

func TestValidDepthLimit(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closer := map[string]string{"[": "]", `{"a":`: "}"}[open]
			doc := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(closer, n))
			if got, want := Valid(doc), json.Valid(doc); got != want {
				t.Errorf("depth %d %q: Valid = %v, json.Valid = %v", n, open, got, want)
			}
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", data, got, want)
		}
	})
}

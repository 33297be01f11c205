package gemini

import (
	"regexp"
	"testing"
)

// The hand-written scans stand in for these patterns; they must agree on
// every input.
var (
	snakeKeyPattern  = regexp.MustCompile(`"[A-Za-z0-9]*_[A-Za-z0-9_]*"\s*:`)
	upperTypePattern = regexp.MustCompile(`"type"\s*:\s*"[A-Z]`)
)

var scanSeeds = []string{
	`{"function_call":{}}`, `{"functionCall":{"name":"get_weather"}}`, `{"a_b" :1}`, "{\"a_b\"\f\t\n :1}",
	`{"_":1}`, `{"a_b"}`, `"a_b"`, `{"x":"a_b","y":1}`, `"a_"b_":`, `{"a-b_c":1}`, `""_:`, `"_"`,
	`{"type":"OBJECT"}`, `{"type" : "object"}`, "{\"type\"\v:\"OBJECT\"}", `"type":"`, `"type": "Z`, `"type":"[`,
	`"typ"type":"A"`, `""type":"B"`, "", `"`, `"type"`,
}

func FuzzScansMatchPatterns(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := hasSnakeKey(b), snakeKeyPattern.Match(b); got != want {
			t.Fatalf("hasSnakeKey(%q) = %v, pattern says %v", b, got, want)
		}
		if got, want := hasUpperType(b), upperTypePattern.Match(b); got != want {
			t.Fatalf("hasUpperType(%q) = %v, pattern says %v", b, got, want)
		}
	})
}

package wire

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFragments: the pieces join back to s, each is at most size bytes
// (a wider character alone), cut only between characters, and as long as
// it can be: the next character would not have fit.
func FuzzFragments(f *testing.F) {
	f.Add("hello world, this is text", 12)
	f.Add("東京🌍 \xff\xfe ab", 1)
	f.Add("", 0)
	f.Add("abc", -3)
	f.Fuzz(func(t *testing.T, s string, size int) {
		limit := size
		if limit <= 0 {
			limit = DefaultFragmentSize
		}
		got := Fragments(s, size)
		if strings.Join(got, "") != s {
			t.Fatalf("fragments of %q do not join back: %q", s, got)
		}
		rest := s
		for i, frag := range got {
			_, w := utf8.DecodeRuneInString(frag)
			if frag == "" || len(frag) > limit && len(frag) != w {
				t.Fatalf("piece %d of %q (size %d) = %q", i, s, size, frag)
			}
			if utf8.ValidString(s) && !utf8.ValidString(frag) {
				t.Fatalf("piece %d of %q (size %d) = %q cuts a character", i, s, size, frag)
			}
			rest = rest[len(frag):]
			if next, nw := utf8.DecodeRuneInString(rest); rest != "" && len(frag)+nw <= limit {
				t.Fatalf("piece %d of %q (size %d) = %q stops before %q, which fits", i, s, size, frag, next)
			}
		}
	})
}

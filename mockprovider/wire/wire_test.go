package wire

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFragmentsKeepCharactersWhole(t *testing.T) {
	for _, tc := range []struct {
		in   string
		size int
		want int // pieces
	}{
		{`{"city":"Paris"}`, 1, 16},
		{`{"city":"Paris"}`, 4, 4},
		{`{"city":"Zürich"}`, 1, 17},
		{"東京", 1, 2},
		{"", 3, 0},
	} {
		got := Fragments(tc.in, tc.size)
		if len(got) != tc.want {
			t.Errorf("Fragments(%q, %d) = %d pieces %q, want %d", tc.in, tc.size, len(got), got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("Fragments(%q, %d) does not join back: %q", tc.in, tc.size, got)
		}
		for _, p := range got {
			if !utf8.ValidString(p) {
				t.Errorf("Fragments(%q, %d) split a character: %q", tc.in, tc.size, p)
			}
		}
	}
}

func TestIDsAreDeterministicPerSeed(t *testing.T) {
	a, b, c := NewIDs("s1"), NewIDs("s1"), NewIDs("s2")
	x, y, z := a.Next("call_", 24), b.Next("call_", 24), c.Next("call_", 24)
	if x != y {
		t.Fatalf("same seed gave %s and %s", x, y)
	}
	if x == z {
		t.Fatalf("different seeds gave the same id %s", x)
	}
	if len(x) != len("call_")+24 || !strings.HasPrefix(x, "call_") {
		t.Fatalf("bad id shape %q", x)
	}
	if a.Next("call_", 24) == x {
		t.Fatal("sequence did not advance")
	}
	a.Reset()
	if a.Next("call_", 24) != x {
		t.Fatal("reset did not restart the sequence")
	}
}

package session

import (
	"strings"
	"testing"
)

// Typed counts of different kinds never share a count, even where their
// keys print alike, and Counted neither bumps nor creates one.
func TestCounterKindsAreSeparate(t *testing.T) {
	type turn struct {
		name string
		turn int
	}
	turns := NewCounter(func(k turn) int { return len(k.name) })
	names := NewCounter(func(k string) int { return len(k) })
	s := NewStore(DefaultLimits()).Get("k")
	if turns.Counted(s, turn{"a", 1}) {
		t.Fatal("counted before any count")
	}
	if n := turns.Count(s, turn{"a", 1}); n != 1 {
		t.Fatalf("first count %d", n)
	}
	if n := turns.Count(s, turn{"a", 1}); n != 2 {
		t.Fatalf("second count %d", n)
	}
	if names.Counted(s, "{a 1}") || names.Count(s, "{a 1}") != 1 {
		t.Fatal("a string count shares a typed one")
	}
	if turns.Count(s, turn{"a", 2}) != 1 {
		t.Fatal("another turn shares the count")
	}
	// A big key is kept as its hash: counted alike, charged no more than
	// MaxCounterName.
	big := turn{strings.Repeat("x", 10*MaxCounterName), 1}
	before := s.store.StateBytes()
	if turns.Count(s, big) != 1 || turns.Count(s, big) != 2 || !turns.Counted(s, big) {
		t.Fatal("a big key is not counted as one")
	}
	if got := s.store.StateBytes() - before; got != counterCost+MaxCounterName {
		t.Fatalf("a big key charged %d bytes, want %d", got, counterCost+MaxCounterName)
	}
}

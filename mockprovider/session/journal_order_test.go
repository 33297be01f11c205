package session

import (
	"testing"
	"time"
)

// An entry recorded after a later arrival (its stream was still being
// journaled when the next request was answered) still comes first.
func TestJournalOrdersByArrival(t *testing.T) {
	s := NewStore(DefaultLimits()).Get("k")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s.Record(Entry{Time: t0.Add(time.Millisecond), Path: "/second"})
	s.Record(Entry{Time: t0, Path: "/first"})
	s.Record(Entry{Path: "/third"}) // no arrival time: recorded now
	entries, _ := s.Journal()
	var got []string
	for _, e := range entries {
		got = append(got, e.Path)
	}
	if len(got) != 3 || got[0] != "/first" || got[1] != "/second" || got[2] != "/third" {
		t.Fatalf("journal order %v, want [/first /second /third]", got)
	}
}

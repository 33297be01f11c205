package session

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

func TestJournalIsBounded(t *testing.T) {
	st := NewStore(Limits{MaxSessions: 10, JournalEntries: 3, JournalBodyMax: 16})
	s := st.Get("k")
	for i := 0; i < 5; i++ {
		s.Record(Entry{Request: json.RawMessage(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 40)))})
	}
	entries, dropped := s.Journal()
	if len(entries) != 3 || dropped != 2 {
		t.Fatalf("kept %d dropped %d, want 3 and 2", len(entries), dropped)
	}
	if entries[0].Seq != 3 {
		t.Fatalf("oldest kept seq = %d, want 3", entries[0].Seq)
	}
	for _, e := range entries {
		if !e.Truncated || !json.Valid(e.Request) {
			t.Fatalf("clipped body must stay valid JSON and be marked: %s", e.Request)
		}
	}
}

func TestStoreEvictsLeastRecentlyUsed(t *testing.T) {
	now := time.Unix(0, 0)
	st := NewStore(Limits{MaxSessions: 2})
	st.now = func() time.Time { return now }
	st.Get("a")
	now = now.Add(time.Second)
	st.Get("b")
	now = now.Add(time.Second)
	st.Get("a") // a is now the most recent
	now = now.Add(time.Second)
	st.Get("c")
	if _, ok := st.Lookup("b"); ok {
		t.Fatal("b should have been evicted")
	}
	if _, ok := st.Lookup("a"); !ok {
		t.Fatal("a was used recently and must stay")
	}
	if st.Len() != 2 {
		t.Fatalf("len = %d", st.Len())
	}
}

func TestIdleSessionsExpire(t *testing.T) {
	now := time.Unix(100, 0)
	st := NewStore(Limits{IdleTTL: time.Minute})
	st.now = func() time.Time { return now }
	st.Get("old")
	now = now.Add(2 * time.Minute)
	st.Get("new")
	st.Expire()
	if _, ok := st.Lookup("old"); ok {
		t.Fatal("idle session survived")
	}
	if _, ok := st.Lookup("new"); !ok {
		t.Fatal("fresh session was dropped")
	}
}

func TestFaultsCountDown(t *testing.T) {
	s := NewStore(DefaultLimits()).Get("k")
	s.AddFault(Fault{Kind: "rate_limit", Remaining: 2})
	for i := 0; i < 2; i++ {
		if f := s.TakeFault(); f == nil || f.Kind != "rate_limit" {
			t.Fatalf("request %d: want the fault, got %+v", i, f)
		}
	}
	if f := s.TakeFault(); f != nil {
		t.Fatalf("fault outlived its count: %+v", f)
	}
}

// storedBodies is a kind of kept item as the Responses API keeps its
// answers: capped by Limits.StoredResponses, charged by size.
var storedBodies = NewKept(func(l Limits) int { return l.StoredResponses }, func(b []byte) int64 { return int64(len(b) + 256) })

func keepStored(s *Session, id string, body []byte) {
	storedBodies.Put(s, KeptItem[[]byte]{ID: id, Value: body})
}

// keptRefOf is the budget queue's ref of a kept item, nil when not kept.
func keptRefOf(s *Session, id string) keptRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := storedBodies.tableLocked(s, false); t != nil {
		if it, ok := t.items[id]; ok {
			return it
		}
	}
	return nil
}

func TestKeptItemsAreBounded(t *testing.T) {
	s := NewStore(Limits{StoredResponses: 2}).Get("k")
	for _, id := range []string{"r1", "r2", "r3"} {
		keepStored(s, id, nil)
	}
	if _, ok := storedBodies.Get(s, "r1"); ok {
		t.Fatal("oldest item should be gone")
	}
	if _, ok := storedBodies.Get(s, "r3"); !ok {
		t.Fatal("newest item missing")
	}
}

func TestResetClearsState(t *testing.T) {
	s := NewStore(DefaultLimits()).Get("k")
	s.SetScenario("x")
	s.Record(Entry{})
	slot := NewSlot(func(Limits) map[string]string { return map[string]string{} })
	slot.Update(s, func(m map[string]string) { m["fc_1"] = "rs_1" })
	keepStored(s, "resp_1", nil)
	s.Reset()
	left := ""
	slot.Read(s, func(m map[string]string) { left = m["fc_1"] })
	if _, kept := storedBodies.Get(s, "resp_1"); s.Scenario() != "" || left != "" || kept {
		t.Fatal("reset left state behind")
	}
	if e, _ := s.Journal(); len(e) != 0 {
		t.Fatal("reset left journal entries")
	}
}

func TestJournalBudgetDropsTheOldestAcrossSessions(t *testing.T) {
	// 30 sessions' own state (key and bookkeeping) counts too.
	state := int64(30 * (sessionBaseCost + 2*3))
	st := NewStore(Limits{JournalEntries: 1000, JournalBodyMax: 1 << 20, JournalBudget: 20_000 + state})
	body := json.RawMessage(`"` + strings.Repeat("x", 1000) + `"`)
	for i := 0; i < 300; i++ {
		st.Get(fmt.Sprintf("s%d", i%30)).Record(Entry{Request: body})
	}
	per := (&Entry{Request: body}).cost(new(conv.Measure))
	if got := st.JournalBytes(); got > 20_000 || got < 20_000-per {
		t.Fatalf("journals hold %d bytes, budget 20000 (entry %d)", got, per)
	}
	// The newest entries survive, whichever session holds them.
	newest, _ := st.Get("s29").Journal()
	if len(newest) == 0 || newest[len(newest)-1].Seq != 10 {
		t.Fatalf("newest entries were dropped: %+v", newest)
	}
	oldest, dropped := st.Get("s0").Journal()
	if len(oldest) != 0 || dropped != 10 {
		t.Fatalf("the oldest session kept %d entries, dropped %d", len(oldest), dropped)
	}
	if len(st.jqueue)-st.jhead > 2*st.liveEntries()+4096 {
		t.Fatalf("budget queue grows without bound: %d refs for %d entries", len(st.jqueue)-st.jhead, st.liveEntries())
	}
}

func TestDeletingASessionGivesItsJournalBack(t *testing.T) {
	st := NewStore(Limits{JournalEntries: 10, JournalBudget: 1 << 20})
	st.Get("a").Record(Entry{Request: json.RawMessage(`{"x":1}`)})
	st.Get("b").Record(Entry{Request: json.RawMessage(`{"x":1}`)})
	before := st.JournalBytes()
	st.Delete("a")
	if after := st.JournalBytes(); after*2 != before {
		t.Fatalf("journal bytes %d → %d after deleting one of two equal sessions", before, after)
	}
	st.Get("b").Reset()
	if st.JournalBytes() != 0 || st.liveEntries() != 0 {
		t.Fatalf("reset kept %d bytes, %d entries", st.JournalBytes(), st.liveEntries())
	}
}

func TestPerSessionCapKeepsTheBudgetHonest(t *testing.T) {
	st := NewStore(Limits{JournalEntries: 2, JournalBudget: 1 << 30})
	s := st.Get("a")
	for i := 0; i < 50; i++ {
		s.Record(Entry{Request: json.RawMessage(`{"x":1}`)})
	}
	if st.liveEntries() != 2 {
		t.Fatalf("store counts %d live entries, session keeps 2", st.liveEntries())
	}
}

func TestSettleWaitsForRequestsInFlight(t *testing.T) {
	s := NewStore(DefaultLimits()).Get("k")
	if !s.Settle(time.Millisecond) {
		t.Fatal("an idle session must settle at once")
	}
	s.Begin()
	if s.Settle(10 * time.Millisecond) {
		t.Fatal("settled with a request in flight")
	}
	go func() {
		s.Record(Entry{})
		s.End()
	}()
	if !s.Settle(10 * time.Second) {
		t.Fatal("did not settle after the request ended")
	}
	if e, _ := s.Journal(); len(e) != 1 {
		t.Fatal("settled before the entry was journaled")
	}
}

func TestKeptItemsShareTheBudget(t *testing.T) {
	st := NewStore(Limits{StoredResponses: 100, JournalBudget: 10_000})
	body := json.RawMessage(`"` + strings.Repeat("r", 1000) + `"`)
	for i := 0; i < 50; i++ {
		keepStored(st.Get(fmt.Sprintf("s%d", i%5)), fmt.Sprintf("resp_%d", i), body)
	}
	if got := st.JournalBytes(); got > 10_000 {
		t.Fatalf("kept items hold %d bytes over a 10000 budget", got)
	}
	if _, ok := storedBodies.Get(st.Get("s4"), "resp_49"); !ok {
		t.Fatal("the newest item was dropped")
	}
	if _, ok := storedBodies.Get(st.Get("s0"), "resp_0"); ok {
		t.Fatal("the oldest item survived the budget")
	}
	for i := 0; i < 5; i++ {
		st.Delete(fmt.Sprintf("s%d", i))
	}
	if st.JournalBytes() != 0 || st.liveEntries() != 0 {
		t.Fatalf("deleted sessions left %d bytes, %d items charged", st.JournalBytes(), st.liveEntries())
	}
}

func TestJournalGivesBackConversationAndEventsAsRecorded(t *testing.T) {
	st := NewStore(DefaultLimits())
	s := st.Get("k")
	c := &conv.Conversation{Dialect: conv.Gemini, Model: "gemini-3-pro", Tools: []conv.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Turns: []conv.Turn{
			{Role: conv.Assistant, Parts: []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{Name: "f", Arguments: map[string]any{"n": json.Number("1"), "x": 2.5, "l": []any{"a", nil}}, ThoughtSignature: "c2ln"}}}},
			{Role: conv.User, Parts: []conv.Part{{Kind: conv.KindResult, Result: &conv.Result{Name: "f", Structured: map[string]any{"ok": true}}}}},
		}}
	events := []Event{{Event: "message_start", Data: json.RawMessage(`{"a":1}`)}, {Data: json.RawMessage(`[DONE]`)}, {Event: "e", Data: json.RawMessage{}}}
	s.Record(Entry{Conversation: c, Events: events})
	s.Record(Entry{Status: 400})
	got, _ := s.Journal()
	if len(got) != 2 {
		t.Fatalf("kept %d entries, want 2", len(got))
	}
	if !reflect.DeepEqual(got[0].Conversation, c) {
		t.Fatalf("conversation changed in the journal:\n%+v\n%+v", got[0].Conversation, c)
	}
	if len(got[0].Events) != len(events) {
		t.Fatalf("events = %d, want %d", len(got[0].Events), len(events))
	}
	for i := range events {
		if got[0].Events[i].Event != events[i].Event || string(got[0].Events[i].Data) != string(events[i].Data) {
			t.Fatalf("event %d = %+v, want %+v", i, got[0].Events[i], events[i])
		}
	}
	if got[1].Conversation != nil || got[1].Events != nil {
		t.Fatalf("an entry without conversation or events gained some: %+v", got[1])
	}
	// Each read is its own copy: changing one does not change the journal.
	got[0].Conversation.Model = "changed"
	again, _ := s.Journal()
	if again[0].Conversation.Model != "gemini-3-pro" {
		t.Fatal("a reader's change reached the journal")
	}
}

// minted counts by names a client chooses.
var minted = NewCounter(func(name string) int { return len(name) })

// What a session keeps outside its journal is capped and charged to the
// budget: minted counter names, queued faults, long keys.
func TestSessionStateIsCappedAndCharged(t *testing.T) {
	st := NewStore(Limits{JournalBudget: 1 << 20})
	s := st.Get("k")
	for i := range 10 * MaxCounters {
		minted.Count(s, fmt.Sprintf("header-fault:%d:%s", i, strings.Repeat("x", 10_000)))
	}
	if len(s.counters) > MaxCounters {
		t.Errorf("%d counters kept", len(s.counters))
	}
	if got := st.StateBytes(); got > int64(sessionBaseCost+MaxCounters*(counterCost+MaxCounterName)+2) {
		t.Errorf("state %d bytes after minting counters", got)
	}
	for range MaxQueuedFaults {
		if err := s.AddFault(Fault{Kind: "latency", Remaining: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddFault(Fault{Kind: "latency", Remaining: 1}); err != ErrTooManyFaults {
		t.Errorf("fault beyond the cap: %v", err)
	}
	s.Reset()
	if got := st.StateBytes(); got != sessionBaseCost+2 {
		t.Errorf("reset kept %d bytes of state", got)
	}
	st.Delete(s.ID)
	if got := st.StateBytes(); got != 0 || st.Len() != 0 {
		t.Errorf("delete by id kept %d bytes, %d sessions", got, st.Len())
	}

	// Sessions named by big keys are evicted, least recently used first,
	// once their state alone is over budget.
	st = NewStore(Limits{JournalBudget: 100 << 10})
	for i := range 50 {
		st.Get(fmt.Sprintf("%d-%s", i, strings.Repeat("k", 8<<10)))
	}
	if got := st.StateBytes(); got > 100<<10 || st.Len() == 0 || st.Len() >= 50 {
		t.Errorf("%d sessions hold %d bytes, budget %d", st.Len(), got, 100<<10)
	}
}

// TestHoldsTellsStaleRefsWithoutTheLock: the store's queue compaction asks
// holds of every ref; it must say false for what the per-session caps,
// a replacement or a reset dropped, and true for what is kept.
func TestHoldsTellsStaleRefsWithoutTheLock(t *testing.T) {
	l := DefaultLimits()
	l.JournalEntries, l.StoredResponses = 2, 1
	st := NewStore(l)
	s := st.Get("holds-key")
	ref := func(seq int) journalRef { return journalRef{s: s, seq: seq, gen: s.gen.Load()} }
	for range 3 {
		s.Record(Entry{Method: "POST", Path: "/x"})
	}
	if s.holds(ref(1)) || !s.holds(ref(2)) || !s.holds(ref(3)) {
		t.Fatalf("entries 1-3 with room for 2: holds(1,2,3) = %v %v %v, want false true true", s.holds(ref(1)), s.holds(ref(2)), s.holds(ref(3)))
	}
	old := ref(3)
	s.Reset()
	s.Record(Entry{Method: "POST", Path: "/x"})
	if s.holds(old) {
		t.Fatal("a ref from before the reset is held")
	}
	if !s.holds(ref(1)) {
		t.Fatal("the first entry after a reset is not held")
	}
	keepStored(s, "resp_a", nil)
	a := keptRefOf(s, "resp_a")
	if !s.holds(journalRef{s: s, item: a}) {
		t.Fatal("a kept item is not held")
	}
	keepStored(s, "resp_a", nil) // the same id again replaces it
	b := keptRefOf(s, "resp_a")
	if s.holds(journalRef{s: s, item: a}) || !s.holds(journalRef{s: s, item: b}) {
		t.Fatal("a replaced item is held, or its replacement is not")
	}
	keepStored(s, "resp_c", nil) // room for one: b is evicted
	if s.holds(journalRef{s: s, item: b}) {
		t.Fatal("an evicted item is held")
	}
}

// TestFullJournalReusesItsArray: a journal at its cap keeps its newest
// entries in order while its window moves back to the array's start.
func TestFullJournalReusesItsArray(t *testing.T) {
	st := NewStore(Limits{MaxSessions: 10, JournalEntries: 5})
	s := st.Get("k")
	for i := range 1000 {
		s.Record(Entry{Path: fmt.Sprint(i)})
		if i == 100 {
			s.mu.Lock()
			arrays := cap(s.entryArray)
			s.mu.Unlock()
			defer func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				if cap(s.entryArray) != arrays {
					t.Errorf("the array grew from %d to %d entries with the journal full", arrays, cap(s.entryArray))
				}
			}()
		}
	}
	entries, dropped := s.Journal()
	if dropped != 995 || len(entries) != 5 {
		t.Fatalf("kept %d, dropped %d; want 5 and 995", len(entries), dropped)
	}
	for i, e := range entries {
		if e.Path != fmt.Sprint(995+i) || e.Seq != 996+i {
			t.Fatalf("entry %d is %q seq %d, want %d seq %d", i, e.Path, e.Seq, 995+i, 996+i)
		}
	}
}

// Event data that is not JSON ([DONE], a broken chunk, nothing at all) is
// written as a string flagged raw, so the journal always encodes, and reads
// back as the bytes sent.
func TestJournalEncodesEventsThatAreNotJSON(t *testing.T) {
	st := NewStore(DefaultLimits())
	s := st.Get("k")
	sent := []Event{
		{Event: "message_start", Data: json.RawMessage(`{"a":1}`)},
		{Data: json.RawMessage(`{"toolwire": malformed`)},
		{Data: json.RawMessage(`[DONE]`)},
		{Event: "e", Data: json.RawMessage{}},
	}
	s.Record(Entry{Events: sent})
	got, _ := s.Journal()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("journal does not encode: %v", err)
	}
	if !strings.Contains(string(b), `"data":"[DONE]","raw":true`) || !strings.Contains(string(b), `"data":{"a":1}}`) {
		t.Fatalf("encoded events: %s", b)
	}
	var back []Entry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i, want := range sent {
		ev := back[0].Events[i]
		if ev.Event != want.Event || string(ev.Data) != string(want.Data) || ev.Raw != (i > 0) {
			t.Errorf("event %d read back as %+v, want %q raw=%v", i, ev, want.Data, i > 0)
		}
	}
}

// Entries dropped by the journal's cap are counted with their violations
// by level; a session evicted whole adds everything it held to the
// store's count; a reset or a delete counts nothing.
func TestDroppedEntriesKeepTheirViolationCounts(t *testing.T) {
	st := NewStore(Limits{MaxSessions: 1, JournalEntries: 1})
	s := st.Get("k")
	must, should := rules.Violation{Rule: "r", Level: rules.MUST}, rules.Violation{Rule: "a", Level: rules.SHOULD}
	s.Record(Entry{Violations: []rules.Violation{must, should, should}})
	s.Record(Entry{Violations: []rules.Violation{must}})
	kept, dropped := s.JournalDropped()
	if len(kept) != 1 || dropped != (Dropped{Entries: 1, MustViolations: 1, ShouldViolations: 2}) {
		t.Fatalf("kept %d, dropped %+v", len(kept), dropped)
	}
	if info := s.Info(); info.Dropped != 1 || info.DroppedMust != 1 || info.DroppedShould != 2 {
		t.Fatalf("info %+v", info)
	}
	st.Get("other") // the cap evicts k: its kept and dropped entries are lost
	if n, lost := st.Evicted(); n != 1 || lost != (Dropped{Entries: 2, MustViolations: 2, ShouldViolations: 2}) {
		t.Fatalf("evicted %d, lost %+v", n, lost)
	}
	o, _ := st.Lookup("other")
	o.Record(Entry{Violations: []rules.Violation{must}})
	o.Record(Entry{})
	o.Reset()
	if _, d := o.JournalDropped(); d != (Dropped{}) {
		t.Fatalf("reset kept dropped counts %+v", d)
	}
	st.Delete("other")
	if n, _ := st.Evicted(); n != 1 {
		t.Fatalf("a delete counted as an eviction")
	}
	empty, _ := st.Get("new").Journal()
	if empty == nil {
		t.Fatal("an empty journal is nil (null in JSON)")
	}
}

// Package session keeps what the mock remembers per API key: the journal
// (journal.go), the chosen scenario, pending faults (faults.go), typed
// counters (counters.go), and the state a dialect keeps beside them in
// slots it declares (kept.go: the Responses API's stored responses).
// Everything is bounded: a cap on sessions (least recently used evicted,
// store.go), idle expiry, a cap per journal and per stored body, and one
// byte budget over all of it.
package session

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Limits bound the memory the store may hold.
type Limits struct {
	MaxSessions     int           // least recently used sessions beyond this are evicted
	IdleTTL         time.Duration // sessions unused this long are dropped
	JournalEntries  int           // oldest entries beyond this are dropped (and counted)
	JournalBodyMax  int           // bytes of each request/response body kept
	StoredResponses int           // Responses API responses kept per session
	// JournalBudget caps the bytes all journals and stored Responses
	// together may hold; beyond it the oldest items of any session are
	// dropped first, so memory stays flat however many sessions a CI farm
	// opens.
	JournalBudget int64
}

// DefaultLimits keep the journals of thousands of concurrent CI sessions
// within a fixed budget.
func DefaultLimits() Limits {
	return Limits{MaxSessions: 10000, IdleTTL: 30 * time.Minute, JournalEntries: 200, JournalBodyMax: 64 << 10, StoredResponses: 256, JournalBudget: 128 << 20}
}

// Per-session caps on what a client can make a session keep outside its
// journal: the key itself, counters, queued faults.
const (
	// MaxKeyLength is the longest API key that names a session; the server
	// answers a longer one with the provider's invalid-key error.
	MaxKeyLength = 1024
	// MaxCounters bounds a session's counts of every Counter together
	// (header-fault counts, scripted-fault retries); beyond it they are
	// all forgotten at once.
	MaxCounters = 256
	// MaxCounterName bounds the bytes of a count's key; a bigger one is
	// kept as its hash.
	MaxCounterName = 128
	// MaxQueuedFaults bounds the faults queued through the admin API.
	MaxQueuedFaults = 64
)

// ID names a session without revealing its key: the first 16 hex digits of
// the key's SHA-256. The admin API lists sessions by it and accepts it
// wherever it accepts a key.
func ID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "s-" + hex.EncodeToString(sum[:8])
}

// Session is one API key's state.
type Session struct {
	Key string
	// ID is the key's hash (see ID): what the admin API shows.
	ID  string
	IDs *wire.IDs

	store    *Store
	mu       sync.Mutex
	idle     *sync.Cond // signalled when inflight drops to 0
	inflight int
	limits   Limits
	scenario string
	entries  []Entry
	// entryArray is the whole array entries is a window of (see
	// appendEntryLocked).
	entryArray []Entry
	// dropped counts what the journal no longer holds (its cap, the
	// store's budget), violations by level included, so a test reading
	// the journal can tell that a violation it cannot see existed.
	dropped Dropped
	seq     int
	// gen counts resets (which restart seq); firstKept is the oldest kept
	// entry's seq. Both are written under mu and read without it (holds).
	gen, firstKept atomic.Int64
	lastSeen       time.Time
	created        time.Time
	faults         []*Fault
	// measure sizes journaled conversations, each from the one before.
	measure conv.Measure
	// counters holds every Counter's counts, keyed by counterKey.
	counters map[any]count
	// kept holds each Kept kind's items (keyed by the *Kept), slots each
	// Slot's value (keyed by the *Slot): state dialects keep.
	kept  map[any]keptTable
	slots map[any]any
	// state is what the session keeps outside its journal (key, counters,
	// queued faults, scenario name), charged to the store's budget.
	state int64
}

// sessionBaseCost is what an empty session costs beyond its key: the
// struct, its id generator and map headers.
const sessionBaseCost = 1024

// counterCost and faultCost are what one counter or queued fault keeps.
const (
	counterCost = 64
	faultCost   = 96
)

// chargeStateLocked adds bytes of kept state to the session and the
// store's budget; the store trims once the lock is released (see account).
func (s *Session) chargeStateLocked(bytes int64) {
	s.state += bytes
	if s.store != nil {
		s.store.stateBytes.Add(bytes)
	}
}

// releaseStateLocked gives every byte of kept state back (the session is
// dropped).
func (s *Session) releaseStateLocked() {
	if s.store != nil {
		s.store.stateBytes.Add(-s.state)
	}
	s.state = 0
}

func (s *Session) touch(now time.Time) {
	s.mu.Lock()
	s.lastSeen = now
	s.mu.Unlock()
}

// Begin marks a request in flight; End marks it journaled.
func (s *Session) Begin() {
	s.mu.Lock()
	s.inflight++
	s.mu.Unlock()
}

// End marks a request finished (after its journal entry is recorded).
func (s *Session) End() {
	s.mu.Lock()
	s.inflight--
	if s.inflight <= 0 && s.idle != nil {
		s.idle.Broadcast()
	}
	s.mu.Unlock()
}

// Settle waits until no request of the session is in flight, or the
// timeout passes; it reports whether the session settled. A client that
// stops reading at a stream's last event may return before the mock has
// journaled that request: judges call Settle before reading the journal.
func (s *Session) Settle(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle == nil {
		s.idle = sync.NewCond(&s.mu)
	}
	for s.inflight > 0 {
		if time.Now().After(deadline) {
			return false
		}
		// Cond has no timed wait: a timer broadcasts at the deadline.
		t := time.AfterFunc(time.Until(deadline), func() {
			s.mu.Lock()
			s.idle.Broadcast()
			s.mu.Unlock()
		})
		s.idle.Wait()
		t.Stop()
	}
	return true
}

// Scenario returns the session's chosen scenario ("" = default model).
func (s *Session) Scenario() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scenario
}

// SetScenario picks a scenario for the session.
func (s *Session) SetScenario(name string) {
	s.mu.Lock()
	s.chargeStateLocked(int64(len(name) - len(s.scenario)))
	s.scenario = name
	s.mu.Unlock()
	s.settleBudget()
}

// settleBudget trims the store back under budget after state was charged.
func (s *Session) settleBudget() {
	if s.store != nil {
		s.store.trim(s)
	}
}

// Reset clears everything but the key.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
	s.chargeStateLocked(-(s.countersCostLocked() + int64(len(s.faults))*faultCost + int64(len(s.scenario))))
	s.scenario, s.dropped, s.seq = "", Dropped{}, 0
	s.slots, s.faults, s.counters = nil, nil, nil
	s.IDs.Reset()
}

// Info is the admin view of a session. It names the session by its ID,
// never its key: the admin API is readable by whoever reaches it.
type Info struct {
	ID       string `json:"id"`
	Scenario string `json:"scenario,omitempty"`
	Requests int    `json:"requests"`
	Dropped  int    `json:"dropped_entries,omitempty"`
	// The violations the dropped entries carried.
	DroppedMust   int       `json:"dropped_must_violations,omitempty"`
	DroppedShould int       `json:"dropped_should_violations,omitempty"`
	Created       time.Time `json:"created"`
	LastSeen      time.Time `json:"last_seen"`
}

func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Info{ID: s.ID, Scenario: s.scenario, Requests: s.seq, Dropped: s.dropped.Entries,
		DroppedMust: s.dropped.MustViolations, DroppedShould: s.dropped.ShouldViolations, Created: s.created, LastSeen: s.lastSeen}
}

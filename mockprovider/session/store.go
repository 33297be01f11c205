package session

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Store holds the sessions.
type Store struct {
	mu       sync.Mutex
	limits   Limits
	sessions map[string]*Session
	byID     map[string]*Session
	now      func() time.Time
	evicted  int
	// lost is what the sessions the store evicted (its cap, idle expiry,
	// its budget) had journaled, kept or dropped: a test helper fails on
	// violations it can no longer see.
	lost  Dropped
	swept time.Time

	// The journal budget: every kept entry in arrival order across
	// sessions, so the oldest anywhere goes first.
	journalBytes atomic.Int64
	journalCount atomic.Int64
	// stateBytes is what sessions keep outside their journals (keys,
	// counters, queued faults); it counts against the same budget.
	stateBytes atomic.Int64
	jmu        sync.Mutex
	jqueue     []journalRef
	jhead      int
}

// journalRef names one budgeted item: a journal entry (seq) or an item a
// dialect keeps (item).
type journalRef struct {
	s *Session
	// A journal entry: its seq in the session's generation gen.
	seq int
	gen int64
	// Or a kept item.
	item keptRef
	size int64
}

// charge accounts for a new journal entry or kept item and drops
// the oldest items of any session while the store is over budget.
func (st *Store) charge(refs ...journalRef) {
	for _, ref := range refs {
		st.journalBytes.Add(ref.size)
	}
	st.journalCount.Add(int64(len(refs)))
	st.jmu.Lock()
	defer st.jmu.Unlock()
	st.jqueue = append(st.jqueue, refs...)
	st.dropOldestItemsLocked()
	// Refs of entries already gone (trimmed by the per-session cap, reset,
	// evicted) are only popped when over budget; compact them away before
	// the queue outgrows the entries it tracks.
	if live := len(st.jqueue) - st.jhead; st.jhead > 1024 && st.jhead > live || live > 4096 && live > 2*st.liveEntries() {
		kept := make([]journalRef, 0, live)
		for _, ref := range st.jqueue[st.jhead:] {
			if ref.s.holds(ref) {
				kept = append(kept, ref)
			}
		}
		st.jqueue, st.jhead = kept, 0
	}
}

// dropOldestItemsLocked forgets the oldest journal entries and kept
// items of any session while the store is over budget.
func (st *Store) dropOldestItemsLocked() {
	for budget := st.limits.JournalBudget; budget > 0 && st.heldBytes() > budget && st.jhead < len(st.jqueue); {
		ref := st.jqueue[st.jhead]
		st.jqueue[st.jhead] = journalRef{}
		st.jhead++
		ref.s.forget(ref)
	}
}

// trim brings the store back under budget after a session's kept state
// grew: the oldest journal items of any session go first, then, when only
// sessions' own state is left, the least recently used sessions other than
// keep.
func (st *Store) trim(keep *Session) {
	budget := st.limits.JournalBudget
	if budget <= 0 || st.heldBytes() <= budget {
		return
	}
	st.jmu.Lock()
	st.dropOldestItemsLocked()
	st.jmu.Unlock()
	for st.heldBytes() > budget {
		st.mu.Lock()
		evicted := st.evictOldestLocked(keep)
		st.mu.Unlock()
		if !evicted {
			return
		}
	}
}

// liveEntries is how many journal entries all sessions keep.
func (st *Store) liveEntries() int { return int(st.journalCount.Load()) }

// JournalBytes is what all journals hold, as charged to the budget.
func (st *Store) JournalBytes() int64 { return st.journalBytes.Load() }

// StateBytes is what sessions keep outside their journals, as charged to
// the budget.
func (st *Store) StateBytes() int64 { return st.stateBytes.Load() }

// heldBytes is everything charged to the budget.
func (st *Store) heldBytes() int64 { return st.journalBytes.Load() + st.stateBytes.Load() }

// NewStore makes a store with the given limits.
func NewStore(l Limits) *Store {
	return &Store{limits: l, sessions: map[string]*Session{}, byID: map[string]*Session{}, now: time.Now}
}

// Get returns the session for a key, creating it (and making room) if new.
func (st *Store) Get(key string) *Session {
	now := st.now()
	st.mu.Lock()
	s, ok := st.sessions[key]
	if !ok {
		st.expireLocked(now)
		if max := st.limits.MaxSessions; max > 0 && len(st.sessions) >= max {
			st.evictOldestLocked(nil)
		}
		s = &Session{Key: key, ID: ID(key), IDs: wire.NewIDs(key), store: st, limits: st.limits, created: now, lastSeen: now}
		st.sessions[key] = s
		st.byID[s.ID] = s
		// The key is held twice (map key and Session.Key) and hashed into
		// the id generator.
		s.mu.Lock()
		s.chargeStateLocked(sessionBaseCost + 2*int64(len(key)))
		s.mu.Unlock()
	}
	st.mu.Unlock()
	if !ok {
		st.trim(s)
	}
	s.touch(now)
	return s
}

// Lookup returns an existing session without creating one.
func (st *Store) Lookup(key string) (*Session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s, ok := st.sessions[key]
	return s, ok
}

// LookupKeyOrID finds an existing session by its key or by its ID (the
// admin API shows IDs only).
func (st *Store) LookupKeyOrID(keyOrID string) (*Session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.sessions[keyOrID]; ok {
		return s, true
	}
	s, ok := st.byID[keyOrID]
	return s, ok
}

// Delete forgets a session, named by its key or its ID.
func (st *Store) Delete(keyOrID string) {
	st.mu.Lock()
	s, ok := st.sessions[keyOrID]
	if !ok {
		s, ok = st.byID[keyOrID]
	}
	if ok {
		st.dropLocked(s.Key, s, false)
	}
	st.mu.Unlock()
}

// dropLocked removes a session and gives its journal and kept state back
// to the budget; an evicted session's journal is counted as lost.
func (st *Store) dropLocked(key string, s *Session, evicted bool) {
	delete(st.sessions, key)
	delete(st.byID, s.ID)
	s.mu.Lock()
	if evicted {
		st.evicted++
		st.lost.add(s.lostLocked())
	}
	s.releaseLocked()
	s.releaseStateLocked()
	s.mu.Unlock()
}

// List returns the sessions' admin views, most recent first.
func (st *Store) List() []Info {
	st.mu.Lock()
	all := make([]*Session, 0, len(st.sessions))
	for _, s := range st.sessions {
		all = append(all, s)
	}
	st.mu.Unlock()
	out := make([]Info, len(all))
	for i, s := range all {
		out[i] = s.Info()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	return out
}

// Evicted is how many sessions the store dropped on its own (its cap, idle
// expiry, its budget; not Delete) and what their journals had held or
// dropped: violations a reader of the live sessions cannot see.
func (st *Store) Evicted() (sessions int, lost Dropped) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.evicted, st.lost
}

// Len is the number of live sessions.
func (st *Store) Len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.sessions)
}

// Expire drops idle sessions; the server calls it periodically.
func (st *Store) Expire() {
	now := st.now()
	st.mu.Lock()
	st.expireLocked(now)
	st.mu.Unlock()
}

func (st *Store) expireLocked(now time.Time) {
	// Sweeping is O(sessions); doing it at most once a second keeps
	// session creation cheap under load.
	if st.limits.IdleTTL <= 0 || now.Sub(st.swept) < time.Second {
		return
	}
	st.swept = now
	for k, s := range st.sessions {
		s.mu.Lock()
		idle := now.Sub(s.lastSeen) > st.limits.IdleTTL
		s.mu.Unlock()
		if idle {
			st.dropLocked(k, s, true)
		}
	}
}

// evictOldestLocked drops the least recently used session other than
// keep; it reports whether one was dropped.
func (st *Store) evictOldestLocked(keep *Session) bool {
	var oldestKey string
	var oldest time.Time
	for k, s := range st.sessions {
		if s == keep {
			continue
		}
		s.mu.Lock()
		seen := s.lastSeen
		s.mu.Unlock()
		if oldestKey == "" || seen.Before(oldest) {
			oldestKey, oldest = k, seen
		}
	}
	if oldestKey == "" {
		return false
	}
	st.dropLocked(oldestKey, st.sessions[oldestKey], true)
	return true
}

// uncharge gives bytes (and n kept items) back to the store's budget.
func (s *Session) uncharge(bytes int64, n int) {
	if s.store != nil {
		s.store.journalBytes.Add(-bytes)
		s.store.journalCount.Add(-int64(n))
	}
}

// forget drops what ref names — a journal entry if it is still the
// session's oldest, or a kept item; the store calls it to enforce
// the budget.
func (s *Session) forget(ref journalRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ref.item != nil {
		if !ref.item.isGone() {
			ref.item.dropLocked(s)
		}
		return
	}
	if ref.gen == s.gen.Load() && len(s.entries) > 0 && s.entries[0].Seq == ref.seq {
		s.dropOldestLocked(1)
	}
}

// holds reports whether what ref names is still kept. It takes no lock:
// the store asks it of every queued ref when it compacts its queue, and
// a session only ever drops its oldest entries (or all of them, starting
// a new generation), so an entry is kept while its seq is at or after the
// oldest kept one.
func (s *Session) holds(ref journalRef) bool {
	if ref.item != nil {
		return !ref.item.isGone()
	}
	return ref.gen == s.gen.Load() && int64(ref.seq) >= s.firstKept.Load()
}

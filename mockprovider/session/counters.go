package session

import (
	"crypto/sha256"
	"fmt"
)

// Counter is a kind of per-session count keyed by K: how many requests a
// header-driven fault has failed, how many attempts a scenario turn's
// scripted fault has met. A session keeps at most MaxCounters counts of
// all kinds together; a new key beyond that forgets them all (old counts
// start again from zero), and a key bigger than MaxCounterName is kept as
// its hash, so a client minting keys cannot grow the session.
type Counter[K comparable] struct {
	size func(K) int
}

// NewCounter declares a kind of count; size is what a key holds in bytes
// (its strings' lengths).
func NewCounter[K comparable](size func(K) int) *Counter[K] { return &Counter[K]{size: size} }

// counterKey and hashedCounterKey are a count's key in the session's
// map: the kind and the key, or the kind and the hash of a big key.
type (
	counterKey[K comparable] struct {
		kind *Counter[K]
		key  K
	}
	hashedCounterKey struct {
		kind any
		sum  [16]byte
	}
)

// count is one kept count and the bytes its key is charged.
type count struct {
	n, cost int
}

func (c *Counter[K]) mapKey(k K) (any, int) {
	n := c.size(k)
	if n <= MaxCounterName {
		return counterKey[K]{c, k}, n
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%#v", k))
	h := hashedCounterKey{kind: c}
	copy(h.sum[:], sum[:])
	return h, MaxCounterName
}

// Count bumps and returns s's count of k.
func (c *Counter[K]) Count(s *Session, k K) int {
	key, size := c.mapKey(k)
	s.mu.Lock()
	if s.counters == nil {
		s.counters = map[any]count{}
	}
	v, ok := s.counters[key]
	if !ok {
		if len(s.counters) >= MaxCounters {
			s.chargeStateLocked(-s.countersCostLocked())
			clear(s.counters)
		}
		v.cost = counterCost + size
		s.chargeStateLocked(int64(v.cost))
	}
	v.n++
	s.counters[key] = v
	s.mu.Unlock()
	if !ok {
		s.settleBudget()
	}
	return v.n
}

// Counted reports whether s has a count of k (bumped and not forgotten
// since), without bumping or creating it: a lookup that must not itself
// make the key look seen.
func (c *Counter[K]) Counted(s *Session, k K) bool {
	key, _ := c.mapKey(k)
	s.mu.Lock()
	_, ok := s.counters[key]
	s.mu.Unlock()
	return ok
}

func (s *Session) countersCostLocked() int64 {
	var n int64
	for _, v := range s.counters {
		n += int64(v.cost)
	}
	return n
}

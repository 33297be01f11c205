package session

import "sync/atomic"

// A dialect keeps state per session beside the journal (the Responses
// API's stored responses, for previous_response_id and GET
// /v1/responses/{id}). The session does not know its types: the dialect
// declares a Kept kind or a Slot once, and the session holds one table or
// value per kind, under its lock, dropped on Reset and when the session
// is forgotten.

// Kept is a kind of item a session keeps by id: at most Max(limits) per
// session, the oldest dropped first, each charged to the store's byte
// budget (which may drop the oldest items of any session).
type Kept[V any] struct {
	max  func(Limits) int
	cost func(V) int64
}

// NewKept declares a kind of kept item: max is the per-session cap (0 =
// none), cost what one item holds in memory.
func NewKept[V any](max func(Limits) int, cost func(V) int64) *Kept[V] {
	return &Kept[V]{max: max, cost: cost}
}

// KeptItem is one item to keep under its id.
type KeptItem[V any] struct {
	ID    string
	Value V
}

// keptTable is one session's items of one kind.
type keptTable interface {
	// releaseLocked drops every item (the session is reset or forgotten).
	releaseLocked(s *Session)
}

// keptRef is one kept item as the store's budget queue names it.
type keptRef interface {
	isGone() bool
	dropLocked(s *Session)
}

type keptMap[V any] struct {
	items map[string]*keptItem[V]
	order []string // ids, oldest first
}

type keptItem[V any] struct {
	id    string
	value V
	size  int64
	table *keptMap[V]
	// gone is set when the session stops keeping it, so the store can
	// tell a stale budget ref without the session's lock.
	gone atomic.Bool
}

func (it *keptItem[V]) isGone() bool { return it.gone.Load() }

func (it *keptItem[V]) dropLocked(s *Session) { it.table.deleteLocked(s, it.id) }

// tableLocked is s's table of kind k, made on first use when create.
func (k *Kept[V]) tableLocked(s *Session, create bool) *keptMap[V] {
	if t, ok := s.kept[k]; ok {
		return t.(*keptMap[V])
	}
	if !create {
		return nil
	}
	if s.kept == nil {
		s.kept = map[any]keptTable{}
	}
	t := &keptMap[V]{items: map[string]*keptItem[V]{}}
	s.kept[k] = t
	return t
}

// Put keeps items (a response and its output items) under one lock and
// one charge to the store's budget. An id kept already is replaced in
// place; beyond the cap the oldest go.
func (k *Kept[V]) Put(s *Session, items ...KeptItem[V]) {
	if len(items) == 0 {
		return
	}
	var one [4]journalRef
	refs := one[:0]
	s.mu.Lock()
	t := k.tableLocked(s, true)
	for _, in := range items {
		it := &keptItem[V]{id: in.ID, value: in.Value, size: k.cost(in.Value), table: t}
		if old, ok := t.items[in.ID]; ok {
			old.gone.Store(true)
			s.uncharge(old.size, 1)
		} else {
			t.order = append(t.order, in.ID)
		}
		t.items[in.ID] = it
		refs = append(refs, journalRef{s: s, item: it, size: it.size})
	}
	for max := k.max(s.limits); max > 0 && len(t.order) > max; {
		t.deleteLocked(s, t.order[0])
	}
	s.mu.Unlock()
	if s.store != nil {
		s.store.charge(refs...)
	}
}

// Get looks up a kept item.
func (k *Kept[V]) Get(s *Session, id string) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := k.tableLocked(s, false); t != nil {
		if it, ok := t.items[id]; ok {
			return it.value, true
		}
	}
	var zero V
	return zero, false
}

// Delete forgets a kept item.
func (k *Kept[V]) Delete(s *Session, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := k.tableLocked(s, false); t != nil {
		t.deleteLocked(s, id)
	}
}

func (t *keptMap[V]) deleteLocked(s *Session, id string) {
	it, ok := t.items[id]
	if !ok {
		return
	}
	delete(t.items, id)
	it.gone.Store(true)
	s.uncharge(it.size, 1)
	if len(t.order) > 0 && t.order[0] == id {
		// The usual case, the oldest evicted for a new one: dropping the
		// head is O(1), where shifting the whole order showed in every
		// Responses request once the store was full. append reallocates
		// (copying only the live ids) when the tail is full.
		t.order[0] = ""
		t.order = t.order[1:]
		return
	}
	for i, x := range t.order {
		if x == id {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

func (t *keptMap[V]) releaseLocked(s *Session) {
	for _, id := range append([]string(nil), t.order...) {
		t.deleteLocked(s, id)
	}
}

// Slot is a kind of value a session holds for a dialect, made by new on
// first use and dropped on Reset. It is not charged to the budget: its
// owner bounds it (new gets the session's limits).
type Slot[T any] struct {
	new func(Limits) T
}

// NewSlot declares a kind of per-session value.
func NewSlot[T any](new func(Limits) T) *Slot[T] { return &Slot[T]{new: new} }

// Update runs f on s's value under the session's lock, making the value
// first if s has none.
func (sl *Slot[T]) Update(s *Session, f func(T)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.slots[sl]
	if !ok {
		if s.slots == nil {
			s.slots = map[any]any{}
		}
		v = sl.new(s.limits)
		s.slots[sl] = v
	}
	f(v.(T))
}

// Read runs f on s's value under the session's lock, if s has one.
func (sl *Slot[T]) Read(s *Session, f func(T)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.slots[sl]; ok {
		f(v.(T))
	}
}

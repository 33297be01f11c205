// Package session keeps what the mock remembers per API key: the
// conversation store behind previous_response_id, the journal, the chosen
// scenario and pending faults. Everything is bounded: a cap on sessions
// (least recently used evicted), idle expiry, a cap per journal and per
// stored body.
package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
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

// Entry is one journaled exchange.
type Entry struct {
	Seq          int                `json:"seq"`
	Time         time.Time          `json:"time"`
	Dialect      conv.Dialect       `json:"dialect"`
	Method       string             `json:"method"`
	Path         string             `json:"path"`
	Scenario     string             `json:"scenario,omitempty"`
	Turn         int                `json:"turn"` // scenario turn answered (assistant turns before this request)
	Request      json.RawMessage    `json:"request,omitempty"`
	Status       int                `json:"status"`
	Response     json.RawMessage    `json:"response,omitempty"`
	Events       []Event            `json:"events,omitempty"` // a streamed answer, event for event
	Conversation *conv.Conversation `json:"conversation,omitempty"`
	Violations   []rules.Violation  `json:"violations,omitempty"`
	Answered     string             `json:"answered_rule,omitempty"` // rule whose error was sent
	Fault        string             `json:"fault,omitempty"`
	Truncated    bool               `json:"truncated,omitempty"`
	// RequestRaw and ResponseRaw mark a body that was not JSON (a client's
	// broken request, a malformed-chunk fault's answer, an answer captured
	// only up to the journal's limit): Record keeps it as a JSON string of
	// the bytes sent.
	RequestRaw  bool `json:"request_raw,omitempty"`
	ResponseRaw bool `json:"response_raw,omitempty"`
	// Notes say where the mock departed from what the request asked, e.g.
	// a schema bound above what argument synthesis builds.
	Notes []string `json:"notes,omitempty"`

	// A kept entry holds its events flat, as bytes, and the request's
	// decoded conversation; Journal() hands out copies of both.
	flatEvents []byte
	size       int64 // bytes charged to the store's journal budget
}

// flatten moves the events into one byte slice.
func (e *Entry) flatten() {
	if len(e.Events) > 0 {
		n := 0
		for _, ev := range e.Events {
			n += len(ev.Event) + len(ev.Data) + 2*binary.MaxVarintLen32
		}
		b := make([]byte, 0, n)
		for _, ev := range e.Events {
			b = binary.AppendUvarint(b, uint64(len(ev.Event)))
			b = append(b, ev.Event...)
			b = binary.AppendUvarint(b, uint64(len(ev.Data)))
			b = append(b, ev.Data...)
		}
		e.flatEvents, e.Events = b, nil
	}
}

// expanded returns a copy of a kept entry with its own copy of the
// conversation and its events decoded (the events' data share the kept
// bytes).
func (e *Entry) expanded() Entry {
	out := *e
	out.flatEvents = nil
	out.Conversation = e.Conversation.Clone()
	for b := e.flatEvents; len(b) > 0; {
		name, rest, ok1 := readChunk(b)
		data, rest, ok2 := readChunk(rest)
		if !ok1 || !ok2 {
			break
		}
		out.Events = append(out.Events, Event{Event: string(name), Data: data, Raw: !jsontext.Value(data).IsValid()})
		b = rest
	}
	return out
}

// readChunk reads one length-prefixed chunk.
func readChunk(b []byte) (chunk, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, false
	}
	return b[k : k+int(n) : k+int(n)], b[k+int(n):], true
}

// cost estimates what a kept entry holds in memory.
func (e *Entry) cost() int64 {
	n := len(e.Request) + len(e.Response) + e.Conversation.Size() + len(e.flatEvents) + 512
	for _, note := range e.Notes {
		n += len(note) + 16
	}
	return int64(n)
}

// Event is one server-sent event of a streamed answer.
type Event struct {
	Event string `json:"event,omitempty"`
	// Data is the event's data as sent: JSON, but for OpenAI's closing
	// [DONE] and a malformed-chunk fault's broken event.
	Data json.RawMessage `json:"data"`
	// Raw marks data that is not JSON. The journal's JSON form carries
	// such data as a string holding the bytes sent (with "raw": true), so
	// one event the client was meant to choke on cannot make the journal
	// API unreadable; Journal sets it, and decoding the JSON form turns
	// the string back into the bytes.
	Raw bool `json:"raw,omitempty"`
}

// jsonEvent and rawJSONEvent are Event's two JSON forms.
type (
	jsonEvent struct {
		Event string          `json:"event,omitempty"`
		Data  json.RawMessage `json:"data"`
	}
	rawJSONEvent struct {
		Event string `json:"event,omitempty"`
		Data  string `json:"data"`
		Raw   bool   `json:"raw"`
	}
)

// MarshalJSON writes data that is not JSON as a string (see Raw).
func (e Event) MarshalJSON() ([]byte, error) {
	if !e.Raw && jsontext.Value(e.Data).IsValid() {
		return json.Marshal(jsonEvent{Event: e.Event, Data: e.Data})
	}
	return json.Marshal(rawJSONEvent{Event: e.Event, Data: string(e.Data), Raw: true})
}

// UnmarshalJSON reads either form back into the data as sent.
func (e *Event) UnmarshalJSON(b []byte) error {
	var x struct {
		Event string          `json:"event"`
		Data  json.RawMessage `json:"data"`
		Raw   bool            `json:"raw"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*e = Event{Event: x.Event, Data: x.Data, Raw: x.Raw}
	if x.Raw {
		var sent string
		if err := json.Unmarshal(x.Data, &sent); err != nil {
			return err
		}
		e.Data = json.RawMessage(sent)
	}
	return nil
}

// StoredResponse is an OpenAI Responses answer kept for
// previous_response_id and GET /v1/responses/{id}.
type StoredResponse struct {
	ID   string
	Body json.RawMessage // the response object as sent
	// Items is the effective conversation up to and including this
	// response's output, as native input items.
	Items []json.RawMessage

	size int64 // bytes charged to the store's budget
	// gone is set when the session stops keeping it, so the store can
	// tell a stale budget ref without the session's lock.
	gone atomic.Bool
}

func (r *StoredResponse) cost() int64 {
	n := int64(len(r.Body) + 256)
	for _, it := range r.Items {
		n += int64(len(it) + 24)
	}
	return n
}

// Per-session caps on what a client can make a session keep outside its
// journal: the key itself, named counters, queued faults.
const (
	// MaxKeyLength is the longest API key that names a session; the server
	// answers a longer one with the provider's invalid-key error.
	MaxKeyLength = 1024
	// MaxCounters bounds a session's named counters (header-fault counts,
	// scripted-fault retries); beyond it they are all forgotten at once.
	MaxCounters = 256
	// MaxCounterName bounds a counter's name; a longer one is kept as its hash.
	MaxCounterName = 128
	// MaxQueuedFaults bounds the faults queued through the admin API.
	MaxQueuedFaults = 64
)

// ErrTooManyFaults is AddFault's answer once MaxQueuedFaults are queued.
var ErrTooManyFaults = errors.New("too many queued faults for this session")

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
	responses      map[string]*StoredResponse
	respOrder      []string
	reasoning      map[string]string // fc_ item id → rs_ id the mock emitted before it
	faults         []*Fault
	counters       map[string]int
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

// Fault is a pending injected failure (see the faults documentation).
type Fault struct {
	Kind      string `json:"kind"`
	Remaining int    `json:"remaining"` // requests still to fail; <0 = every request
	After     int    `json:"after,omitempty"`
	MS        int    `json:"ms,omitempty"`
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

// Record appends a journal entry, trimming bodies and old entries, and
// charges it to the store's journal budget.
func (s *Session) Record(e Entry) int {
	s.mu.Lock()
	s.seq++
	e.Seq = s.seq
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	e.Request, e.Truncated = keepBody(e.Request, e.RequestRaw, s.limits.JournalBodyMax, e.Truncated)
	e.Response, e.Truncated = keepBody(e.Response, e.ResponseRaw, s.limits.JournalBodyMax, e.Truncated)
	for i := range e.Events {
		e.Events[i].Data = validUTF8(e.Events[i].Data)
	}
	if n := len(e.Events); n > 0 {
		budget := s.limits.JournalBodyMax
		for i := range e.Events {
			budget -= len(e.Events[i].Data)
			if budget < 0 {
				e.Events, e.Truncated = e.Events[:i], true
				break
			}
		}
	}
	e.flatten()
	e.size = e.cost()
	s.appendEntryLocked(e)
	if max := s.limits.JournalEntries; max > 0 && len(s.entries) > max {
		s.dropOldestLocked(len(s.entries) - max)
	}
	ref := journalRef{s: s, seq: e.Seq, gen: s.gen.Load(), size: e.size}
	s.mu.Unlock()
	if s.store != nil {
		s.store.charge(ref)
	}
	seq := ref.seq
	return seq
}

// appendEntryLocked appends e. A full journal drops its oldest entry for
// each new one by re-slicing from the front, so the window reaches the
// array's end every few hundred requests; the kept entries then move back
// to the start of the array instead of append copying them into a new,
// larger one (at the default cap, 67 KB allocated, cleared and copied).
func (s *Session) appendEntryLocked(e Entry) {
	if n := len(s.entries); n == cap(s.entries) && n > 0 && n <= cap(s.entryArray)/2 {
		copy(s.entryArray, s.entries)
		clear(s.entryArray[n:]) // where the moved entries were
		s.entries = s.entryArray[:n]
	}
	before := cap(s.entries)
	s.entries = append(s.entries, e)
	if cap(s.entries) != before {
		s.entryArray = s.entries[:cap(s.entries)] // a new array starts at entries[0]
	}
}

// dropOldestLocked forgets the n oldest entries, counting them and their
// violations. Re-slicing (after clearing, so their bodies can be
// collected) keeps the drop O(n): append copies the live entries only when
// it grows the array.
func (s *Session) dropOldestLocked(n int) {
	var freed int64
	for i := range n {
		freed += s.entries[i].size
		s.dropped.count(&s.entries[i])
	}
	clear(s.entries[:n])
	s.entries = s.entries[n:]
	s.uncharge(freed, n)
	s.noteKeptLocked()
}

// uncharge gives bytes (and n kept items) back to the store's budget.
func (s *Session) uncharge(bytes int64, n int) {
	if s.store != nil {
		s.store.journalBytes.Add(-bytes)
		s.store.journalCount.Add(-int64(n))
	}
}

// forget drops what ref names — a journal entry if it is still the
// session's oldest, or a stored response; the store calls it to enforce
// the budget.
func (s *Session) forget(ref journalRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ref.resp != nil {
		if !ref.resp.gone.Load() {
			s.deleteResponseLocked(ref.resp.ID)
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
	if ref.resp != nil {
		return !ref.resp.gone.Load()
	}
	return ref.gen == s.gen.Load() && int64(ref.seq) >= s.firstKept.Load()
}

// noteKeptLocked publishes the oldest kept entry's seq for holds.
func (s *Session) noteKeptLocked() {
	first := int64(s.seq) + 1
	if len(s.entries) > 0 {
		first = int64(s.entries[0].Seq)
	}
	s.firstKept.Store(first)
}

// releaseLocked drops every entry and stored response (the session is
// reset or forgotten), giving their bytes back to the budget.
func (s *Session) releaseLocked() {
	if len(s.entries) > 0 {
		s.dropOldestLocked(len(s.entries))
	}
	s.entries, s.entryArray = nil, nil
	// Refs to the entries of before are stale whatever their seq; the
	// next generation's seqs start again.
	s.gen.Add(1)
	s.firstKept.Store(0)
	for _, id := range append([]string(nil), s.respOrder...) {
		s.deleteResponseLocked(id)
	}
}

// validUTF8 replaces invalid UTF-8 in a kept body with U+FFFD: the
// journal API must answer valid JSON, and JSON is UTF-8. Callers journal
// only syntactically valid JSON, where such bytes can only sit inside
// strings, so the result stays valid JSON.
func validUTF8(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
}

// keepBody is what the journal keeps of a body: JSON as it is (clip), or
// bytes that are not JSON as a JSON string of them, clipped to max.
func keepBody(body json.RawMessage, raw bool, max int, truncated bool) (json.RawMessage, bool) {
	if !raw || len(body) == 0 {
		return clip(validUTF8(body), max, truncated)
	}
	if max > 0 && len(body) > max {
		body, truncated = body[:max], true
	}
	b, _ := json.Marshal(string(body)) // invalid UTF-8 becomes U+FFFD
	return b, truncated
}

// clip keeps raw JSON under max bytes; a clipped body is kept as a JSON
// string so the journal stays valid JSON.
func clip(raw json.RawMessage, max int, truncated bool) (json.RawMessage, bool) {
	if max <= 0 || len(raw) <= max {
		return raw, truncated
	}
	b, _ := json.Marshal(string(raw[:max]) + "…")
	return b, true
}

// Dropped counts journal entries a session no longer holds, and the
// violations they carried by level.
type Dropped struct {
	Entries          int `json:"entries"`
	MustViolations   int `json:"must"`
	ShouldViolations int `json:"should"`
}

// count adds a dropped entry.
func (d *Dropped) count(e *Entry) {
	d.Entries++
	for _, v := range e.Violations {
		switch v.Level {
		case rules.MUST:
			d.MustViolations++
		case rules.SHOULD:
			d.ShouldViolations++
		}
	}
}

func (d *Dropped) add(o Dropped) {
	d.Entries += o.Entries
	d.MustViolations += o.MustViolations
	d.ShouldViolations += o.ShouldViolations
}

// Journal returns a copy of the kept entries (never nil) and how many
// were dropped.
func (s *Session) Journal() ([]Entry, int) {
	kept, dropped := s.JournalDropped()
	return kept, dropped.Entries
}

// JournalDropped returns a copy of the kept entries (never nil) and what
// was dropped, read together.
func (s *Session) JournalDropped() ([]Entry, Dropped) {
	s.mu.Lock()
	kept, dropped := append(make([]Entry, 0, len(s.entries)), s.entries...), s.dropped
	s.mu.Unlock()
	// Expanding outside the lock: kept entries are never modified, only
	// dropped, and the copy holds what it needs.
	for i := range kept {
		kept[i] = kept[i].expanded()
	}
	return kept, dropped
}

// lostLocked is everything the session's journal held or dropped, for a
// store evicting the session whole.
func (s *Session) lostLocked() Dropped {
	lost := s.dropped
	for i := range s.entries {
		lost.count(&s.entries[i])
	}
	return lost
}

// PutResponse stores a Responses API answer, evicting the oldest beyond
// the cap.
func (s *Session) PutResponse(r *StoredResponse) { s.PutResponses(r) }

// PutResponses stores several answers (a response and its output items)
// under one lock and one charge to the store's budget.
func (s *Session) PutResponses(rs ...*StoredResponse) {
	if len(rs) == 0 {
		return
	}
	var one [4]journalRef
	refs := one[:0]
	s.mu.Lock()
	if s.responses == nil {
		s.responses = map[string]*StoredResponse{}
	}
	for _, r := range rs {
		r.size = r.cost()
		if old, ok := s.responses[r.ID]; ok {
			old.gone.Store(true)
			s.uncharge(old.size, 1)
		} else {
			s.respOrder = append(s.respOrder, r.ID)
		}
		s.responses[r.ID] = r
		refs = append(refs, journalRef{s: s, resp: r, size: r.size})
	}
	for max := s.limits.StoredResponses; max > 0 && len(s.respOrder) > max; {
		s.deleteResponseLocked(s.respOrder[0])
	}
	s.mu.Unlock()
	if s.store != nil {
		s.store.charge(refs...)
	}
}

// DeleteResponse forgets a stored Responses API answer.
func (s *Session) DeleteResponse(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteResponseLocked(id)
}

func (s *Session) deleteResponseLocked(id string) {
	r, ok := s.responses[id]
	if !ok {
		return
	}
	delete(s.responses, id)
	r.gone.Store(true)
	s.uncharge(r.size, 1)
	if len(s.respOrder) > 0 && s.respOrder[0] == id {
		// The usual case, the oldest evicted for a new one: dropping the
		// head is O(1), where shifting the whole order showed in every
		// Responses request once the store was full. append reallocates
		// (copying only the live ids) when the tail is full.
		s.respOrder[0] = ""
		s.respOrder = s.respOrder[1:]
		return
	}
	for i, x := range s.respOrder {
		if x == id {
			s.respOrder = append(s.respOrder[:i], s.respOrder[i+1:]...)
			break
		}
	}
}

// Response looks up a stored Responses API answer.
func (s *Session) Response(id string) (*StoredResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.responses[id]
	return r, ok
}

// NoteReasoning remembers that the mock emitted reasoning item rsID right
// before function_call item fcID.
func (s *Session) NoteReasoning(fcID, rsID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reasoning == nil {
		s.reasoning = map[string]string{}
	}
	if max := 4 * s.limits.StoredResponses; max > 0 && len(s.reasoning) >= max {
		// Forget the lot rather than track order: losing the pairing only
		// makes the rule lenient for very old items.
		s.reasoning = map[string]string{}
	}
	s.reasoning[fcID] = rsID
}

// IssuedReasoning returns the reasoning id emitted before fcID, if any.
func (s *Session) IssuedReasoning(fcID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reasoning[fcID]
}

// AddFault queues a fault for this session's next requests; beyond
// MaxQueuedFaults it refuses with ErrTooManyFaults.
func (s *Session) AddFault(f Fault) error {
	s.mu.Lock()
	if len(s.faults) >= MaxQueuedFaults {
		s.mu.Unlock()
		return ErrTooManyFaults
	}
	s.faults = append(s.faults, &f)
	s.chargeStateLocked(faultCost)
	s.mu.Unlock()
	s.settleBudget()
	return nil
}

// TakeFault returns the first pending fault, counting it down.
func (s *Session) TakeFault() *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Remaining == 0 {
			continue
		}
		if f.Remaining > 0 {
			f.Remaining--
		}
		out := *f
		if f.Remaining == 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			s.chargeStateLocked(-faultCost)
		}
		return &out
	}
	return nil
}

// Count bumps and returns a named counter (e.g. how many requests a
// header-driven fault has already failed). A session keeps at most
// MaxCounters; a new name beyond that forgets them all (old counts start
// again from zero), and a name longer than MaxCounterName is kept as its
// hash, so a client minting names cannot grow the session.
func (s *Session) Count(name string) int {
	name = counterKey(name)
	s.mu.Lock()
	if s.counters == nil {
		s.counters = map[string]int{}
	}
	n, ok := s.counters[name]
	added := false
	if !ok {
		if len(s.counters) >= MaxCounters {
			s.chargeStateLocked(-s.countersCostLocked())
			clear(s.counters)
		}
		s.chargeStateLocked(int64(counterCost + len(name)))
		added = true
	}
	n++
	s.counters[name] = n
	s.mu.Unlock()
	if added {
		s.settleBudget()
	}
	return n
}

// Counted reports whether a named counter exists (was bumped and not
// forgotten since), without bumping or creating it: a lookup that must not
// itself make the name look seen.
func (s *Session) Counted(name string) bool {
	name = counterKey(name)
	s.mu.Lock()
	_, ok := s.counters[name]
	s.mu.Unlock()
	return ok
}

// counterKey is the name a counter is kept under: a name longer than
// MaxCounterName becomes its hash.
func counterKey(name string) string {
	if len(name) > MaxCounterName {
		sum := sha256.Sum256([]byte(name))
		name = name[:MaxCounterName-34] + "#" + hex.EncodeToString(sum[:16])
	}
	return name
}

func (s *Session) countersCostLocked() int64 {
	var n int64
	for k := range s.counters {
		n += int64(counterCost + len(k))
	}
	return n
}

// Reset clears everything but the key.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
	s.chargeStateLocked(-(s.countersCostLocked() + int64(len(s.faults))*faultCost + int64(len(s.scenario))))
	s.scenario, s.dropped, s.seq = "", Dropped{}, 0
	s.reasoning, s.faults, s.counters = nil, nil, nil
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

// journalRef names one budgeted item: a journal entry (seq) or a stored
// response (resp).
type journalRef struct {
	s *Session
	// A journal entry: its seq in the session's generation gen.
	seq int
	gen int64
	// Or a stored response.
	resp *StoredResponse
	size int64
}

// charge accounts for a new journal entry or stored response and drops
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

// dropOldestItemsLocked forgets the oldest journal entries and stored
// responses of any session while the store is over budget.
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

package session

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Entry is one journaled exchange. The journal lists entries in the order
// their requests arrived (Time; Record's own time when unset), not the
// order they were recorded: a client that stops reading at a stream's last
// event sends its next request while the previous one may still be
// journaling.
type Entry struct {
	Seq          int                `json:"seq"`
	Time         time.Time          `json:"time"` // when the request arrived (see Entry)
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
	// quoteRequest and quoteResponse mark a body held as the bytes the
	// journal gives as a JSON string (a clipped body, or one that is not
	// JSON). Quoting waits for Journal(): a long conversation's clipped
	// body costs more to quote than the rest of its request, and entries
	// are recorded far more often than read.
	quoteRequest, quoteResponse bool
	size                        int64 // bytes charged to the store's journal budget
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
	if e.quoteRequest {
		out.Request = quote(e.Request)
	}
	if e.quoteResponse {
		out.Response = quote(e.Response)
	}
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

// cost estimates what a kept entry holds in memory; m measures the
// conversation (see conv.Measure).
func (e *Entry) cost(m *conv.Measure) int64 {
	n := len(e.Request) + len(e.Response) + m.Size(e.Conversation) + len(e.flatEvents) + 512
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

// Record appends a journal entry, trimming bodies and old entries, and
// charges it to the store's journal budget.
func (s *Session) Record(e Entry) int {
	s.mu.Lock()
	s.seq++
	e.Seq = s.seq
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	e.Request, e.quoteRequest, e.Truncated = keepBody(e.Request, e.RequestRaw, s.limits.JournalBodyMax, e.Truncated)
	e.Response, e.quoteResponse, e.Truncated = keepBody(e.Response, e.ResponseRaw, s.limits.JournalBodyMax, e.Truncated)
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
	e.size = e.cost(&s.measure)
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

// noteKeptLocked publishes the oldest kept entry's seq for holds.
func (s *Session) noteKeptLocked() {
	first := int64(s.seq) + 1
	if len(s.entries) > 0 {
		first = int64(s.entries[0].Seq)
	}
	s.firstKept.Store(first)
}

// releaseLocked drops every entry and kept item (the session is
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
	for _, t := range s.kept {
		t.releaseLocked(s)
	}
}

// validUTF8 replaces invalid UTF-8 in a kept body with U+FFFD: the
// journal API must answer valid JSON, and JSON is UTF-8. Callers journal
// only syntactically valid JSON, where such bytes can only sit inside

func validUTF8(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
}

// keepBody is what the journal keeps of a body: JSON as it is, or the
// bytes to give as a JSON string (quoted), clipped to max: bytes that are
// not JSON, or JSON over max, which ends with "…" to say so.
func keepBody(body json.RawMessage, raw bool, max int, truncated bool) (kept json.RawMessage, quoted, stillTruncated bool) {
	if !raw || len(body) == 0 {
		if max <= 0 || len(body) <= max {
			return validUTF8(body), false, truncated
		}
		// Quoting makes the clipped bytes valid UTF-8 (a cut rune too).
		// Join copies the clip into an array of its own without first
		// zeroing it.
		return bytes.Join([][]byte{body[:max], []byte("…")}, nil), true, true
	}
	if max > 0 && len(body) > max {
		body, truncated = body[:max], true
	}
	return bytes.Clone(body), true, truncated
}

// quote is b as a JSON string; invalid UTF-8 becomes U+FFFD.
func quote(b []byte) json.RawMessage {
	out, _ := jsontext.AppendQuote(make([]byte, 0, len(b)+len(b)/8+2), b)
	return out
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
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].Time.Before(kept[j].Time) })
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

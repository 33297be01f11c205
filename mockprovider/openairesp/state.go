package openairesp

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/session"
)

// What the Responses API keeps per session, in slots of the session the
// dialect declares: its stored responses (charged to the store's byte
// budget, at most Limits.StoredResponses per session) and which reasoning
// item the mock emitted before each function call.

// StoredResponse is a Responses answer kept for previous_response_id and
// GET /v1/responses/{id}, or one output item kept under its itemKey.
type StoredResponse struct {
	ID   string
	Body json.RawMessage // the response object as sent
	// The effective conversation up to and including this response's
	// output, as native input items (Items): the first ones as a
	// continuation reads them (storedItem of each), those at hand read
	// when the response was stored, shared read only by the requests
	// that continue it; the others as bytes.
	read []*Item
	rest []json.RawMessage
}

// Items are the stored items' bytes, in order.
func (r *StoredResponse) Items() []json.RawMessage {
	if len(r.read) == 0 {
		return r.rest
	}
	out := make([]json.RawMessage, 0, len(r.read)+len(r.rest))
	for _, it := range r.read {
		out = append(out, json.RawMessage(it.Raw))
	}
	return append(out, r.rest...)
}

func (r *StoredResponse) cost() int64 {
	n := int64(len(r.Body) + 256)
	for _, it := range r.read {
		n += int64(len(it.Raw) + 24)
	}
	for _, it := range r.rest {
		n += int64(len(it) + 24)
	}
	return n
}

var storedResponses = session.NewKept(func(l session.Limits) int { return l.StoredResponses }, (*StoredResponse).cost)

// putResponses stores answers (a response and its output items) under
// one lock and one charge to the store's budget, evicting the oldest
// beyond the cap.
func putResponses(s *session.Session, rs ...*StoredResponse) {
	items := make([]session.KeptItem[*StoredResponse], len(rs))
	for i, r := range rs {
		items[i] = session.KeptItem[*StoredResponse]{ID: r.ID, Value: r}
	}
	storedResponses.Put(s, items...)
}

// storedResponse looks up a stored answer or output item.
func storedResponse(s *session.Session, id string) (*StoredResponse, bool) {
	return storedResponses.Get(s, id)
}

// reasoningPairs maps a function_call item id to the reasoning item id
// the mock emitted right before it.
type reasoningPairs struct {
	byCall map[string]string
	max    int
}

var issuedReasoning = session.NewSlot(func(l session.Limits) *reasoningPairs {
	return &reasoningPairs{byCall: map[string]string{}, max: 4 * l.StoredResponses}
})

// noteReasoning remembers that the mock emitted reasoning item rsID right
// before function_call item fcID.
func noteReasoning(s *session.Session, fcID, rsID string) {
	issuedReasoning.Update(s, func(p *reasoningPairs) {
		if p.max > 0 && len(p.byCall) >= p.max {
			// Forget the lot rather than track order: losing the pairing
			// only makes the rule lenient for very old items.
			p.byCall = map[string]string{}
		}
		p.byCall[fcID] = rsID
	})
}

// IssuedReasoning returns what rules.Env.IssuedReasoning reads for a
// session: the reasoning item id the mock emitted before a function_call
// item, if any.
func IssuedReasoning(s *session.Session) func(fcID string) string {
	return func(fcID string) string {
		rs := ""
		issuedReasoning.Read(s, func(p *reasoningPairs) { rs = p.byCall[fcID] })
		return rs
	}
}

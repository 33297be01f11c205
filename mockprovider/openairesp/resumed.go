package openairesp

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// inputKept declares what sessions keep of their last request's input:
// each item as read from the wire, before references and compactions are
// resolved against the session's store. Shared read only by the
// requests that resend it.
var inputKept = resume.New[Item]("input")

// decodeInSession decodes a create body, reusing the input items the
// session's last one shares with it byte for byte.
func decodeInSession(x *dialect.Exchange, body []byte) (*Request, *wire.APIError) {
	var s *session.Session
	if x != nil {
		s = x.Session
	}
	lenient := x != nil && x.Env != nil && x.Env.Options.Lenient
	// Lenient decoding collects unknown members from the whole body; the
	// other endpoints' bodies are judged by their own types first.
	if s == nil || lenient || endpointOf(x) != Path {
		return decodeRequest(x, body)
	}
	return resume.Decode(inputKept, s, body, func(plan resume.Plan[Item]) (*Request, []Item, any, *wire.APIError) {
		req, fresh, err := decodePlanned(x, plan)
		if err != nil || len(req.Unknown) > 0 {
			return req, nil, nil, err
		}
		return req, fresh, req.outside(), nil
	})
}

// takeItems moves the input list to Items: the reused items, then those
// decoded now at the indexes after them; it returns the new ones, to be
// kept when keep (the session's next request then shares them).
func (r *Request) takeItems(reused []*Item, keep bool) (fresh []Item) {
	ws := r.W.Input.OfInputItemList
	r.W.Input.OfInputItemList = nil
	r.InputList = true
	fresh = make([]Item, len(ws))
	var readBack []Item
	if keep {
		// Only a long conversation is worth keeping read for a
		// continuation: a short one is read again in no time.
		readBack = make([]Item, len(ws))
	}
	r.Items = make([]*Item, 0, len(reused)+len(ws))
	r.Items = append(r.Items, reused...)
	for j := range ws {
		it := &fresh[j]
		*it = itemOf(&ws[j], len(reused)+j)
		// What it says in the conversation is made once for every request
		// that resends it; a result is named after the call before it
		// as sent, which the conversation checks.
		name := ""
		if it.Type == "function_call_output" {
			name, _ = nameNearby(r.Items, len(r.Items), str(it.CallID))
		}
		it.said = saidBy(it, name)
		if keep && len(it.Raw) > 0 {
			// What storedItem makes of the item's bytes: the item read as
			// one of no request's input.
			readBack[j] = *it
			readBack[j].Index = -1
			it.readBack = &readBack[j]
		}
		r.Items = append(r.Items, it)
		takeFacts(r.Items, len(r.Items)-1)
	}
	if len(r.Items) > 0 {
		r.taken = r.Items[len(r.Items)-1].facts
	}
	if r.taken&factAdditionalTools != 0 || !r.factsKnown() {
		for _, it := range r.Items {
			if it.AdditionalTools != nil {
				r.additionalTools = append(r.additionalTools, it.AdditionalTools)
			}
		}
	}
	if !keep {
		return nil
	}
	return fresh
}

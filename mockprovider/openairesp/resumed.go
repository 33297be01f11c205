package openairesp

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// keptItem is what a session keeps of one input item of its last request
// (package resume): the wire item (the checks read the list) and the
// item read from it, before references and compactions are resolved
// against the session's store. Shared read only by the requests that
// resend it.
type keptItem struct {
	wire ResponseInputItemUnionParam
	item Item
}

// inputKept declares what sessions keep of their last request's input.
var inputKept = resume.New[keptItem]("input")

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
	return resume.Decode(inputKept, s, body, func(plan resume.Plan[keptItem]) (*Request, []keptItem, *wire.APIError) {
		req, fresh, err := decodePlanned(x, plan)
		if err == nil && len(req.Unknown) > 0 {
			fresh = nil
		}
		return req, fresh, err
	})
}

// takeItems sets the input list to the reused items and those decoded
// now, at the indexes after them, and returns what to keep of the new
// ones (their own copies: resolving references rewrites r.Items); nil
// unless keep.
func (r *Request) takeItems(reused []*keptItem, keep bool) (fresh []keptItem) {
	ws := r.W.Input.OfInputItemList
	if len(reused) > 0 {
		all := make([]ResponseInputItemUnionParam, 0, len(reused)+len(ws))
		for i := range reused {
			all = append(all, reused[i].wire)
		}
		r.W.Input.OfInputItemList = append(all, ws...)
	}
	r.Items = make([]Item, len(reused)+len(ws))
	for i := range reused {
		r.Items[i] = reused[i].item
	}
	if keep {
		fresh = make([]keptItem, len(ws))
	}
	for j := range ws {
		i := len(reused) + j
		r.Items[i] = itemOf(&ws[j], i)
		if !keep {
			continue // a call's arguments are parsed when the conversation is built
		}
		if r.Items[i].Type == "function_call" {
			r.Items[i].parsedArgs = callArguments(r.Items[i].Arguments)
		}
		fresh[j] = keptItem{wire: ws[j], item: r.Items[i]}
	}
	return fresh
}

// callArguments are the call's arguments for the conversation: those
// parsed when the item was first decoded (shared: a conversation is read
// only, see conv.Conversation), or else parsed now.
func (it *Item) callArguments() map[string]any {
	if it.parsedArgs == nil {
		return callArguments(it.Arguments)
	}
	return it.parsedArgs
}

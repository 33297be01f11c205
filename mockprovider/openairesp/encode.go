package openairesp

import (
	"github.com/go-json-experiment/json/jsontext"

	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// planned is one output item before it is rendered, complete or in
// progress.
type planned struct {
	kind string // "reasoning", "message", "function_call"
	id   string
	// reasoning
	summary   string
	encrypted string
	// message
	text    string
	refusal bool
	phase   string
	// function_call
	callID, name, args string
	// incomplete marks the item the token limit cut: its status is
	// "incomplete", and so is the response's.
	incomplete bool
}

// finalStatus is the response's status once its items are written:
// "incomplete" when the token limit cut one.
func finalStatus(items []planned) string {
	if n := len(items); n > 0 && items[n-1].incomplete {
		return "incomplete"
	}
	return "completed"
}

// plan turns the model's reply into output items with minted ids:
// reasoning, then text, then calls, then refusal, as the model orders them.
// The items share one array (one allocation instead of one per item).
func plan(x *dialect.Exchange, req *Request, reply *model.Reply) []planned {
	ids := x.IDs()
	encrypted := slices.Contains(req.Include, "reasoning.encrypted_content")
	onlyOne := req.ParallelToolCalls != nil && !*req.ParallelToolCalls
	hasCalls := len(reply.Calls()) > 0
	out := make([]planned, 0, len(reply.Turn.Parts))
	calls := 0
	for _, p := range reply.Turn.Parts {
		switch p.Kind {
		case conv.KindReasoning:
			it := planned{kind: "reasoning", id: ids.Next("rs_", 48)}
			if p.Reasoning != nil {
				it.summary = p.Reasoning.Summary
				if p.Reasoning.ID != "" {
					it.id = p.Reasoning.ID
				}
			}
			if encrypted {
				it.encrypted = sealReasoning(it.id, it.summary, time.Now().Unix())
			}
			out = append(out, it)
		case conv.KindText, conv.KindRefusal:
			phase := "final_answer"
			if hasCalls {
				phase = "commentary"
			}
			out = append(out, planned{kind: "message", id: ids.Next("msg_", 48), text: p.Text, refusal: p.Kind == conv.KindRefusal, phase: phase})
		case conv.KindCall:
			if p.Call == nil || (onlyOne && calls > 0) {
				continue
			}
			calls++
			callID := p.Call.ID
			if callID == "" {
				callID = ids.Next("call_", 24)
			}
			// ArgumentsJSON keeps scripted malformed arguments as written.
			args := reply.ArgumentsJSON(calls - 1)
			itemID := p.Call.ItemID
			if itemID == "" {
				itemID = ids.Next("fc_", 48)
			}
			out = append(out, planned{kind: "function_call", id: itemID, callID: callID, name: p.Call.Name, args: string(args)})
		}
	}
	// The token limit cut the last thing generated (text or a call's
	// arguments); nothing follows it.
	if n := len(out); n > 0 && reply.Stop == model.StopTokens && out[n-1].kind != "reasoning" {
		out[n-1].incomplete = true
	}
	return out
}

// usageFor gives deterministic token counts: about four bytes a token,
// and a fixed budget per reasoning item.
func usageFor(req *Request, items []planned) usage {
	in := 0
	for _, it := range req.Effective() {
		in += len(it.Raw)
	}
	for _, t := range req.Tools {
		in += len(t.Parameters) + len(str(t.Name)) + len(str(t.Description))
	}
	in = max(1, in/openaiwire.CharsPerToken)
	out, reasoning := 0, 0
	for _, it := range items {
		switch it.kind {
		case "reasoning":
			reasoning += 64
		case "message":
			out += max(1, len(it.text)/4)
		case "function_call":
			out += max(1, (len(it.args)+len(it.name))/4)
		}
	}
	return usage{input: in, cached: min(req.cachedTokens, in), output: out + reasoning, reasoning: reasoning}
}

// promptText is the prompt as the model reads it, in the order the usage
// estimate counts it (tools, then every effective item as sent), in
// pieces: its prefixes are what the prompt cache matches, and a session
// that resends the items it keeps hashes only what is new
// (openaiwire.CachedTokens).
func promptText(req *Request) [][]byte {
	items := req.Effective()
	n := 0
	for _, t := range req.Tools {
		n += len(str(t.Name)) + len(str(t.Description)) + len(t.Parameters)
	}
	tools := make([]byte, 0, n)
	for _, t := range req.Tools {
		tools = append(append(append(tools, str(t.Name)...), str(t.Description)...), t.Parameters...)
	}
	pieces := make([][]byte, 0, 1+len(items))
	pieces = append(pieces, tools)
	for _, it := range items {
		if len(it.Raw) > 0 {
			pieces = append(pieces, it.Raw)
		}
	}
	return pieces
}

// Encode answers with a Response object or its event stream. The
// response is stored (unless store:false) and the reasoning pairing noted
// before the answer is written, so a client that continues at once finds
// them.
func (d *Dialect) Encode(x *dialect.Exchange, reqAny any, c *conv.Conversation, reply *model.Reply) {
	req := reqAny.(*Request)
	if req.Endpoint == InputTokensPath {
		x.JSON(http.StatusOK, object{{"object", "response.input_tokens"}, {"input_tokens", usageFor(req, nil).input}})
		return
	}
	if req.Endpoint == CompactPath {
		d.compact(x, req)
		return
	}
	items := plan(x, req, reply)
	if usageFor(req, nil).input >= openaiwire.CacheMinTokens {
		req.cachedTokens = openaiwire.CachedTokens(x.Session, "openai-responses", req.Model, promptText(req))
	}
	id := x.IDs().Next("resp_", 48)
	created := time.Now().Unix()
	done := completedResponse(x.Session, req, id, created, items)
	if !c.Stream {
		d.remember(x, req, id, done, items)
		x.JSON(http.StatusOK, json.RawMessage(done.body))
		return
	}
	d.stream(x, req, id, created, items, done)
}

// completedResponse renders the final Response object (completed, or
// incomplete when the token limit cut it).
func completedResponse(s *session.Session, req *Request, id string, created int64, items []planned) rendered {
	r := rendered{items: make([]json.RawMessage, len(items)), tools: toolsEcho(s, req)}
	output := make([]jsontext.Value, len(items))
	for i := range items {
		r.items[i] = marshal(outputItem(&items[i], true))
		output[i] = jsontext.Value(r.items[i])
	}
	u := usageFor(req, items)
	r.body = marshal(responseOf(req, id, created, output, form{status: finalStatus(items), usage: &u, tools: r.tools}))
	return r
}

// rendered is a completed Response object and each of its output items,
// encoded as the response holds them.
type rendered struct {
	body  []byte
	items []json.RawMessage
	tools []any // the request's tools as echoed
}

// item is output item i as the response holds it.
func (r rendered) item(i int) json.RawMessage { return r.items[i] }

// remember notes which reasoning item preceded each call and stores the
// response with its effective items (prior, input, output) for
// previous_response_id and GET.
func (d *Dialect) remember(x *dialect.Exchange, req *Request, id string, done rendered, items []planned) {
	if x.Session == nil {
		return
	}
	lastReasoning := ""
	for _, it := range items {
		switch it.kind {
		case "reasoning":
			lastReasoning = it.id
		case "function_call":
			if lastReasoning != "" {
				noteReasoning(x.Session, it.id, lastReasoning)
			}
		}
	}
	stored := req.Store == nil || *req.Store
	socket := socketCacheOf(x)
	// The response itself is kept in the session, or on the socket only.
	keep := stored || socket != nil
	// The effective items are kept as a continuation reads them as far as
	// they are at hand read (shared); the others, the output at least, as
	// bytes.
	var in, read []*Item
	if keep {
		in = req.Effective()
		for _, it := range in {
			back, ok := it.readBackItem()
			if !ok {
				break
			}
			if read == nil {
				read = make([]*Item, 0, len(in))
			}
			read = append(read, back)
		}
	}
	n := len(items)
	// The entries, the pointers handed over, all their item lists and all
	// their keys take one allocation each, whatever the number of items.
	entries := make([]StoredResponse, n, n+1)
	handed := make([]*StoredResponse, n, n+1)
	var raws []json.RawMessage
	if need := outputRaws(stored, keep, n) + len(in) - len(read); need > 0 {
		raws = make([]json.RawMessage, 0, need)
	}
	keys := itemKeys(items)
	for i := range items {
		e := &entries[i]
		e.ID, keys = keys[:len(itemKeyPrefix)+len(items[i].id)], keys[len(itemKeyPrefix)+len(items[i].id):]
		if stored {
			raws = append(raws, done.item(i))
			e.rest = raws[len(raws)-1 : len(raws) : len(raws)]
		}
		handed[i] = e
	}
	if !keep {
		putResponses(x.Session, handed...)
		return
	}
	start := len(raws)
	for _, it := range in[len(read):] {
		raws = append(raws, json.RawMessage(it.Raw))
	}
	for i := range items {
		raws = append(raws, done.item(i))
	}
	var rest []json.RawMessage
	if len(raws) > start {
		rest = raws[start:len(raws):len(raws)]
	}
	entries = append(entries, StoredResponse{ID: id, Body: done.body, read: read, rest: rest})
	e := &entries[n] // within capacity: the items' entries stay where handed points
	if !stored {
		putResponses(x.Session, handed...)
		socket.put(e) // continued on this socket only
		return
	}
	// One lock and one charge to the budget for the response and its items.
	putResponses(x.Session, append(handed, e)...)
}

// outputRaws counts the item lists' slots for the output items: one per
// item for its own entry when stored, and one per item in the response's
// effective items when the response is kept.
func outputRaws(stored, keep bool, n int) int {
	k := 0
	if stored {
		k += n
	}
	if keep {
		k += n
	}
	return k
}

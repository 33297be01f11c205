package openairesp

import (
	"encoding/json"
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// streamState is what an injected in-stream error needs to report the
// failed response.
type streamState struct {
	req     *Request
	id      string
	created int64
}

// stream writes the event sequence of https://platform.openai.com/docs/api-reference/responses-streaming: every event
// named, typed and numbered, deltas cut at the configured fragment size.
func (d *Dialect) stream(x *dialect.Exchange, req *Request, id string, created int64, items []planned, done rendered) {
	s := x.SSE("")
	d.streamsMu.Lock()
	if d.streams == nil {
		d.streams = map[*wire.SSE]streamState{}
	}
	d.streams[s] = streamState{req: req, id: id, created: created}
	d.streamsMu.Unlock()
	defer func() {
		d.streamsMu.Lock()
		delete(d.streams, s)
		d.streamsMu.Unlock()
	}()
	_ = writeEvents(s, req, id, created, items, done, x.Stream.FragmentSize, func() { d.remember(x, req, id, done, items) })
}

// events writes one stream's events as bytes. Each event used to be a tree
// handed to wire.SSE.Event, which json.Marshal()s it: encoding/json then
// validated and compacted every event again (about a tenth of a loaded
// server's time). Here each event is written directly, already in
// json.Marshal's form: strings by appendString (HTML-safe quoting), no
// whitespace, and the only parts that may hold whitespace or HTML
// characters, the request fragments inside the Response objects, are
// compacted as they are copied in (form.compact). FuzzStreamEquivalence holds the
// stream to the tree encoder through json.Marshal.
type events struct {
	s *wire.SSE
	// buf is reused for every event: SSE.Event writes the bytes and hands
	// them to the transcript, which copies them, and keeps nothing.
	buf []byte
	// itemAt is at(…) of the item being streamed.
	itemAt []byte
}

// begin starts an event: {"type":"<typ>".
func (e *events) begin(typ string) []byte {
	b := append(e.buf[:0], `{"type":`...)
	return wirejson.AppendString(b, typ)
}

// send ends the event with its sequence number (the count already
// written, which is also how StreamError numbers an injected error) and
// writes it.
func (e *events) send(typ string, b []byte) error {
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(e.s.Sent()), 10)
	b = append(b, '}')
	e.buf = b
	return e.s.EventBytes(typ, b)
}

// at appends the "item_id" and "output_index" members most events carry.
func at(b []byte, id string, index int) []byte {
	b = append(b, `,"item_id":`...)
	b = wirejson.AppendString(b, id)
	b = append(b, `,"output_index":`...)
	return strconv.AppendInt(b, int64(index), 10)
}

// at appends the current item's "item_id" and "output_index", written
// once per item (every delta event of the item repeats them).
func (e *events) at(b []byte) []byte { return append(b, e.itemAt...) }

// writeEvents writes the stream of a response; done, its completed form
// as stored, sizes the event buffer (the last event, the longest, holds
// about as much). beforeCompleted runs just before the last
// event (the response is stored by then).
func writeEvents(s *wire.SSE, req *Request, id string, created int64, items []planned, done rendered, size int, beforeCompleted func()) error {
	// One allocation for the event buffer and, capped apart after it, the
	// current item's at(…) (an append beyond either cap moves it out).
	n := len(done.body) + 256
	both := make([]byte, 0, n+128)
	e := &events{s: s, buf: both[:0:n], itemAt: both[n : n : n+128]}
	// response.created and response.in_progress carry the same object:
	// rendered once, then moved over in the buffer for the second event.
	b := append(e.begin("response.created"), `,"response":`...)
	start := len(b)
	b = appendResponse(b, req, id, created, items, form{status: "in_progress", compact: true})
	object := b[start:]
	if err := e.send("response.created", b); err != nil {
		return err
	}
	// The first event is sent (the writer keeps no reference to it), so
	// its buffer takes the second, the object moved along.
	const second = `{"type":"response.in_progress","response":`
	b = e.buf[:0]
	if need := len(second) + len(object); cap(b) >= need {
		b = b[:need]
		copy(b[len(second):], object) // overlapping: copy moves
	} else {
		b = append(make([]byte, len(second), need+64), object...)
	}
	copy(b, second)
	if err := e.send("response.in_progress", b); err != nil {
		return err
	}
	for i := range items {
		if err := e.item(i, &items[i], size); err != nil {
			return err
		}
	}
	beforeCompleted()
	// The completed response in its compact form: done's bytes when the
	// request's fragments hold nothing to compact, else rendered again
	// (which costs less than compacting all of done.body).
	// It ends with response.incomplete instead when the token limit cut it.
	status := finalStatus(items)
	end := "response." + status
	b = append(e.begin(end), `,"response":`...)
	if req.fragmentsCompact() {
		b = append(b, done.body...)
	} else {
		u := usageFor(req, items)
		b = appendResponse(b, req, id, created, items, form{status: status, usage: &u, compact: true})
	}
	return e.send(end, b)
}

func (e *events) item(index int, it *planned, size int) error {
	e.itemAt = at(e.itemAt[:0], it.id, index)
	b := append(e.begin("response.output_item.added"), `,"item":`...)
	b = appendItem(b, it, false)
	b = append(b, `,"output_index":`...)
	if err := e.send("response.output_item.added", strconv.AppendInt(b, int64(index), 10)); err != nil {
		return err
	}
	var err error
	switch it.kind {
	case "reasoning":
		err = e.summary(index, it, size)
	case "message":
		err = e.text(index, it, size)
	case "function_call":
		err = e.arguments(index, it, size)
	}
	if err != nil {
		return err
	}
	b = append(e.begin("response.output_item.done"), `,"item":`...)
	b = appendItem(b, it, true)
	b = append(b, `,"output_index":`...)
	return e.send("response.output_item.done", strconv.AppendInt(b, int64(index), 10))
}

func (e *events) arguments(index int, it *planned, size int) error {
	const delta = "response.function_call_arguments.delta"
	for rest := it.args; rest != ""; {
		var frag string
		frag, rest = wire.NextFragment(rest, size)
		b := append(e.begin(delta), `,"delta":`...)
		b = wirejson.AppendString(b, frag)
		if err := e.send(delta, e.at(b)); err != nil {
			return err
		}
	}
	const doneEv = "response.function_call_arguments.done"
	b := append(e.begin(doneEv), `,"arguments":`...)
	b = wirejson.AppendString(b, it.args)
	return e.send(doneEv, e.at(b))
}

// summary streams a reasoning summary; an empty summary has no events
// between added and done, as recorded.
func (e *events) summary(index int, it *planned, size int) error {
	if it.summary == "" {
		return nil
	}
	const partAdded = "response.reasoning_summary_part.added"
	b := e.at(e.begin(partAdded))
	b = append(b, `,"part":`...)
	b = appendSummaryPart(b, "")
	if err := e.send(partAdded, append(b, `,"summary_index":0`...)); err != nil {
		return err
	}
	const delta = "response.reasoning_summary_text.delta"
	for rest := it.summary; rest != ""; {
		var frag string
		frag, rest = wire.NextFragment(rest, size)
		b := append(e.at(e.begin(delta)), `,"delta":`...)
		b = wirejson.AppendString(b, frag)
		if err := e.send(delta, append(b, `,"summary_index":0`...)); err != nil {
			return err
		}
	}
	const textDone = "response.reasoning_summary_text.done"
	b = append(e.at(e.begin(textDone)), `,"summary_index":0,"text":`...)
	if err := e.send(textDone, wirejson.AppendString(b, it.summary)); err != nil {
		return err
	}
	const partDone = "response.reasoning_summary_part.done"
	b = append(e.at(e.begin(partDone)), `,"part":`...)
	b = appendSummaryPart(b, it.summary)
	return e.send(partDone, append(b, `,"summary_index":0`...))
}

func (e *events) text(index int, it *planned, size int) error {
	// contentAt appends "content_index", "item_id" and "output_index".
	contentAt := func(b []byte) []byte { return e.at(append(b, `,"content_index":0`...)) }
	const partAdded = "response.content_part.added"
	b := append(contentAt(e.begin(partAdded)), `,"part":`...)
	if err := e.send(partAdded, appendPart(b, it, "")); err != nil {
		return err
	}
	delta, doneEv, field := "response.output_text.delta", "response.output_text.done", `,"text":`
	if it.refusal {
		delta, doneEv, field = "response.refusal.delta", "response.refusal.done", `,"refusal":`
	}
	for rest := it.text; rest != ""; {
		var frag string
		frag, rest = wire.NextFragment(rest, size)
		b := append(contentAt(e.begin(delta)), `,"delta":`...)
		b = wirejson.AppendString(b, frag)
		if !it.refusal {
			b = append(b, `,"logprobs":[]`...)
		}
		if err := e.send(delta, b); err != nil {
			return err
		}
	}
	b = contentAt(e.begin(doneEv))
	if !it.refusal {
		b = append(b, `,"logprobs":[]`...)
	}
	b = append(b, field...)
	if err := e.send(doneEv, wirejson.AppendString(b, it.text)); err != nil {
		return err
	}
	const partDone = "response.content_part.done"
	b = append(contentAt(e.begin(partDone)), `,"part":`...)
	return e.send(partDone, appendPart(b, it, it.text))
}

// StreamError writes the Responses in-stream failure: an `error` event
// with the error nested under "error" (as observed on the wire,
// openai/openai-dotnet#881; the Go SDK surfaces it as a stream error),
// then the terminal response.failed event carrying the failed response
// (vercel/ai#13480 describes the pair). It is rare (injected faults only),
// so its events still go through json.Marshal.
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	code := e.Code
	if code == nil {
		code = e.Type
	}
	errBody := object{{"type", e.Type}, {"code", code}, {"message", e.Message}, {"param", e.Param}}
	if s.Event("error", object{{"type", "error"}, {"sequence_number", s.Sent()}, {"error", errBody}}) != nil {
		return
	}
	d.streamsMu.Lock()
	st, ok := d.streams[s]
	d.streamsMu.Unlock()
	if !ok {
		return
	}
	errJSON, err := object{{"code", code}, {"message", e.Message}}.MarshalJSON()
	if err != nil {
		return // as before: the event would have failed to marshal
	}
	failed := appendResponse(nil, st.req, st.id, st.created, nil, form{status: "failed", errJSON: errJSON})
	_ = s.Event("response.failed", object{{"type", "response.failed"}, {"response", json.RawMessage(failed)}, {"sequence_number", s.Sent()}})
}

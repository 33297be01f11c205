package openairesp

import (
	"github.com/go-json-experiment/json/jsontext"

	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
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

// The events, members in the API's order; every one ends with its
// sequence number (the count already written, which is also how
// StreamError numbers an injected error).
type (
	responseEvent struct {
		Type     string `json:"type"`
		Response any    `json:"response"`
		Seq      int    `json:"sequence_number"`
	}
	itemEvent struct {
		Type        string `json:"type"`
		Item        any    `json:"item"`
		OutputIndex int    `json:"output_index"`
		Seq         int    `json:"sequence_number"`
	}
	argumentsDelta struct {
		Type        string `json:"type"`
		Delta       string `json:"delta"`
		ItemID      string `json:"item_id"`
		OutputIndex int    `json:"output_index"`
		Seq         int    `json:"sequence_number"`
	}
	argumentsDone struct {
		Type        string `json:"type"`
		Arguments   string `json:"arguments"`
		ItemID      string `json:"item_id"`
		OutputIndex int    `json:"output_index"`
		Seq         int    `json:"sequence_number"`
	}
	summaryPartEvent struct {
		Type         string      `json:"type"`
		ItemID       string      `json:"item_id"`
		OutputIndex  int         `json:"output_index"`
		Part         summaryPart `json:"part"`
		SummaryIndex int         `json:"summary_index"`
		Seq          int         `json:"sequence_number"`
	}
	summaryDelta struct {
		Type         string `json:"type"`
		ItemID       string `json:"item_id"`
		OutputIndex  int    `json:"output_index"`
		Delta        string `json:"delta"`
		SummaryIndex int    `json:"summary_index"`
		Seq          int    `json:"sequence_number"`
	}
	summaryDone struct {
		Type         string `json:"type"`
		ItemID       string `json:"item_id"`
		OutputIndex  int    `json:"output_index"`
		SummaryIndex int    `json:"summary_index"`
		Text         string `json:"text"`
		Seq          int    `json:"sequence_number"`
	}
	contentPartEvent struct {
		Type         string `json:"type"`
		ContentIndex int    `json:"content_index"`
		ItemID       string `json:"item_id"`
		OutputIndex  int    `json:"output_index"`
		Part         any    `json:"part"`
		Seq          int    `json:"sequence_number"`
	}
	// textEvent is output_text's and refusal's delta and done: logprobs
	// only on text, the whole text or refusal only on done.
	textEvent struct {
		Type         string     `json:"type"`
		ContentIndex int        `json:"content_index"`
		ItemID       string     `json:"item_id"`
		OutputIndex  int        `json:"output_index"`
		Delta        *string    `json:"delta,omitzero"`
		Logprobs     []struct{} `json:"logprobs,omitzero"`
		Text         *string    `json:"text,omitzero"`
		Refusal      *string    `json:"refusal,omitzero"`
		Seq          int        `json:"sequence_number"`
	}
)

// events writes one stream's events.
type events struct{ s *wire.SSE }

// send writes an event of type typ; seq sets its sequence number.
func (e *events) send(typ string, event any, seq *int) error {
	*seq = e.s.Sent()
	return e.s.EventBytes(typ, marshal(event))
}

// writeEvents writes the stream of a response. beforeCompleted runs just
// before the last event (the response is stored by then).
func writeEvents(s *wire.SSE, req *Request, id string, created int64, items []planned, done rendered, size int, beforeCompleted func()) error {
	e := &events{s: s}
	inProgress := responseOf(req, id, created, nil, form{status: "in_progress", tools: done.tools})
	for _, typ := range []string{"response.created", "response.in_progress"} {
		ev := responseEvent{Type: typ, Response: inProgress}
		if err := e.send(typ, &ev, &ev.Seq); err != nil {
			return err
		}
	}
	for i := range items {
		if err := e.item(i, &items[i], size); err != nil {
			return err
		}
	}
	beforeCompleted()
	// The completed response as stored; it ends with response.incomplete
	// instead when the token limit cut it.
	end := "response." + finalStatus(items)
	ev := responseEvent{Type: end, Response: jsontext.Value(done.body)}
	return e.send(end, &ev, &ev.Seq)
}

func (e *events) item(index int, it *planned, size int) error {
	added := itemEvent{Type: "response.output_item.added", Item: outputItem(it, false), OutputIndex: index}
	if err := e.send(added.Type, &added, &added.Seq); err != nil {
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
	done := itemEvent{Type: "response.output_item.done", Item: outputItem(it, true), OutputIndex: index}
	return e.send(done.Type, &done, &done.Seq)
}

func (e *events) arguments(index int, it *planned, size int) error {
	for rest := it.args; rest != ""; {
		var frag string
		frag, rest = wire.NextFragment(rest, size)
		ev := argumentsDelta{Type: "response.function_call_arguments.delta", Delta: frag, ItemID: it.id, OutputIndex: index}
		if err := e.send(ev.Type, &ev, &ev.Seq); err != nil {
			return err
		}
	}
	ev := argumentsDone{Type: "response.function_call_arguments.done", Arguments: it.args, ItemID: it.id, OutputIndex: index}
	return e.send(ev.Type, &ev, &ev.Seq)
}

// summary streams a reasoning summary; an empty summary has no events
// between added and done, as recorded.
func (e *events) summary(index int, it *planned, size int) error {
	if it.summary == "" {
		return nil
	}
	added := summaryPartEvent{Type: "response.reasoning_summary_part.added", ItemID: it.id, OutputIndex: index, Part: summaryPart{Type: "summary_text"}}
	if err := e.send(added.Type, &added, &added.Seq); err != nil {
		return err
	}
	for rest := it.summary; rest != ""; {
		var frag string
		frag, rest = wire.NextFragment(rest, size)
		ev := summaryDelta{Type: "response.reasoning_summary_text.delta", ItemID: it.id, OutputIndex: index, Delta: frag}
		if err := e.send(ev.Type, &ev, &ev.Seq); err != nil {
			return err
		}
	}
	textDone := summaryDone{Type: "response.reasoning_summary_text.done", ItemID: it.id, OutputIndex: index, Text: it.summary}
	if err := e.send(textDone.Type, &textDone, &textDone.Seq); err != nil {
		return err
	}
	partDone := summaryPartEvent{Type: "response.reasoning_summary_part.done", ItemID: it.id, OutputIndex: index, Part: summaryPart{Type: "summary_text", Text: it.summary}}
	return e.send(partDone.Type, &partDone, &partDone.Seq)
}

func (e *events) text(index int, it *planned, size int) error {
	added := contentPartEvent{Type: "response.content_part.added", ItemID: it.id, OutputIndex: index, Part: partOf(it, "")}
	if err := e.send(added.Type, &added, &added.Seq); err != nil {
		return err
	}
	delta, doneEv := "response.output_text.delta", "response.output_text.done"
	var logprobs []struct{}
	if it.refusal {
		delta, doneEv = "response.refusal.delta", "response.refusal.done"
	} else {
		logprobs = []struct{}{}
	}
	for rest := it.text; rest != ""; {
		var frag string
		frag, rest = wire.NextFragment(rest, size)
		ev := textEvent{Type: delta, ItemID: it.id, OutputIndex: index, Delta: &frag, Logprobs: logprobs}
		if err := e.send(delta, &ev, &ev.Seq); err != nil {
			return err
		}
	}
	ev := textEvent{Type: doneEv, ItemID: it.id, OutputIndex: index, Logprobs: logprobs}
	text := it.text
	if it.refusal {
		ev.Refusal = &text
	} else {
		ev.Text = &text
	}
	if err := e.send(doneEv, &ev, &ev.Seq); err != nil {
		return err
	}
	partDone := contentPartEvent{Type: "response.content_part.done", ItemID: it.id, OutputIndex: index, Part: partOf(it, it.text)}
	return e.send(partDone.Type, &partDone, &partDone.Seq)
}

// StreamError writes the Responses in-stream failure: an `error` event
// with the error nested under "error" (as observed on the wire,
// openai/openai-dotnet#881; the Go SDK surfaces it as a stream error),
// then the terminal response.failed event carrying the failed response
// (vercel/ai#13480 describes the pair).
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
	failed := marshal(responseOf(st.req, st.id, st.created, nil, form{status: "failed", errJSON: errJSON}))
	_ = s.Event("response.failed", object{{"type", "response.failed"}, {"response", json.RawMessage(failed)}, {"sequence_number", s.Sent()}})
}

package openairesp

// The encoder as it was before the Response object and the stream events
// were written directly (render.go, stream.go): a tree of ordered
// key/value pairs, encoded by object.MarshalJSON, each stream event
// through json.Marshal. It is the reference the equivalence tests hold
// the direct writers to.

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

func refItem(p *planned, done bool) object {
	status := "completed"
	if !done {
		status = "in_progress"
	}
	switch p.kind {
	case "reasoning":
		o := object{{"id", p.id}, {"type", "reasoning"}}
		if p.encrypted != "" {
			o = append(o, kv{"encrypted_content", p.encrypted})
		}
		summary := []any{}
		if done && p.summary != "" {
			summary = append(summary, object{{"type", "summary_text"}, {"text", p.summary}})
		}
		return append(o, kv{"summary", summary})
	case "message":
		content := []any{}
		if done {
			content = append(content, refPart(p, p.text))
		}
		return object{{"id", p.id}, {"type", "message"}, {"status", status}, {"content", content}, {"phase", p.phase}, {"role", "assistant"}}
	}
	args := p.args
	if !done {
		args = ""
	}
	return object{{"id", p.id}, {"type", "function_call"}, {"status", status}, {"arguments", args}, {"call_id", p.callID}, {"name", p.name}}
}

// part is a message's content part holding text (empty while streaming).
func refPart(p *planned, text string) object {
	if p.refusal {
		return object{{"type", "refusal"}, {"refusal", text}}
	}
	return object{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", text}}
}

// responseObject renders the Response object. done=false gives the
// in-progress form of response.created / response.in_progress.
func refResponseObject(req *Request, id string, created int64, items []*planned, status string, usage any, errObj any) object {
	output := []any{}
	var completedAt any
	if status == "completed" {
		for _, it := range items {
			output = append(output, refItem(it, true))
		}
		completedAt = created
	}
	var prev any
	if req.PreviousResponseID != nil && *req.PreviousResponseID != "" {
		prev = *req.PreviousResponseID
	}
	parallel := req.ParallelToolCalls == nil || *req.ParallelToolCalls
	store := req.Store == nil || *req.Store
	toolChoice := any("auto")
	if k := kindOfRaw(req.ToolChoice); k != "" && k != "null" {
		toolChoice = req.ToolChoice
	}
	reasoning := any(object{{"effort", nil}, {"summary", nil}})
	if k := kindOfRaw(req.Reasoning); k == "object" {
		reasoning = req.Reasoning
	} else if model.IsReasoningModel(req.Model) {
		reasoning = object{{"effort", "medium"}, {"summary", nil}}
	}
	text := any(object{{"format", object{{"type", "text"}}}, {"verbosity", "medium"}})
	if kindOfRaw(req.Text) == "object" {
		text = req.Text
	}
	metadata := any(object{})
	if kindOfRaw(req.Metadata) == "object" {
		metadata = req.Metadata
	}
	return object{
		{"id", id}, {"object", "response"}, {"created_at", created}, {"status", status},
		{"background", false}, {"completed_at", completedAt}, {"error", errObj},
		{"frequency_penalty", 0.0}, {"incomplete_details", nil},
		{"instructions", refRawOrNull(req.Instructions)}, {"max_output_tokens", refRawOrNull(req.MaxOutputTokens)},
		{"max_tool_calls", nil}, {"model", req.Model}, {"moderation", nil}, {"output", output},
		{"parallel_tool_calls", parallel}, {"presence_penalty", 0.0}, {"previous_response_id", prev},
		{"prompt_cache_key", nil}, {"prompt_cache_retention", nil}, {"reasoning", reasoning},
		{"safety_identifier", nil}, {"service_tier", "default"}, {"store", store},
		{"temperature", 1.0}, {"text", text}, {"tool_choice", toolChoice}, {"tools", refToolsEcho(req)},
		{"top_logprobs", 0}, {"top_p", 1.0}, {"truncation", "disabled"}, {"usage", usage},
		{"user", nil}, {"metadata", metadata},
	}
}

func refRawOrNull(raw json.RawMessage) any {
	if k := kindOfRaw(raw); k == "" || k == "null" {
		return nil
	}
	return raw
}

// toolsEcho returns the tools as the API echoes them: function tools
// normalized (strict resolved: as sent, else on when the schema allows
// it), other tools as sent.
func refToolsEcho(req *Request) []any {
	out := []any{}
	for i, t := range req.Tools {
		if t.Type != "function" {
			if i < len(req.ToolsRaw) {
				out = append(out, req.ToolsRaw[i])
			}
			continue
		}
		var desc any
		if t.Description != nil {
			desc = *t.Description
		}
		strict := strictCompatible(t.Parameters)
		if t.Strict != nil {
			strict = *t.Strict
		}
		out = append(out, object{{"type", "function"}, {"description", desc}, {"name", str(t.Name)}, {"parameters", refRawOrNull(t.Parameters)}, {"strict", strict}})
	}
	return out
}

// usageFor gives deterministic token counts: about four bytes a token,
// and a fixed budget per reasoning item.
func refUsageFor(req *Request, items []*planned) object {
	in := 0
	for _, it := range req.Effective() {
		in += len(it.Raw)
	}
	for _, t := range req.Tools {
		in += len(t.Parameters) + len(str(t.Name)) + len(str(t.Description))
	}
	in = max(1, in/4)
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
	out += reasoning
	return object{
		{"input_tokens", in}, {"input_tokens_details", object{{"cached_tokens", 0}}},
		{"output_tokens", out}, {"output_tokens_details", object{{"reasoning_tokens", reasoning}}},
		{"total_tokens", in + out},
	}
}

// refStream writes the event sequence of provider-rules.md §2.3: every event
// named, typed and numbered, deltas cut at the configured fragment size.
func refStream(s *wire.SSE, req *Request, id string, created int64, items []*planned, done object, size int) {
	// emit numbers events by the count already written, which is also how
	// StreamError numbers an injected error.
	emit := func(typ string, fields ...kv) error {
		ev := append(object{{"type", typ}}, fields...)
		ev = append(ev, kv{"sequence_number", s.Sent()})
		return s.Event(typ, ev)
	}
	// Rendered once for its two events: as raw JSON it is copied into each
	// event exactly as the inline rendering would write it (the event is
	// still marshalled, and compacted, as a whole).
	inProgress, err := refResponseObject(req, id, created, items, "in_progress", nil, nil).MarshalJSON()
	if err != nil {
		return // as before: the first event would have failed to marshal
	}
	if emit("response.created", kv{"response", json.RawMessage(inProgress)}) != nil || emit("response.in_progress", kv{"response", json.RawMessage(inProgress)}) != nil {
		return
	}
	for i, it := range items {
		if refStreamItem(emit, i, it, size) != nil {
			return
		}
	}
	raw, err := done.MarshalJSON()
	if err != nil {
		return
	}
	_ = emit("response.completed", kv{"response", json.RawMessage(raw)})
}

func refStreamItem(emit func(string, ...kv) error, index int, it *planned, size int) error {
	if err := emit("response.output_item.added", kv{"item", refItem(it, false)}, kv{"output_index", index}); err != nil {
		return err
	}
	var err error
	switch it.kind {
	case "reasoning":
		err = refStreamSummary(emit, index, it, size)
	case "message":
		err = refStreamText(emit, index, it, size)
	case "function_call":
		for _, frag := range wire.Fragments(it.args, size) {
			if err = emit("response.function_call_arguments.delta", kv{"delta", frag}, kv{"item_id", it.id}, kv{"output_index", index}); err != nil {
				return err
			}
		}
		err = emit("response.function_call_arguments.done", kv{"arguments", it.args}, kv{"item_id", it.id}, kv{"output_index", index})
	}
	if err != nil {
		return err
	}
	return emit("response.output_item.done", kv{"item", refItem(it, true)}, kv{"output_index", index})
}

// streamSummary streams a reasoning summary; an empty summary has no
// events between added and done, as recorded.
func refStreamSummary(emit func(string, ...kv) error, index int, it *planned, size int) error {
	if it.summary == "" {
		return nil
	}
	at := []kv{{"item_id", it.id}, {"output_index", index}}
	part := func(text string) kv { return kv{"part", object{{"type", "summary_text"}, {"text", text}}} }
	if err := emit("response.reasoning_summary_part.added", append(at, part(""), kv{"summary_index", 0})...); err != nil {
		return err
	}
	for _, frag := range wire.Fragments(it.summary, size) {
		if err := emit("response.reasoning_summary_text.delta", append(at, kv{"delta", frag}, kv{"summary_index", 0})...); err != nil {
			return err
		}
	}
	if err := emit("response.reasoning_summary_text.done", append(at, kv{"summary_index", 0}, kv{"text", it.summary})...); err != nil {
		return err
	}
	return emit("response.reasoning_summary_part.done", append(at, part(it.summary), kv{"summary_index", 0})...)
}

func refStreamText(emit func(string, ...kv) error, index int, it *planned, size int) error {
	at := []kv{{"content_index", 0}, {"item_id", it.id}, {"output_index", index}}
	if err := emit("response.content_part.added", append(at, kv{"part", refPart(it, "")})...); err != nil {
		return err
	}
	delta, doneEv, field := "response.output_text.delta", "response.output_text.done", "text"
	if it.refusal {
		delta, doneEv, field = "response.refusal.delta", "response.refusal.done", "refusal"
	}
	for _, frag := range wire.Fragments(it.text, size) {
		fields := append(append([]kv{}, at...), kv{"delta", frag})
		if !it.refusal {
			fields = append(fields, kv{"logprobs", []any{}})
		}
		if err := emit(delta, fields...); err != nil {
			return err
		}
	}
	fields := append([]kv{}, at...)
	if !it.refusal {
		fields = append(fields, kv{"logprobs", []any{}})
	}
	if err := emit(doneEv, append(fields, kv{field, it.text})...); err != nil {
		return err
	}
	return emit("response.content_part.done", append(at, kv{"part", refPart(it, it.text)})...)
}

// refStreamError is StreamError as it was, for the failed response of st.
func refStreamError(s *wire.SSE, st *streamState, e *wire.APIError) {
	code := e.Code
	if code == nil {
		code = e.Type
	}
	errBody := object{{"type", e.Type}, {"code", code}, {"message", e.Message}, {"param", e.Param}}
	if s.Event("error", object{{"type", "error"}, {"sequence_number", s.Sent()}, {"error", errBody}}) != nil {
		return
	}
	failed := refResponseObject(st.req, st.id, st.created, nil, "failed", nil, object{{"code", code}, {"message", e.Message}})
	_ = s.Event("response.failed", object{{"type", "response.failed"}, {"response", failed}, {"sequence_number", s.Sent()}})
}

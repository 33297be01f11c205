package openairesp

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The Response object and its output items are written straight into a
// byte buffer, field by field in the API's order. Building them first as
// a tree of ordered key/value pairs boxed in interfaces cost about sixty
// allocations a response and escaped every constant key again on every
// request; writing them directly gives the same bytes (the reference tree
// encoder is kept in render_ref_test.go, and FuzzRenderEquivalence holds
// the two together) without either cost.
//
// Strings go through appendString (encoding/json's quoting, HTML-safe);
// raw request fragments (instructions, tools, reasoning, text, metadata,
// tool_choice, max_output_tokens) are copied as sent, as the tree encoder
// did with jsontext.Value.

// span is where one output item sits in a rendered response.
type span struct{ start, end int }

// usage is the token accounting of a completed response.
type usage struct{ input, cached, output, reasoning int }

// form says which rendering of a Response object is wanted.
type form struct {
	// status "completed" (or "incomplete": the token limit cut it) gives
	// the final form with its output items;
	// "in_progress" the form of response.created / response.in_progress;
	// "failed" the one of response.failed.
	status string
	// usage nil renders "usage":null, errJSON nil "error":null.
	usage   *usage
	errJSON []byte
	// spans, when not nil, receives each output item's offsets in the
	// buffer (completed form).
	spans []span
	// compact renders the object as json.Marshal would leave it inside an
	// event: the request fragments, the only parts that can hold
	// whitespace or unescaped HTML characters, are compacted as they are
	// copied (jsontext.Value.Compact). Everything else is written in
	// that form already.
	compact bool
}

// appendResponse appends the Response object in the given form.
func appendResponse(b []byte, req *Request, id string, created int64, items []planned, f form) []byte {
	status := f.status
	completed := status == "completed" || status == "incomplete"
	b = append(b, `{"id":`...)
	b = wirejson.AppendString(b, id)
	b = append(b, `,"object":"response","created_at":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"status":`...)
	b = wirejson.AppendString(b, status)
	b = append(b, `,"background":false,"completed_at":`...)
	if status == "completed" {
		b = strconv.AppendInt(b, created, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"error":`...)
	b = f.appendRaw(b, f.errJSON)
	b = append(b, `,"frequency_penalty":0,"incomplete_details":`...)
	if status == "incomplete" {
		b = append(b, `{"reason":"max_output_tokens"}`...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"instructions":`...)
	b = f.appendRawOrNull(b, req.Instructions)
	b = append(b, `,"max_output_tokens":`...)
	b = f.appendRawOrNull(b, req.MaxOutputTokens)
	b = append(b, `,"max_tool_calls":null,"model":`...)
	b = wirejson.AppendString(b, req.Model)
	b = append(b, `,"moderation":null,"output":[`...)
	if completed {
		for i := range items {
			if i > 0 {
				b = append(b, ',')
			}
			start := len(b)
			b = appendItem(b, &items[i], true)
			if f.spans != nil {
				f.spans[i] = span{start, len(b)}
			}
		}
	}
	b = append(b, `],"parallel_tool_calls":`...)
	b = strconv.AppendBool(b, req.ParallelToolCalls == nil || *req.ParallelToolCalls)
	b = append(b, `,"presence_penalty":0,"previous_response_id":`...)
	if req.PreviousResponseID != nil && *req.PreviousResponseID != "" {
		b = wirejson.AppendString(b, *req.PreviousResponseID)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"prompt_cache_key":null,"prompt_cache_retention":null,"reasoning":`...)
	switch {
	case len(req.Reasoning) > 0 && req.Reasoning.Kind() == '{':
		b = f.appendRaw(b, req.Reasoning)
	case model.IsReasoningModel(req.Model):
		b = append(b, `{"effort":"medium","summary":null}`...)
	default:
		b = append(b, `{"effort":null,"summary":null}`...)
	}
	b = append(b, `,"safety_identifier":null,"service_tier":"default","store":`...)
	b = strconv.AppendBool(b, req.Store == nil || *req.Store)
	b = append(b, `,"temperature":1,"text":`...)
	if len(req.Text) > 0 && req.Text.Kind() == '{' {
		b = f.appendRaw(b, req.Text)
	} else {
		b = append(b, `{"format":{"type":"text"},"verbosity":"medium"}`...)
	}
	b = append(b, `,"tool_choice":`...)
	if len(req.ToolChoice) > 0 && req.ToolChoice.Kind() != 'n' {
		b = f.appendRaw(b, req.ToolChoice)
	} else {
		b = append(b, `"auto"`...)
	}
	b = append(b, `,"tools":`...)
	b = f.appendTools(b, req)
	b = append(b, `,"top_logprobs":0,"top_p":1,"truncation":"disabled","usage":`...)
	b = appendUsage(b, f.usage)
	b = append(b, `,"user":null,"metadata":`...)
	if len(req.Metadata) > 0 && req.Metadata.Kind() == '{' {
		b = f.appendRaw(b, req.Metadata)
	} else {
		b = append(b, "{}"...)
	}
	return append(b, '}')
}

// appendRaw copies a JSON value as it is (compacted in the compact form);
// nothing at all is null.
func (f *form) appendRaw(b []byte, raw jsontext.Value) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	start := len(b)
	b = append(b, raw...)
	if !f.compact || !spaced(raw) {
		return b // nothing to remove
	}
	// Compacted where it was copied: the result is never longer, so it
	// is rewritten in place (the append only copies it back if not).
	// A value that does not compact stays as it is.
	if v := jsontext.Value(b[start:]); v.Compact() == nil {
		b = append(b[:start], v...)
	}
	return b
}

// spaced reports whether raw holds whitespace outside its strings, which
// compacting removes (it leaves strings and numbers as they are): a
// fragment a client sent compact is copied without being parsed again.
func spaced(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return true
		}
	}
	return false
}

// appendRawOrNull copies a request fragment, or null when it is absent or
// null.
func (f *form) appendRawOrNull(b []byte, raw jsontext.Value) []byte {
	if len(raw) == 0 || raw.Kind() == 'n' {
		return append(b, "null"...)
	}
	return f.appendRaw(b, raw)
}

// appendTools appends the tools as the API echoes them: function tools
// normalized (strict resolved: as sent, else on when the schema allows
// it), other tools as sent.
func (f *form) appendTools(b []byte, req *Request) []byte {
	b = append(b, '[')
	first := true
	for i, t := range req.Tools {
		if t.Type != "function" {
			if i < len(req.ToolsRaw) {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = f.appendRaw(b, req.ToolsRaw[i])
			}
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"type":"function","description":`...)
		if t.Description != nil {
			b = wirejson.AppendString(b, *t.Description)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"name":`...)
		b = wirejson.AppendString(b, str(t.Name))
		b = append(b, `,"parameters":`...)
		b = f.appendRawOrNull(b, t.Parameters)
		strict := strictCompatible(t.Parameters)
		if t.Strict != nil {
			strict = *t.Strict
		}
		b = append(b, `,"strict":`...)
		b = strconv.AppendBool(b, strict)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendUsage(b []byte, u *usage) []byte {
	if u == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.input), 10)
	b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.cached), 10)
	b = append(b, `},"output_tokens":`...)
	b = strconv.AppendInt(b, int64(u.output), 10)
	b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(u.reasoning), 10)
	b = append(b, `},"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.input+u.output), 10)
	return append(b, '}')
}

// appendItem appends one output item, complete (done) or as announced by
// response.output_item.added.
func appendItem(b []byte, p *planned, done bool) []byte {
	status := `"completed"`
	switch {
	case !done:
		status = `"in_progress"`
	case p.incomplete:
		status = `"incomplete"`
	}
	b = append(b, `{"id":`...)
	b = wirejson.AppendString(b, p.id)
	switch p.kind {
	case "reasoning":
		b = append(b, `,"type":"reasoning"`...)
		if p.encrypted != "" {
			b = append(b, `,"encrypted_content":`...)
			b = wirejson.AppendString(b, p.encrypted)
		}
		b = append(b, `,"summary":[`...)
		if done && p.summary != "" {
			b = appendSummaryPart(b, p.summary)
		}
		return append(b, "]}"...)
	case "message":
		b = append(b, `,"type":"message","status":`...)
		b = append(b, status...)
		b = append(b, `,"content":[`...)
		if done {
			b = appendPart(b, p, p.text)
		}
		b = append(b, `],"phase":`...)
		b = wirejson.AppendString(b, p.phase)
		return append(b, `,"role":"assistant"}`...)
	}
	b = append(b, `,"type":"function_call","status":`...)
	b = append(b, status...)
	b = append(b, `,"arguments":`...)
	if done {
		b = wirejson.AppendString(b, p.args)
	} else {
		b = append(b, `""`...)
	}
	b = append(b, `,"call_id":`...)
	b = wirejson.AppendString(b, p.callID)
	b = append(b, `,"name":`...)
	b = wirejson.AppendString(b, p.name)
	return append(b, '}')
}

// appendPart appends a message's content part holding text (empty while
// streaming).
func appendPart(b []byte, p *planned, text string) []byte {
	if p.refusal {
		b = append(b, `{"type":"refusal","refusal":`...)
	} else {
		b = append(b, `{"type":"output_text","annotations":[],"logprobs":[],"text":`...)
	}
	b = wirejson.AppendString(b, text)
	return append(b, '}')
}

func appendSummaryPart(b []byte, text string) []byte {
	b = append(b, `{"type":"summary_text","text":`...)
	b = wirejson.AppendString(b, text)
	return append(b, '}')
}

package wirejson

import (
	"bytes"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Rescanning reads a few members of a value the strict decoder has already
// validated: a union object's "type", the body's top-level members, the
// elements of an array kept as sent. It runs on every item of every
// request, so it reuses pooled decoders that skip the checks already made
// (duplicate names, UTF-8); a fresh jsontext.Decoder allocates its name
// tables anew for each object it reads. The values handed out are spans of
// the bytes given, valid as long as those are.

var rescanOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

type rescanner struct {
	buf bytes.Buffer
	dec *jsontext.Decoder
}

var rescanners = sync.Pool{New: func() any {
	s := &rescanner{}
	s.dec = jsontext.NewDecoder(&s.buf, rescanOpts...)
	return s
}}

func rescan(raw []byte) *rescanner {
	s := rescanners.Get().(*rescanner)
	s.buf = *bytes.NewBuffer(raw)
	s.dec.Reset(&s.buf, rescanOpts...)
	return s
}

// release drops the reference to the scanned bytes before pooling.
func (s *rescanner) release() {
	s.buf = bytes.Buffer{}
	s.dec.Reset(&s.buf, rescanOpts...)
	rescanners.Put(s)
}

// span is the value just read, as a span of raw (a bytes.Buffer input is
// read in place, but the offset makes that independent of the library).
func (s *rescanner) span(raw []byte, v jsontext.Value) jsontext.Value {
	end := int(s.dec.InputOffset())
	return jsontext.Value(raw[end-len(v) : end : end])
}

// Members calls f with each member of the object raw, in order, until f
// returns false: the member's name (unquoted; a span of raw unless it has
// escapes) and its value. Nothing is called for a value that is not an
// object or does not parse.
func Members(raw []byte, f func(name []byte, value jsontext.Value) bool) {
	s := rescan(raw)
	defer s.release()
	if tok, err := s.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return
	}
	for s.dec.PeekKind() == '"' {
		q, err := s.dec.ReadValue()
		if err != nil {
			return
		}
		name := unquoted(s.span(raw, q))
		v, err := s.dec.ReadValue()
		if err != nil {
			return
		}
		if !f(name, s.span(raw, v)) {
			return
		}
	}
}

// Elements calls f with each element of the array raw, in order, until f
// returns false.
func Elements(raw []byte, f func(value jsontext.Value) bool) {
	s := rescan(raw)
	defer s.release()
	if tok, err := s.dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return
	}
	for k := s.dec.PeekKind(); k != ']' && k != 0; k = s.dec.PeekKind() {
		v, err := s.dec.ReadValue()
		if err != nil {
			return
		}
		if !f(s.span(raw, v)) {
			return
		}
	}
}

// StringMember is the unquoted string value of the object's member name;
// false when the member is missing or not a string.
func StringMember(raw []byte, name string) (value []byte, ok bool) {
	Members(raw, func(n []byte, v jsontext.Value) bool {
		if string(n) != name {
			return true
		}
		if v.Kind() == '"' {
			value, ok = unquoted(v), true
		}
		return false
	})
	return value, ok
}

// unquoted is the content of a quoted string: a span of q when it has no
// escapes, else a fresh copy with them resolved.
func unquoted(q []byte) []byte {
	if bytes.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1]
	}
	out, err := jsontext.AppendUnquote(nil, q)
	if err != nil {
		return q[1 : len(q)-1]
	}
	return out
}

// TypeTag is the object's top-level "type" string, read the fast way in
// the two common layouts: "type" first ({"type":"text",…}) or last
// (…,"type":"message"}), as a plain string; anything else is read by
// StringMember. raw must be valid JSON (read whole
// by the strict decoder): in valid JSON the bytes ,"type":" or {"type":"
// only ever start a member name, and one that ends the value just before
// its final brace belongs to the outermost object.
func TypeTag(raw []byte) ([]byte, bool) {
	const lead = `{"type":"`
	if bytes.HasPrefix(raw, []byte(lead)) {
		rest := raw[len(lead):]
		if end := bytes.IndexByte(rest, '"'); end >= 0 && bytes.IndexByte(rest[:end], '\\') < 0 {
			return rest[:end], true
		}
	}
	if bytes.HasSuffix(raw, []byte(`"}`)) {
		body := raw[:len(raw)-2]
		if i := bytes.LastIndex(body, []byte(`"type":"`)); i > 0 && (body[i-1] == ',' || body[i-1] == '{') {
			tag := body[i+len(`"type":"`):]
			if bytes.IndexByte(tag, '"') < 0 && bytes.IndexByte(tag, '\\') < 0 {
				return tag, true
			}
		}
	}
	return StringMember(raw, "type")
}

// AppendString appends s as a JSON string, the hand-written encoders'
// quoting: invalid UTF-8 (a scripted string) becomes replacement
// characters, as json.Marshal writes it, instead of an error.
func AppendString(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		out, _ = jsontext.AppendQuote(b, strings.ToValidUTF8(s, "\ufffd"))
	}
	return out
}

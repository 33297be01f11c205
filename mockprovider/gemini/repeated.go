package gemini

import (
	"bytes"
	"reflect"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Google's proto-JSON parser takes a single value where a repeated field
// is expected, as a list of one: "tools": {"functionDeclarations": …}
// reads as "tools": [{…}]. The wire structs hold repeated fields as Go
// slices, which the strict decoder fills from lists only; a body the
// decoder refuses for that reason is rewritten once, every such value
// wrapped in a list wherever it sits, and decoded again. A body that
// sends lists pays nothing; one that does not pays one linear pass.

// singleForRepeated reports whether a decoding error is a non-list value
// at a repeated field.
func (d decoder) singleForRepeated(e *wirejson.Error) bool {
	if e.Kind != wirejson.WrongType && e.Kind != wirejson.Invalid {
		return false
	}
	if !isRepeated(d.typeAt(e.Path)) {
		return false
	}
	v := bytes.TrimSpace(valueBytes(d.body, e.Path))
	return len(v) > 0 && v[0] != '[' && v[0] != 'n'
}

// wrapSingles rewrites body, wrapping every non-list value of a repeated
// field of root in a list. ok is false when the body cannot be walked
// (the decoder's own error then stands).
func wrapSingles(body []byte, root reflect.Type) (_ []byte, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out bytes.Buffer
	out.Grow(len(body) + 16)
	enc := jsontext.NewEncoder(&out, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if err := wrapValue(dec, enc, root); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}

// wrapValue copies one value of wire type t (nil: free-form JSON).
func wrapValue(dec *jsontext.Decoder, enc *jsontext.Encoder, t reflect.Type) error {
	t = deref(t)
	kind := dec.PeekKind()
	if isRepeated(t) && kind != '[' && kind != 'n' {
		if err := enc.WriteToken(jsontext.BeginArray); err != nil {
			return err
		}
		if err := wrapValue(dec, enc, t.Elem()); err != nil {
			return err
		}
		return enc.WriteToken(jsontext.EndArray)
	}
	var elem func(name string) reflect.Type
	switch {
	case t == nil || t == reflect.TypeFor[jsontext.Value]() || t == reflect.TypeFor[Object]():
		// Free-form JSON: copied as it is.
	case kind == '[' && isRepeated(t):
		elem = func(string) reflect.Type { return t.Elem() }
	case kind == '{' && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
		elem = func(name string) reflect.Type { return step(t, name) }
	}
	if elem == nil || (kind != '[' && kind != '{') {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return enc.WriteValue(v)
	}
	open, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if err := enc.WriteToken(open); err != nil {
		return err
	}
	for {
		switch dec.PeekKind() {
		case ']', '}':
			end, err := dec.ReadToken()
			if err != nil {
				return err
			}
			return enc.WriteToken(end)
		case 0:
			_, err := dec.ReadToken() // the decoder's error
			return err
		}
		name := ""
		if kind == '{' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			name = tok.String()
			if err := enc.WriteToken(tok); err != nil {
				return err
			}
		}
		if err := wrapValue(dec, enc, elem(name)); err != nil {
			return err
		}
	}
}

// Package wirejson decodes request bodies into each dialect's typed wire
// structs with one JSON library (github.com/go-json-experiment/json, the
// prototype of encoding/json/v2) and turns its errors into a neutral Error
// that each dialect renders in its own API's words and path notation.
//
// Decoding is strict the way the real APIs are: unknown members, duplicate
// names, wrong types, numbers out of range and invalid UTF-8 are all errors.
// The Lenient option keeps unknown members (collected for the journal) for
// users whose SDK is newer than the mock.
package wirejson

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Kind classifies a decoding error; each dialect maps a kind to its
// API's status and text.
type Kind int

const (
	// Syntax: the body is not JSON (or has trailing data).
	Syntax Kind = iota + 1
	// InvalidUTF8: a string holds bytes that are not UTF-8.
	InvalidUTF8
	// UnknownMember: an object member the API does not define. Path ends
	// with the member's name.
	UnknownMember
	// DuplicateMember: the same name twice in one object.
	DuplicateMember
	// WrongType: a value of the wrong JSON kind for its field (Got says
	// which kind arrived, Want the Go type that was expected).
	WrongType
	// OutOfRange: a number that does not fit its field (1e999999, 1.5 for
	// an integer, a negative count).
	OutOfRange
	// Invalid: a value a union or enum type rejected with its own message
	// (Message holds it).
	Invalid
)

// Error is one decoding failure.
type Error struct {
	Kind Kind
	// Path holds the JSON pointer tokens to the offending value: member
	// names and array indexes, outermost first.
	Path []string
	// Offset is the byte offset in the body.
	Offset int64
	// Got is the JSON kind that arrived: '"', '0', '{', '[', 't', 'f', 'n'
	// (0 when unknown).
	Got byte
	// Want is the Go type that could not take the value (nil when unknown).
	Want reflect.Type
	// Value is the offending number or string as sent (may be empty).
	Value string
	// Message is a union's or enum's own explanation (Kind Invalid).
	Message string
	Err     error
}

func (e *Error) Error() string {
	s := "wirejson: " + e.Kind.String()
	if len(e.Path) > 0 {
		s += " at " + Dotted(e.Path)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func (k Kind) String() string {
	switch k {
	case Syntax:
		return "syntax error"
	case InvalidUTF8:
		return "invalid UTF-8"
	case UnknownMember:
		return "unknown member"
	case DuplicateMember:
		return "duplicate member"
	case WrongType:
		return "wrong type"
	case OutOfRange:
		return "number out of range"
	case Invalid:
		return "invalid value"
	}
	return "error"
}

// Name is the last path token: the unknown member's name.
func (e *Error) Name() string {
	if len(e.Path) == 0 {
		return ""
	}
	return e.Path[len(e.Path)-1]
}

// Parent is the path without its last token.
func (e *Error) Parent() []string {
	if len(e.Path) == 0 {
		return nil
	}
	return e.Path[:len(e.Path)-1]
}

// Options of one decode.
type Options struct {
	// Lenient accepts unknown members instead of failing; their paths are
	// returned so the caller can journal them.
	Lenient bool
}

var (
	strictOpts  = json.JoinOptions(json.RejectUnknownMembers(true))
	lenientOpts = json.JoinOptions(json.RejectUnknownMembers(false))

	// A value the decoder has already read whole (ReadValue) had its
	// names checked for duplicates and its strings for UTF-8; decoding it
	// again into a union's variant need not repeat that.
	strictAgain  = json.JoinOptions(json.RejectUnknownMembers(true), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	lenientAgain = json.JoinOptions(json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
)

// Again are the options for decoding a value that the decoder with
// options outer has already read whole: the same strictness about unknown
// members, without the checks the first read made.
func Again(outer json.Options) json.Options {
	if strict, _ := json.GetOption(outer, json.RejectUnknownMembers); strict {
		return strictAgain
	}
	return lenientAgain
}

// Decode fills v (a pointer to a wire struct) from body. On success in
// lenient mode, unknown lists the paths of members v does not define.
func Decode(body []byte, v any, o Options) (unknown [][]string, err *Error) {
	if !utf8.Valid(body) {
		off := invalidUTF8Offset(body)
		return nil, &Error{Kind: InvalidUTF8, Offset: int64(off), Path: pathAtOffset(body, off)}
	}
	opts := strictOpts
	if o.Lenient {
		opts = lenientOpts
	}
	if e := json.Unmarshal(body, v, opts); e != nil {
		return nil, Classify(e)
	}
	if o.Lenient {
		unknown = UnknownMembers(body, v)
	}
	return unknown, nil
}

// UnknownMembers lists the members of body that v's type does not define,
// by decoding it again strictly and collecting each failure. It is called
// only in lenient mode, so its cost does not matter.
func UnknownMembers(body []byte, v any) [][]string {
	var out [][]string
	t := reflect.TypeOf(v).Elem()
	cur := body
	for range 64 {
		fresh := reflect.New(t).Interface()
		e := json.Unmarshal(cur, fresh, strictOpts)
		if e == nil {
			break
		}
		ce := Classify(e)
		if ce.Kind != UnknownMember {
			break
		}
		out = append(out, ce.Path)
		next, ok := removeMember(cur, ce.Path)
		if !ok {
			break
		}
		cur = next
	}
	return out
}

// removeMember deletes the member at path from a JSON document.
func removeMember(doc []byte, path []string) ([]byte, bool) {
	var root any
	if json.Unmarshal(doc, &root) != nil || len(path) == 0 {
		return nil, false
	}
	node := root
	for _, tok := range path[:len(path)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			node = n[i]
		default:
			return nil, false
		}
	}
	obj, ok := node.(map[string]any)
	if !ok {
		return nil, false
	}
	if _, ok := obj[path[len(path)-1]]; !ok {
		return nil, false
	}
	delete(obj, path[len(path)-1])
	b, err := json.Marshal(root, json.Deterministic(true))
	return b, err == nil
}

// TypeTag is the top-level "type" string of the object raw, a value the
// strict decoder has read whole: what picks a union's variant. False when
// there is none or it is not a string.
func TypeTag(raw []byte) (string, bool) {
	tag, ok, _ := TypeMember(raw)
	return tag, ok
}

// TypeMember is TypeTag, and whether raw has a "type" member at all (of
// any kind): a union with a default variant tells an absent tag from a
// wrong one, and learns both in one reading.
func TypeMember(raw []byte) (tag string, ok, present bool) {
	var probe struct {
		Type jsontext.Value `json:"type"`
	}
	if json.Unmarshal(raw, &probe, lenientAgain) != nil {
		return "", false, false
	}
	present = len(probe.Type) > 0
	if probe.Type.Kind() != '"' || json.Unmarshal(probe.Type, &tag, lenientAgain) != nil {
		return "", false, present
	}
	return tag, true, true
}

// Relocate makes an error found decoding a value on its own an error of
// the whole body: its pointer is prefixed with where the value sits (at)
// and its offset moved by the value's start.
func Relocate(err error, at jsontext.Pointer, offset int64) error {
	var se *json.SemanticError
	var xe *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		se.JSONPointer = at + se.JSONPointer
		se.ByteOffset += offset
		return se
	case errors.As(err, &xe):
		xe.JSONPointer = at + xe.JSONPointer
		xe.ByteOffset += offset
		return xe
	}
	return err
}

// Object is a sub-message a dialect keeps as sent without reading it: it
// must be a JSON object (or null); its members are not checked.
type Object jsontext.Value

// UnmarshalJSONFrom keeps an object and rejects every other kind.
func (o *Object) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	kind := dec.PeekKind()
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if kind != '{' && kind != 'n' {
		return &InvalidError{Message: "object"}
	}
	*o = Object(v.Clone())
	return nil
}

// InvalidError is returned by a union's or enum's UnmarshalJSONFrom to
// explain a value that has the right JSON kind but is not allowed; the
// decoder adds the path.
type InvalidError struct{ Message string }

func (e *InvalidError) Error() string { return e.Message }

// Classify turns an error of the JSON library into an Error.
func Classify(err error) *Error {
	out := &Error{Kind: Syntax, Err: err}
	var se *json.SemanticError
	var xe *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		out.Offset = se.ByteOffset
		out.Path = tokens(se.JSONPointer)
		out.Got = byte(se.JSONKind)
		out.Want = se.GoType
		out.Value = string(se.JSONValue)
		var ie *InvalidError
		var ne *strconv.NumError
		switch {
		case se.Err == json.ErrUnknownName:
			out.Kind = UnknownMember
		case errors.As(se.Err, &ie):
			out.Kind, out.Message = Invalid, ie.Message
		case errors.As(se.Err, &ne) && ne.Err == strconv.ErrRange,
			se.Err != nil && strings.Contains(se.Err.Error(), "out of range"),
			se.Err != nil && strings.Contains(se.Err.Error(), "cannot unmarshal") && se.JSONKind == '0':
			out.Kind = OutOfRange
		case se.JSONKind == '0' && se.GoType != nil && isNumber(se.GoType):
			// A number of the right kind that its type cannot hold: a
			// fraction for an integer, a sign for an unsigned.
			out.Kind = OutOfRange
		default:
			out.Kind = WrongType
		}
		// A syntax error inside a semantic one (a union reading raw).
		if errors.As(se.Err, &xe) {
			return classifySyntax(xe, err)
		}
	case errors.As(err, &xe):
		return classifySyntax(xe, err)
	}
	return out
}

func classifySyntax(xe *jsontext.SyntacticError, err error) *Error {
	out := &Error{Kind: Syntax, Offset: xe.ByteOffset, Path: tokens(xe.JSONPointer), Err: err}
	switch {
	case xe.Err == jsontext.ErrDuplicateName:
		out.Kind = DuplicateMember
	case xe.Err != nil && strings.Contains(xe.Err.Error(), "UTF-8"):
		out.Kind = InvalidUTF8
	}
	return out
}

func isNumber(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func tokens(p jsontext.Pointer) []string {
	if p == "" {
		return nil
	}
	return slices.Collect(p.Tokens())
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// pathAtOffset finds the JSON pointer of the value that holds byte off,
// reading the body as far as it is well-formed (the bytes after off are
// ignored), so an invalid-UTF-8 error can name where it is.
func pathAtOffset(body []byte, off int) []string {
	dec := jsontext.NewDecoder(strings.NewReader(string(body[:off])+`"`), jsontext.AllowInvalidUTF8(true))
	var last jsontext.Pointer
	for {
		if _, err := dec.ReadToken(); err != nil {
			break
		}
		last = dec.StackPointer()
	}
	return tokens(last)
}

// Dotted renders a path as Anthropic and OpenAI Chat do:
// messages.0.content.0.foo.
func Dotted(path []string) string { return strings.Join(path, ".") }

// Bracketed renders a path as Gemini and OpenAI Responses do:
// contents[0].parts[0] (array indexes in brackets).
func Bracketed(path []string) string {
	var b strings.Builder
	for i, tok := range path {
		if isIndex(tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func isIndex(tok string) bool {
	if tok == "" {
		return false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// KindName names a JSON kind for messages ("string", "number", ...).
func KindName(k byte) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}

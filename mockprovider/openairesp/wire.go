package openairesp

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The request's wire model is wire_gen.go, generated from the official Go
// SDK's param types (wiregen_test.go), plus what is written here: the one
// Message the SDK's three message shapes share on the wire, and the
// decoding of the unions (string, array or object; objects told apart by
// their "type").

// Message is an input message in any of its forms: the easy form
// (role and string or parts content, type optional), the input form
// (input parts, status) and a replayed output message (id, output parts,
// status, phase).
type Message struct {
	ID      *string        `json:"id,omitzero"`
	Type    string         `json:"type,omitzero"`
	Role    string         `json:"role,omitzero"`
	Content MessageContent `json:"content,omitzero"`
	Status  string         `json:"status,omitzero"`
	Phase   string         `json:"phase,omitzero"`
}

// judgedFirst is a variant some of whose values the API rejects for a
// reason it finds before any unknown member: such a value is decoded
// leniently, so the rule that words that reason answers it.
type judgedFirst interface{ judgedFirst(raw []byte) bool }

// judgedFirst: a message's role is judged before its members (a
// Chat-style {"role":"tool","tool_call_id":…} gets "Invalid value: 'tool'"),
// and an assistant message's part types before the parts' members (an
// output_text part relabelled input_text keeps its annotations).
func (*Message) judgedFirst(raw []byte) bool {
	var m struct {
		Role    string         `json:"role"`
		Content jsontext.Value `json:"content"`
	}
	if json.Unmarshal(raw, &m, json.RejectUnknownMembers(false)) != nil {
		return false
	}
	switch m.Role {
	case "user", "system", "developer", "":
		return false
	case "assistant":
		var parts []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &parts, json.RejectUnknownMembers(false)) != nil {
			return false
		}
		for _, p := range parts {
			if p.Type != "output_text" && p.Type != "refusal" {
				return true
			}
		}
		return false
	}
	return true
}

// MessageContent is a string or a list of parts.
type MessageContent struct {
	OfString *string
	OfParts  []MessagePart
}

var messageContentVariants = &union{Name: "MessageContent", Expected: "one of a string or array of input items", Variants: []variant{
	{Field: 0, Kind: '"'},
	{Field: 1, Kind: '['},
}}

func (u *MessageContent) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return messageContentVariants.decode(dec, u)
}

func (*MessageContent) union() *union { return messageContentVariants }

// Present reports whether content was sent (and not null).
func (u *MessageContent) Present() bool { return u.OfString != nil || u.OfParts != nil }

// MessagePart is one part of a message's content: input parts for user,
// system and developer messages, output parts for assistant ones (which
// part goes where is a rule's business, not the decoder's).
type MessagePart struct {
	OfInputText  *ResponseInputTextParam
	OfInputImage *ResponseInputImageParam
	OfInputFile  *ResponseInputFileParam
	OfOutputText *ResponseOutputTextParam
	OfRefusal    *ResponseOutputRefusalParam
}

var messagePartVariants = &union{Name: "MessagePart", Variants: []variant{
	{Field: 0, Kind: '{', Tags: []string{"input_text"}},
	{Field: 1, Kind: '{', Tags: []string{"input_image"}},
	{Field: 2, Kind: '{', Tags: []string{"input_file"}},
	{Field: 3, Kind: '{', Tags: []string{"output_text"}},
	{Field: 4, Kind: '{', Tags: []string{"refusal"}},
}}

func (u *MessagePart) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return messagePartVariants.decode(dec, u)
}

func (*MessagePart) union() *union { return messagePartVariants }

// union describes a union type: which field of its struct takes which JSON
// kind (and, for objects, which "type" values).
type union struct {
	Name string
	// Expected words the kinds it takes in a type error ("one of a string
	// or array of input items"); empty derives it from the variants.
	Expected string
	// KeepRaw keeps each object's bytes in the struct's raw field.
	KeepRaw  bool
	Variants []variant
}

// variant is one field of a union: the JSON kind it takes ('"', '0', 't',
// '[', '{'), and for objects the "type" values that select it; Default
// takes an object without (or, when no variant has tags, with any) type.
type variant struct {
	Field   int
	Kind    byte
	Tags    []string
	Default bool
}

// unionTypeError is a value of a kind the union does not take. The
// dialect words it as the API does ("Invalid type for …").
type unionTypeError struct {
	Expected string
	Got      byte
	Value    string
}

func (e *unionTypeError) Error() string { return "expected " + e.Expected }

// unionTagError is an object whose "type" no variant takes.
type unionTagError struct {
	Tag       string
	Supported []string
}

func (e *unionTagError) Error() string { return "unsupported type " + e.Tag }

// Error as wirejson.Invalid, so the path and offset stay the library's.
func (e *unionTagError) invalid() error { return &wirejson.InvalidError{Message: tagMessage(e)} }

func tagMessage(e *unionTagError) string {
	return "Invalid value: '" + e.Tag + "'. Supported values are: " + supportedList(e.Supported) + "."
}

// supportedList quotes values as the API's "Supported values are:" lists
// do: 'a', 'b', and 'c'.
func supportedList(values []string) string {
	q := make([]string, len(values))
	for i, s := range values {
		q[i] = "'" + s + "'"
	}
	if len(q) > 1 {
		return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
	}
	return strings.Join(q, ", ")
}

func (u *union) expected() string {
	if u.Expected != "" {
		return u.Expected
	}
	var names []string
	for _, v := range u.Variants {
		n := kindArticle(v.Kind)
		if len(names) == 0 || names[len(names)-1] != n {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "one of " + strings.Join(names, " or ")
}

func kindArticle(k byte) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't':
		return "a boolean"
	case '[':
		return "an array"
	}
	return "an object"
}

// decode fills the variant of u (a pointer to the union struct) that the
// next value's kind and type select. null leaves the union empty.
func (u *union) decode(dec *jsontext.Decoder, target any) error {
	k := byte(dec.PeekKind())
	if k == 'n' {
		_, err := dec.ReadValue()
		return err
	}
	if k == 'f' {
		k = 't'
	}
	s := reflect.ValueOf(target).Elem()
	if k != '{' {
		for _, v := range u.Variants {
			if v.Kind == k {
				return json.UnmarshalDecode(dec, field(s, v.Field))
			}
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return &unionTypeError{Expected: u.expected(), Got: k, Value: string(raw)}
	}
	start := dec.InputOffset()
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	v, terr := u.pick(raw)
	if terr != nil {
		if te, ok := terr.(*unionTagError); ok {
			return te.invalid()
		}
		return terr
	}
	// The object is decoded again on its own, with the same strictness;
	// its errors get the path and offset of where it sits in the body.
	opts := wirejson.Again(dec.Options())
	if l, ok := s.Field(v.Field).Interface().(judgedFirst); ok && l.judgedFirst(raw) {
		opts = wirejson.Again(json.RejectUnknownMembers(false))
	}
	if err := json.Unmarshal(raw, field(s, v.Field), opts); err != nil {
		return wirejson.Relocate(err, dec.StackPointer(), start+int64(len(leadingSpace(raw))))
	}
	if k, ok := target.(rawKeeper); ok && u.KeepRaw {
		k.keepRaw(bytes.Clone(raw))
	}
	return nil
}

// rawKeeper is a union that keeps its object's bytes.
type rawKeeper interface{ keepRaw(jsontext.Value) }

// Input items are stored as sent, for previous_response_id and listing.
func (u *ResponseInputItemUnionParam) keepRaw(v jsontext.Value) { u.raw = v }

// Tools are echoed as sent (the hosted ones) in the Response object.
func (u *ToolUnionParam) keepRaw(v jsontext.Value) { u.raw = v }

func leadingSpace(b []byte) []byte { return b[:len(b)-len(bytes.TrimLeft(b, " \t\r\n"))] }

// field returns a pointer to field i of the union struct s, allocating a
// pointer field.
func field(s reflect.Value, i int) any {
	f := s.Field(i)
	if f.Kind() == reflect.Pointer {
		f.Set(reflect.New(f.Type().Elem()))
		return f.Interface()
	}
	return f.Addr().Interface()
}

// pick chooses the object variant by the object's "type" member.
func (u *union) pick(raw []byte) (variant, error) {
	tag, has := wirejson.TypeTag(raw)
	var def *variant
	tagged := false
	for i, v := range u.Variants {
		if v.Kind != '{' {
			continue
		}
		for _, t := range v.Tags {
			if has && t == tag {
				return v, nil
			}
		}
		tagged = tagged || len(v.Tags) > 0
		if v.Default && def == nil {
			def = &u.Variants[i]
		}
	}
	switch {
	case def != nil && (!has || len(def.Tags) == 0):
		return *def, nil
	case !tagged:
		return variant{}, &unionTypeError{Expected: u.expected(), Got: '{', Value: string(raw)}
	case !has:
		// No type to choose by: the first variant reports what is missing.
		for _, v := range u.Variants {
			if v.Kind == '{' {
				return v, nil
			}
		}
	}
	var supported []string
	for _, v := range u.Variants {
		if v.Kind == '{' {
			supported = append(supported, v.Tags...)
		}
	}
	return variant{}, &unionTagError{Tag: tag, Supported: supported}
}

// typeMember reads the top-level "type" string of an object.
func typeMember(raw []byte) (string, bool) { return wirejson.TypeTag(raw) }

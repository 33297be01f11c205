package openaiwire

import (
	"fmt"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// strictNode is what strict mode reads of one schema object, decoded in
// one pass that skips the rest (descriptions, enums, formats) instead of
// building it into maps and strings: the Responses API resolves strict for
// every function tool it echoes, so this runs on every answer. A member of
// an unexpected type counts as absent; a later duplicate wins; names match
// exactly — as the check read a generic decode of the schema.
type strictNode struct {
	Type                 objectType    `json:"type"`
	Properties           strictMembers `json:"properties"`
	AdditionalProperties falseValue    `json:"additionalProperties"`
	Required             stringItems   `json:"required"`
	Items                strictSub     `json:"items"`
	Defs                 strictMembers `json:"$defs"`
	Definitions          strictMembers `json:"definitions"`
}

// objectType is whether "type" is the string "object".
type objectType bool

func (t *objectType) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	*t = objectType(err == nil && isString(v, "object"))
	return err
}

// falseValue is whether the value is the literal false.
type falseValue bool

func (f *falseValue) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	*f = falseValue(err == nil && v.Kind() == 'f')
	return err
}

// stringItems are the string items of an array (nil for another value).
type stringItems []string

func (s *stringItems) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*s = nil
	if dec.PeekKind() != '[' {
		_, err := dec.ReadValue()
		return err
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if v.Kind() == '"' {
			name, err := jsontext.AppendUnquote(nil, v)
			if err != nil {
				return err
			}
			*s = append(*s, string(name))
		}
	}
	_, err := dec.ReadToken()
	return err
}

// strictMembers are an object's members by name, each a nested schema or
// nil when it is not an object; ok is false when the value is no object.
type strictMembers struct {
	ok bool
	m  map[string]*strictNode
}

func (s *strictMembers) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*s = strictMembers{}
	if dec.PeekKind() != '{' {
		_, err := dec.ReadValue()
		return err
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	s.ok, s.m = true, map[string]*strictNode{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // the token is only valid until the next read
		var sub strictSub
		if err := sub.UnmarshalJSONFrom(dec); err != nil {
			return err
		}
		s.m[name] = sub.node
	}
	_, err := dec.ReadToken()
	return err
}

// strictSub is a nested schema, nil when the value is not an object.
type strictSub struct{ node *strictNode }

func (s *strictSub) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	s.node = nil
	if dec.PeekKind() != '{' {
		_, err := dec.ReadValue()
		return err
	}
	s.node = &strictNode{}
	return jsonv2.UnmarshalDecode(dec, s.node)
}

// A value already read whole by the request's strict decoding; its
// duplicates, if a lenient path let any through, resolve as in a generic
// decode (the last one).
var strictDecode = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// strictVerdict is strictProblem on the raw schema; "" when it is fine or
// is not a JSON object (CheckSchemas reports that).
func strictVerdict(raw []byte) string {
	var s strictNode
	if jsonv2.Unmarshal(raw, &s, strictDecode) != nil {
		return ""
	}
	return strictProblem(&s, nil)
}

func strictProblem(s *strictNode, ctx []string) string {
	if bool(s.Type) || s.Properties.ok {
		if !s.AdditionalProperties {
			return fmt.Sprintf("In context=%s, 'additionalProperties' is required to be supplied and to be false.", pyTuple(ctx))
		}
		keys := sortedNames(s.Properties.m)
		for _, k := range keys {
			if !slices.Contains(s.Required, k) {
				return fmt.Sprintf("In context=%s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", pyTuple(ctx), k)
			}
		}
		for _, k := range keys {
			if sub := s.Properties.m[k]; sub != nil {
				if msg := strictProblem(sub, append(ctx, "properties", k)); msg != "" {
					return msg
				}
			}
		}
	}
	if s.Items.node != nil {
		return strictProblem(s.Items.node, append(ctx, "items"))
	}
	for _, d := range []struct {
		key  string
		defs strictMembers
	}{{"$defs", s.Defs}, {"definitions", s.Definitions}} {
		for _, k := range sortedNames(d.defs.m) {
			if sub := d.defs.m[k]; sub != nil {
				if msg := strictProblem(sub, append(ctx, d.key, k)); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

// isString reports whether v is the JSON string want (escapes decoded).
func isString(v jsontext.Value, want string) bool {
	if v.Kind() != '"' {
		return false
	}
	if string(v) == `"`+want+`"` {
		return true
	}
	s, err := jsontext.AppendUnquote(nil, v)
	return err == nil && string(s) == want
}

// sortedNames are m's keys in order; the API reports the first it finds
// wrong in that order.
func sortedNames(m map[string]*strictNode) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

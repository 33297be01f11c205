package anthropic

//go:generate go run ./internal/wiregen

import (
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The request structs are generated from the SDK (wire_gen.go); the types
// here are the forms the API accepts beyond what the SDK sends, and the
// helpers the generated unions call.

// contentUnion is messages[].content: a string or a list of blocks (the SDK
// always sends the list).
type contentUnion struct {
	String *string              `kind:"\""`
	Blocks []wContentBlockUnion `kind:"["`
}

func (c *contentUnion) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		return decodeValue(dec, &c.String)
	case '[':
		return decodeValue(dec, &c.Blocks)
	case 'n':
		return skipNull(dec)
	}
	return wrongKind(dec, `"[`)
}

// systemUnion is the top-level system prompt: a string or text blocks.
type systemUnion struct {
	String *string      `kind:"\""`
	Blocks []wTextBlock `kind:"["`
}

func (s *systemUnion) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		return decodeValue(dec, &s.String)
	case '[':
		return decodeValue(dec, &s.Blocks)
	case 'n':
		return skipNull(dec)
	}
	return wrongKind(dec, `"[`)
}

// toolResultContent is tool_result.content: a string or a list of items.
type toolResultContent struct {
	String *string      `kind:"\""`
	Items  []resultItem `kind:"["`
}

func (c *toolResultContent) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		return decodeValue(dec, &c.String)
	case '[':
		return decodeValue(dec, &c.Items)
	case 'n':
		return skipNull(dec)
	}
	return wrongKind(dec, `"[`)
}

// resultItem is one item of a tool_result's content list. An item of a
// known type is decoded strictly; an unknown or missing type is kept for
// the tool-result-content-type rule, which answers it in its own words.
type resultItem struct {
	Tag    string
	HasTag bool
	Raw    jsontext.Value
	Block  wToolResultBlockContentUnion
}

func (it *resultItem) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return wrongKind(dec, "{")
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	it.Raw = raw.Clone()
	tag, ok := wirejson.TypeTag(raw)
	if !ok {
		return nil
	}
	it.Tag, it.HasTag = tag, true
	for _, t := range wToolResultBlockContentUnionTags {
		if t == tag {
			return decodeAt(raw, dec, &it.Block)
		}
	}
	return nil
}

func decodeValue[T any](dec *jsontext.Decoder, v *T) error {
	return json.UnmarshalDecode(dec, v)
}

func skipNull(dec *jsontext.Decoder) error {
	_, err := dec.ReadToken()
	return err
}

// wrongKind consumes a value no variant of a union takes and explains it
// with the message of the form the API would have wanted.
func wrongKind(dec *jsontext.Decoder, kinds string) error {
	if _, err := dec.ReadValue(); err != nil {
		return err
	}
	switch {
	case strings.Contains(kinds, "["):
		return &wirejson.InvalidError{Message: notList}
	case strings.Contains(kinds, "{"):
		return &wirejson.InvalidError{Message: notObject}
	case strings.Contains(kinds, `"`):
		return &wirejson.InvalidError{Message: notString}
	case strings.Contains(kinds, "t"):
		return &wirejson.InvalidError{Message: notBool}
	}
	return &wirejson.InvalidError{Message: notNumber}
}

// decodeTagged reads an object of a discriminated union: the "type" member
// picks the variant (def when the object has none, "" if one is needed),
// which is then decoded with the same options as the whole body.
func decodeTagged(dec *jsontext.Decoder, tagOut *string, def string, tags []string, pick func(string) any) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	tag, ok, present := wirejson.TypeMember(raw)
	if !ok {
		if def == "" || present {
			return &wirejson.InvalidError{Message: "Unable to extract tag using discriminator 'type'"}
		}
		tag = def
	}
	*tagOut = tag
	v := pick(tag)
	if v == nil {
		return &wirejson.InvalidError{Message: tagMismatch(tag, tags)}
	}
	return decodeAt(raw, dec, v)
}

// decodeAt decodes raw, the value dec has just read, into v; an error's
// pointer is made absolute (from dec's, built only then), so the whole
// body's error names the member's path.
func decodeAt(raw jsontext.Value, dec *jsontext.Decoder, v any) error {
	// Only the option that differs between strict and lenient decoding is
	// carried over: the outer decoder's flags belong to its own call.
	err := json.Unmarshal(raw, v, wirejson.Again(dec.Options()))
	if se, ok := err.(*json.SemanticError); ok {
		se.JSONPointer = dec.StackPointer() + se.JSONPointer
	}
	return err
}

// tagMismatch is pydantic's discriminated-union message, which the API
// passes through.
func tagMismatch(tag string, tags []string) string {
	return "Input tag '" + tag + "' found using 'type' does not match any of the expected tags: " + tagList(tags)
}

package gemini

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// structuredText is the final answer's text as the API sends it for a
// structured-output request: the model's JSON value with its keys laid
// out in the schema's order, or for text/x.enum the chosen value as
// plain text. Text that is not JSON (a stop sequence or the token limit
// cut it) is sent as it is.
func structuredText(r *Request, out *conv.Output, text string) string {
	if out == nil || !json.Valid([]byte(text)) {
		return text
	}
	if g := r.GenerationConfig; g != nil && strings.EqualFold(strings.TrimSpace(g.ResponseMIMEType), mimeEnum) {
		// The answer is the value itself, not a JSON string: the guide's
		// enum examples print a bare value
		// (https://ai.google.dev/gemini-api/docs/structured-output).
		var s string
		if json.Unmarshal([]byte(text), &s) == nil {
			return s
		}
		return text
	}
	if len(out.Schema) == 0 {
		return text
	}
	return orderKeys(text, out.Schema)
}

// keyOrder is where an object schema puts its keys: the propertyOrdering
// list first, then its properties in the order the schema writes them.
// Gemini 2.5 and later keep a JSON Schema's key order ("the API now
// preserves the same order as the ordering of keys in the schema",
// https://blog.google/technology/developers/gemini-api-structured-outputs);
// a responseSchema reaches here converted, its written order lost, so
// without propertyOrdering its keys come in name order (propertyOrdering
// is how the docs say to fix the order of a responseSchema,
// https://ai.google.dev/gemini-api/docs/structured-output#property-ordering).
type keyOrder struct {
	keys  []string
	props map[string]*keyOrder
	items *keyOrder
}

// readKeyOrder reads the properties, propertyOrdering and items of a
// schema; anything else (anyOf, $ref) leaves its values' keys in name
// order. One decoder walks the whole schema, so each byte is read once
// however deep the schema nests.
func readKeyOrder(raw jsontext.Value) *keyOrder {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	k, _ := readSchemaOrder(dec)
	return k
}

// readSchemaOrder reads one schema value from dec: an object yields its
// key order, anything else is skipped.
func readSchemaOrder(dec *jsontext.Decoder) (*keyOrder, error) {
	if dec.PeekKind() != '{' {
		return nil, dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	k := &keyOrder{}
	var ordering, declared []string
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return k, err
		}
		switch tok.String() {
		case "properties":
			declared, k.props, err = readPropertiesOrder(dec)
		case "propertyOrdering":
			var v jsontext.Value
			if v, err = dec.ReadValue(); err == nil {
				_ = json.Unmarshal(v, &ordering)
			}
		case "items":
			k.items, err = readSchemaOrder(dec)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return k, err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return k, err
	}
	seen := make(map[string]bool, len(declared))
	for _, name := range slices.Concat(ordering, declared) {
		if !seen[name] {
			seen[name] = true
			k.keys = append(k.keys, name)
		}
	}
	return k, nil
}

// readPropertiesOrder reads a properties object: its names in the order
// written and each one's key order.
func readPropertiesOrder(dec *jsontext.Decoder) ([]string, map[string]*keyOrder, error) {
	if dec.PeekKind() != '{' {
		return nil, nil, dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, err
	}
	var names []string
	props := map[string]*keyOrder{}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return names, props, err
		}
		name := tok.String() // a token is only valid until the next read
		sub, err := readSchemaOrder(dec)
		if err != nil {
			return names, props, err
		}
		names = append(names, name)
		props[name] = sub
	}
	_, err := dec.ReadToken()
	return names, props, err
}

// orderKeys rewrites a JSON text with its objects' keys in the schema's
// order (keys the schema does not place follow, in name order).
func orderKeys(text string, schema json.RawMessage) string {
	if t := strings.TrimSpace(text); t == "" || (t[0] != '{' && t[0] != '[') {
		return text // a scalar has no keys to order
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return text
	}
	var b bytes.Buffer
	if writeOrdered(&b, v, readKeyOrder(jsontext.Value(schema))) != nil {
		return text
	}
	return b.String()
}

func writeOrdered(b *bytes.Buffer, v any, k *keyOrder) error {
	switch v := v.(type) {
	case map[string]any:
		var keys []string
		placed := map[string]bool{}
		if k != nil {
			for _, name := range k.keys {
				if _, ok := v[name]; ok {
					keys = append(keys, name)
					placed[name] = true
				}
			}
		}
		var rest []string
		for name := range v {
			if !placed[name] {
				rest = append(rest, name)
			}
		}
		sort.Strings(rest)
		b.WriteByte('{')
		for i, name := range append(keys, rest...) {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, err := json.Marshal(name)
			if err != nil {
				return err
			}
			b.Write(kb)
			b.WriteByte(':')
			var sub *keyOrder
			if k != nil {
				sub = k.props[name]
			}
			if err := writeOrdered(b, v[name], sub); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case []any:
		var sub *keyOrder
		if k != nil {
			sub = k.items
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeOrdered(b, e, sub); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(vb)
	return nil
}

package openairesp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// The fast decoders below fill Request, Tool and Item from JSON already
// known to be valid, without encoding/json's reflection, giving exactly
// what json.Unmarshal would. They accept only the well-typed common case
// and report false on anything else (a value of the wrong JSON type, a key
// that json.Unmarshal would match case-insensitively, or a key that is not
// plain ASCII: escaped keys are rare, and json.Unmarshal resolves them);
// the caller then runs decodeObject, whose result and error messages stay
// the reference. Objects are walked member by member (jsonscan.Members),
// each key compared as sent, so no list of members and no key strings are
// built.
// Members are applied in the order sent, as json.Unmarshal does, so a
// repeated key behaves the same (null leaves a string field unchanged and
// clears a pointer).
//
// Raw fields are spans of the bytes given, not copies: the request body
// lives, unchanged, as long as the request (the journal keeps it), and
// what outlives the request — the input items a stored response keeps —
// is decoded from its own copy of the input array (decodeInput).

// fieldKeys are the JSON names of each struct, to spot keys that only a
// case-insensitive match would take.
var (
	requestKeys = []string{"model", "input", "instructions", "tools", "tool_choice", "previous_response_id", "store", "include", "stream", "parallel_tool_calls", "max_output_tokens", "metadata", "reasoning", "text"}
	toolKeys    = []string{"type", "name", "description", "parameters", "strict"}
	itemKeys    = []string{"type", "id", "role", "content", "status", "call_id", "name", "arguments", "output", "encrypted_content", "summary"}
)

// foldsOnto reports a key that differs from every name yet equals one
// case-insensitively (json.Unmarshal would fill that field).
func foldsOnto(key string, names []string) bool {
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}

// otherKey accepts a member none of the struct's fields takes: a plain
// key json.Unmarshal would not match to a field either. Anything else is
// left to json.Unmarshal.
func otherKey(rawKey []byte, names []string) bool {
	return jsonscan.PlainKey(rawKey) && !foldsOnto(string(rawKey), names)
}

// stringOf is json.Unmarshal into a string for a string literal span of a
// validated body: an escaped string is unquoted directly, as encoding/json
// unquotes it, rather than through json.Unmarshal's reflection (call
// arguments and outputs are JSON inside a string, full of \" escapes).
func stringOf(v []byte) string {
	if bytes.IndexByte(v, '\\') >= 0 {
		return jsonscan.UnquoteEscaped(v)
	}
	return jsonscan.String(v)
}

// toString is jsonscan.ToString (json.Unmarshal into a string: the string
// and true, "" and true for null, false for anything else) for a value of
// a validated body, with escaped strings unquoted by stringOf.
func toString(v []byte) (string, bool) {
	if v = jsonscan.Trim(v); len(v) > 0 && v[0] == '"' {
		return stringOf(v), true
	}
	return jsonscan.ToString(v)
}

// stringValue is toString's string alone ("" for anything else).
func stringValue(v []byte) string {
	s, _ := toString(v)
	return s
}

// setString is json.Unmarshal into a string field: null leaves it as is.
func setString(dst *string, v []byte) bool {
	if jsonscan.IsNull(v) {
		return true
	}
	if len(v) == 0 || v[0] != '"' {
		return false
	}
	*dst = stringOf(v)
	return true
}

// setStringPtr is json.Unmarshal into a *string field: null clears it.
func setStringPtr(dst **string, v []byte) bool {
	if jsonscan.IsNull(v) {
		*dst = nil
		return true
	}
	if len(v) == 0 || v[0] != '"' {
		return false
	}
	s := stringOf(v)
	*dst = &s
	return true
}

// setBoolPtr is json.Unmarshal into a *bool field: null clears it.
func setBoolPtr(dst **bool, v []byte) bool {
	if jsonscan.IsNull(v) {
		*dst = nil
		return true
	}
	b, ok := jsonscan.Bool(v)
	if !ok {
		return false
	}
	*dst = &b
	return true
}

// rawElements splits an array value into its element spans, nil for null
// (as json.Unmarshal leaves a slice for null); ok is false for any other
// kind of value.
func rawElements(v []byte) ([]json.RawMessage, bool) {
	if jsonscan.IsNull(v) {
		return nil, true
	}
	elems, ok := jsonscan.ArrayElements(v)
	if !ok {
		return nil, false
	}
	out := make([]json.RawMessage, 0, elems.Len())
	for e, more := elems.Next(); more; e, more = elems.Next() {
		out = append(out, e)
	}
	return out, true
}

// fastRequest decodes a whole body; it validates it first, as
// json.Unmarshal does.
func fastRequest(body []byte, req *Request) bool {
	if !jsonscan.Valid(body) {
		return false
	}
	members, ok := jsonscan.ObjectMembers(body)
	if !ok {
		return false
	}
	var r Request
	for key, v, more := members.Next(); more; key, v, more = members.Next() {
		ok := true
		switch string(key) {
		case "model":
			ok = setString(&r.Model, v)
		case "input":
			r.Input = v
		case "instructions":
			r.Instructions = v
		case "tools":
			r.ToolsRaw, ok = rawElements(v)
		case "tool_choice":
			r.ToolChoice = v
		case "previous_response_id":
			ok = setStringPtr(&r.PreviousResponseID, v)
		case "store":
			ok = setBoolPtr(&r.Store, v)
		case "include":
			var elems []json.RawMessage
			if elems, ok = rawElements(v); ok {
				r.Include = nil
				if elems != nil {
					r.Include = make([]string, len(elems))
				}
				for i, e := range elems {
					if len(e) == 0 || e[0] != '"' {
						return false
					}
					r.Include[i] = stringOf(e)
				}
			}
		case "stream":
			if !jsonscan.IsNull(v) {
				r.Stream, ok = jsonscan.Bool(v)
			}
		case "parallel_tool_calls":
			ok = setBoolPtr(&r.ParallelToolCalls, v)
		case "max_output_tokens":
			r.MaxOutputTokens = v
		case "metadata":
			r.Metadata = v
		case "reasoning":
			r.Reasoning = v
		case "text":
			r.Text = v
		default:
			ok = otherKey(key, requestKeys)
		}
		if !ok {
			return false
		}
	}
	*req = r
	return true
}

// fastTool decodes one element of tools (a span of the validated body).
func fastTool(raw []byte, t *Tool) bool {
	members, ok := jsonscan.ObjectMembers(raw)
	if !ok {
		return false
	}
	var out Tool
	for key, v, more := members.Next(); more; key, v, more = members.Next() {
		ok := true
		switch string(key) {
		case "type":
			ok = setString(&out.Type, v)
		case "name":
			ok = setStringPtr(&out.Name, v)
		case "description":
			ok = setStringPtr(&out.Description, v)
		case "parameters":
			out.Parameters = v
		case "strict":
			ok = setBoolPtr(&out.Strict, v)
		default:
			ok = otherKey(key, toolKeys)
		}
		if !ok {
			return false
		}
	}
	*t = out
	return true
}

// fastItem decodes one input item (a span of the validated body).
func fastItem(raw []byte, it *Item) bool {
	members, ok := jsonscan.ObjectMembers(raw)
	if !ok {
		return false
	}
	var out Item
	for key, v, more := members.Next(); more; key, v, more = members.Next() {
		ok := true
		switch string(key) {
		case "type":
			ok = setString(&out.Type, v)
		case "id":
			ok = setString(&out.ID, v)
		case "role":
			ok = setString(&out.Role, v)
		case "content":
			out.Content = v
		case "status":
			ok = setString(&out.Status, v)
		case "call_id":
			ok = setStringPtr(&out.CallID, v)
		case "name":
			ok = setStringPtr(&out.Name, v)
		case "arguments":
			out.Arguments = v
		case "output":
			out.Output = v
		case "encrypted_content":
			ok = setStringPtr(&out.EncryptedContent, v)
		case "summary":
			out.Summary = v
		default:
			ok = otherKey(key, itemKeys)
		}
		if !ok {
			return false
		}
	}
	*it = out
	return true
}

package openairesp

import (
	"encoding/json"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// The fast decoders below fill Request, Tool and Item from JSON already
// known to be valid, without encoding/json's reflection, giving exactly
// what json.Unmarshal would. They accept only the well-typed common case
// and report false on anything else (a value of the wrong JSON type, or a
// key that json.Unmarshal would match case-insensitively); the caller then
// runs decodeObject, whose result and error messages stay the reference.
// Members are applied in the order sent, as json.Unmarshal does, so a
// repeated key behaves the same (null leaves a string field unchanged and
// clears a pointer).

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

// setString is json.Unmarshal into a string field: null leaves it as is.
func setString(dst *string, v []byte) bool {
	if jsonscan.IsNull(v) {
		return true
	}
	if len(v) == 0 || v[0] != '"' {
		return false
	}
	*dst = jsonscan.String(v)
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
	s := jsonscan.String(v)
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

// fastRequest decodes a whole body; it validates it first, as
// json.Unmarshal does.
func fastRequest(body []byte, req *Request) bool {
	if !jsonscan.Valid(body) {
		return false
	}
	obj, ok := jsonscan.ParseObject(body)
	if !ok || obj == nil {
		return false
	}
	var r Request
	for _, f := range obj {
		v := f.Value
		ok := true
		switch f.Key {
		case "model":
			ok = setString(&r.Model, v)
		case "input":
			r.Input = jsonscan.Clone(v)
		case "instructions":
			r.Instructions = jsonscan.Clone(v)
		case "tools":
			if jsonscan.IsNull(v) {
				r.ToolsRaw = nil
				continue
			}
			elems, isArray := jsonscan.ParseArray(v)
			if !isArray {
				return false
			}
			r.ToolsRaw = make([]json.RawMessage, len(elems))
			for i, e := range elems {
				r.ToolsRaw[i] = jsonscan.Clone(e)
			}
		case "tool_choice":
			r.ToolChoice = jsonscan.Clone(v)
		case "previous_response_id":
			ok = setStringPtr(&r.PreviousResponseID, v)
		case "store":
			ok = setBoolPtr(&r.Store, v)
		case "include":
			if jsonscan.IsNull(v) {
				r.Include = nil
				continue
			}
			elems, isArray := jsonscan.ParseArray(v)
			if !isArray {
				return false
			}
			r.Include = make([]string, len(elems))
			for i, e := range elems {
				if len(e) == 0 || e[0] != '"' {
					return false
				}
				r.Include[i] = jsonscan.String(e)
			}
		case "stream":
			if !jsonscan.IsNull(v) {
				r.Stream, ok = jsonscan.Bool(v)
			}
		case "parallel_tool_calls":
			ok = setBoolPtr(&r.ParallelToolCalls, v)
		case "max_output_tokens":
			r.MaxOutputTokens = jsonscan.Clone(v)
		case "metadata":
			r.Metadata = jsonscan.Clone(v)
		case "reasoning":
			r.Reasoning = jsonscan.Clone(v)
		case "text":
			r.Text = jsonscan.Clone(v)
		default:
			ok = !foldsOnto(f.Key, requestKeys)
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
	obj, ok := jsonscan.ParseObject(raw)
	if !ok || obj == nil {
		return false
	}
	var out Tool
	for _, f := range obj {
		v := f.Value
		ok := true
		switch f.Key {
		case "type":
			ok = setString(&out.Type, v)
		case "name":
			ok = setStringPtr(&out.Name, v)
		case "description":
			ok = setStringPtr(&out.Description, v)
		case "parameters":
			out.Parameters = jsonscan.Clone(v)
		case "strict":
			ok = setBoolPtr(&out.Strict, v)
		default:
			ok = !foldsOnto(f.Key, toolKeys)
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
	obj, ok := jsonscan.ParseObject(raw)
	if !ok || obj == nil {
		return false
	}
	var out Item
	for _, f := range obj {
		v := f.Value
		ok := true
		switch f.Key {
		case "type":
			ok = setString(&out.Type, v)
		case "id":
			ok = setString(&out.ID, v)
		case "role":
			ok = setString(&out.Role, v)
		case "content":
			out.Content = jsonscan.Clone(v)
		case "status":
			ok = setString(&out.Status, v)
		case "call_id":
			ok = setStringPtr(&out.CallID, v)
		case "name":
			ok = setStringPtr(&out.Name, v)
		case "arguments":
			out.Arguments = jsonscan.Clone(v)
		case "output":
			out.Output = jsonscan.Clone(v)
		case "encrypted_content":
			ok = setStringPtr(&out.EncryptedContent, v)
		case "summary":
			out.Summary = jsonscan.Clone(v)
		default:
			ok = !foldsOnto(f.Key, itemKeys)
		}
		if !ok {
			return false
		}
	}
	*it = out
	return true
}

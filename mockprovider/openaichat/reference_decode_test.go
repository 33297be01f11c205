package openaichat

import (
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The generic-map message decoder that decode.go replaced, kept as the
// reference the span decoder is held to (FuzzDecodeMatchesReference):
// referenceDecodeRequest decodes the body with jsonscan.AnyNumber and reads
// each message from the maps with the functions below.

func refDecodeMessage(i int, raw any) (Message, *wire.APIError) {
	path := "messages[" + strconv.Itoa(i) + "]"
	m := Message{Index: i}
	obj, ok := raw.(map[string]any)
	if !ok {
		return m, invalidType(path, "an object", raw)
	}
	if v, ok := obj["role"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return m, invalidType(path+".role", "a string", v)
		}
		if !oneOf(s, roles) {
			return m, invalidValue(path+".role", s, roles)
		}
		m.Role, m.HasRole = s, true
	}
	if v, ok := obj["content"]; ok && v != nil {
		m.HasContent = true
		switch c := v.(type) {
		case string:
			m.Text = c
		case []any:
			m.ContentIsArray = true
			for j, p := range c {
				part, err := refDecodePart(path+".content["+strconv.Itoa(j)+"]", p)
				if err != nil {
					return m, err
				}
				m.Parts = append(m.Parts, part)
			}
		default:
			return m, invalidType(path+".content", "one of a string or array of objects", v)
		}
	}
	var err *wire.APIError
	if m.Refusal, _, err = refOptString(obj, "refusal", path, ""); err != nil {
		return m, err
	}
	if m.Name, _, err = refOptString(obj, "name", path, ""); err != nil {
		return m, err
	}
	if m.ToolCallID, m.HasToolCallID, err = refOptString(obj, "tool_call_id", path, ""); err != nil {
		return m, err
	}
	if v, ok := obj["tool_calls"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return m, invalidType(path+".tool_calls", "an array", v)
		}
		m.ToolCallsSent = true
		for j, rc := range arr {
			tc, err := refDecodeToolCall(path+".tool_calls["+strconv.Itoa(j)+"]", rc)
			if err != nil {
				return m, err
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
	}
	return m, nil
}

func refDecodePart(path string, raw any) (ContentPart, *wire.APIError) {
	var p ContentPart
	obj, ok := raw.(map[string]any)
	if !ok {
		return p, invalidType(path, "an object", raw)
	}
	var err *wire.APIError
	if p.Type, p.HasType, err = refOptString(obj, "type", path, ""); err != nil {
		return p, err
	}
	if p.HasType && !oneOf(p.Type, partTypes) {
		return p, invalidValue(path+".type", p.Type, partTypes)
	}
	if p.Text, _, err = refOptString(obj, "text", path, ""); err != nil {
		return p, err
	}
	if p.Refusal, _, err = refOptString(obj, "refusal", path, ""); err != nil {
		return p, err
	}
	if v, ok := obj["image_url"]; ok && v != nil {
		// The API takes {"url": …}; a bare string is an old client habit
		// that is accepted nowhere, so it is a type error.
		o, ok := v.(map[string]any)
		if !ok {
			return p, invalidType(path+".image_url", "an object", v)
		}
		if p.ImageURL, _, err = refOptString(o, "url", path, ".image_url"); err != nil {
			return p, err
		}
	}
	if v, ok := obj["input_audio"]; ok && v != nil {
		o, ok := v.(map[string]any)
		if !ok {
			return p, invalidType(path+".input_audio", "an object", v)
		}
		if p.AudioData, _, err = refOptString(o, "data", path, ".input_audio"); err != nil {
			return p, err
		}
		if p.AudioFormat, _, err = refOptString(o, "format", path, ".input_audio"); err != nil {
			return p, err
		}
	}
	if v, ok := obj["file"]; ok && v != nil {
		o, ok := v.(map[string]any)
		if !ok {
			return p, invalidType(path+".file", "an object", v)
		}
		if p.FileData, _, err = refOptString(o, "file_data", path, ".file"); err != nil {
			return p, err
		}
		if p.FileID, _, err = refOptString(o, "file_id", path, ".file"); err != nil {
			return p, err
		}
		if p.Filename, _, err = refOptString(o, "filename", path, ".file"); err != nil {
			return p, err
		}
	}
	return p, nil
}

func refDecodeToolCall(path string, raw any) (ToolCall, *wire.APIError) {
	var tc ToolCall
	obj, ok := raw.(map[string]any)
	if !ok {
		return tc, invalidType(path, "an object", raw)
	}
	var err *wire.APIError
	if tc.ID, tc.HasID, err = refOptString(obj, "id", path, ""); err != nil {
		return tc, err
	}
	if tc.Type, tc.HasType, err = refOptString(obj, "type", path, ""); err != nil {
		return tc, err
	}
	if tc.HasType && tc.Type != "function" && tc.Type != "custom" {
		return tc, invalidValue(path+".type", tc.Type, []string{"function", "custom"})
	}
	fn, ok := obj["function"]
	if !ok || fn == nil {
		return tc, nil
	}
	f, ok := fn.(map[string]any)
	if !ok {
		return tc, invalidType(path+".function", "an object", fn)
	}
	tc.HasFunction = true
	if tc.Name, tc.HasName, err = refOptString(f, "name", path, ".function"); err != nil {
		return tc, err
	}
	if a, ok := f["arguments"]; ok {
		tc.Arguments, tc.HasArguments = a, true
	}
	return tc, nil
}

// refOptString reads an optional string field; null counts as absent.
// The error's param is path+mid+"."+key, built only when needed: most
// fields are well-formed, and the paths cost more than the lookups.
func refOptString(obj map[string]any, key, path, mid string) (string, bool, *wire.APIError) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, invalidType(path+mid+"."+key, "a string", v)
	}
	return s, true, nil
}

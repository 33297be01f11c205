package rap

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

type kind int

const (
	kString kind = iota
	kStringOrNull
	kBool
	kArray
	kObject
	kInt
	kStrings // array of strings, at least one
	kAny
)

var kindNames = map[kind]string{kString: "a string", kStringOrNull: "a string or null", kBool: "a boolean", kArray: "an array",
	kObject: "an object", kInt: "an integer", kStrings: "a non-empty array of strings", kAny: "present"}

type fieldSpec struct {
	name     string
	kind     kind
	required bool
}

type problem struct{ path, msg string }

// fieldSpecs are the callback field tables of https://infinity.hydro.run/docs/rap/spec/basic/tool-result for a
// revision. tool_result's text is required in June 2026; in the newer
// revision text or content is (checked by checkContentItems).
func fieldSpecs(rev Revision) map[string][]fieldSpec {
	head := rev == RevisionHead
	result := []fieldSpec{{"type", kString, true}, {"group_id", kString, true}, {"id", kString, true},
		{"call_id", kStringOrNull, false}, {"text", kString, !head}, {"display_as", kArray, false}, {"subscription", kBool, false}}
	if head {
		result = append(result, fieldSpec{"content", kArray, false})
	}
	m := map[string][]fieldSpec{
		"tool_result": result,
		"subscription_event": {{"type", kString, true}, {"group_id", kString, true}, {"tool_call_id", kString, true},
			{"text", kString, true}, {"associative", kBool, false}, {"final", kBool, false}},
		"oauth": {{"type", kString, true}, {"group_id", kString, true}, {"id", kString, true},
			{"call_id", kStringOrNull, false}, {"auth_url", kString, true}},
	}
	if head {
		m["user_choice"] = []fieldSpec{{"type", kString, true}, {"group_id", kString, true}, {"id", kString, true},
			{"call_id", kStringOrNull, false}, {"prompt", kString, true}, {"choices", kStrings, true},
			{"default", kInt, false}, {"response_url", kString, true}}
		m["view_update"] = []fieldSpec{{"type", kString, true}, {"group_id", kString, true},
			{"view_type", kString, true}, {"content", kAny, true}}
	}
	return m
}

func checkFields(m msgFields, specs []fieldSpec) []problem {
	var out []problem
	for _, f := range specs {
		v, ok := m[f.name]
		if !ok {
			if f.required {
				out = append(out, problem{f.name, "required field is missing"})
			}
			continue
		}
		if !hasKind(v, f.kind) {
			out = append(out, problem{f.name, "must be " + kindNames[f.kind]})
		}
	}
	if _, ok := m["choices"]; ok && len(out) == 0 {
		var choices []string
		var def int
		_ = json.Unmarshal(m["choices"], &choices)
		if d, ok := m["default"]; ok && json.Unmarshal(d, &def) == nil && (def < 0 || def >= len(choices)) {
			out = append(out, problem{"default", fmt.Sprintf("index %d is outside choices (%d)", def, len(choices))})
		}
	}
	return out
}

func hasKind(v json.RawMessage, k kind) bool {
	if len(v) == 0 {
		return false
	}
	switch k {
	case kString:
		return v[0] == '"'
	case kStringOrNull:
		return v[0] == '"' || string(v) == "null"
	case kBool:
		return string(v) == "true" || string(v) == "false"
	case kArray:
		return v[0] == '['
	case kObject:
		return v[0] == '{'
	case kInt:
		var n int64
		return json.Unmarshal(v, &n) == nil
	case kStrings:
		var s []string
		return v[0] == '[' && json.Unmarshal(v, &s) == nil && len(s) > 0
	}
	return string(v) != "null"
}

// checkContentItems validates the newer revision's content array and the
// "text or content" requirement.
func checkContentItems(m msgFields) []problem {
	raw, hasContent := m["content"]
	if _, hasText := m["text"]; !hasText && !hasContent {
		return []problem{{"text", "a tool_result must carry text or content"}}
	}
	if !hasContent {
		return nil
	}
	var items []msgFields
	if json.Unmarshal(raw, &items) != nil {
		return []problem{{"content", "must be an array of objects"}}
	}
	var out []problem
	for i, it := range items {
		p := fmt.Sprintf("content[%d]", i)
		var typ string
		_ = str(it, "type", &typ)
		switch typ {
		case "text":
			if !hasKind(it["text"], kString) {
				out = append(out, problem{p + ".text", "must be a string"})
			}
		case "image":
			var data string
			if !str(it, "data", &data) {
				out = append(out, problem{p + ".data", "must be a base64 string"})
			} else if _, err := base64.StdEncoding.DecodeString(data); err != nil {
				out = append(out, problem{p + ".data", "is not base64"})
			}
			if !hasKind(it["mediaType"], kString) {
				out = append(out, problem{p + ".mediaType", "must be a string"})
			}
		default:
			out = append(out, problem{p + ".type", "must be \"text\" or \"image\""})
		}
	}
	return out
}

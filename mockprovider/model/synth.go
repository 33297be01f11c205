package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Synthesize makes arguments that validate against a tool's JSON Schema:
// every required property, honouring const, enum, default, examples, type,
// format, length and range bounds, local $refs and combinators. A schema it
// cannot read yields {}.
func Synthesize(schema json.RawMessage) map[string]any {
	var root map[string]any
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return map[string]any{}
	}
	s := synth{root: root}
	if v, ok := s.value(root, "", 0).(map[string]any); ok {
		return v
	}
	return map[string]any{}
}

type synth struct{ root map[string]any }

const maxDepth = 12

func (s synth) value(sch map[string]any, name string, depth int) any {
	if depth > maxDepth {
		return nil
	}
	if ref, ok := sch["$ref"].(string); ok {
		if target := s.resolve(ref); target != nil {
			return s.value(target, name, depth+1)
		}
	}
	if v, ok := sch["const"]; ok {
		return v
	}
	if e, ok := sch["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if v, ok := sch["default"]; ok {
		return v
	}
	if ex, ok := sch["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if v, ok := sch["example"]; ok {
		return v
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := sch[k].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && typeOf(m) != "null" {
					return s.value(merge(sch, m, k), name, depth+1)
				}
			}
		}
	}
	if all, ok := sch["allOf"].([]any); ok {
		merged := merge(sch, nil, "allOf")
		for _, a := range all {
			if m, ok := a.(map[string]any); ok {
				if ref, ok := m["$ref"].(string); ok {
					if t := s.resolve(ref); t != nil {
						m = t
					}
				}
				merged = mergeInto(merged, m)
			}
		}
		return s.value(merged, name, depth+1)
	}
	switch typeOf(sch) {
	case "object":
		return s.object(sch, depth)
	case "array":
		return s.array(sch, name, depth)
	case "integer":
		return integer(sch)
	case "number":
		return number(sch)
	case "boolean":
		return true
	case "null":
		return nil
	case "string":
		return str(sch, name)
	}
	if _, ok := sch["properties"]; ok {
		return s.object(sch, depth)
	}
	if _, ok := sch["items"]; ok {
		return s.array(sch, name, depth)
	}
	return str(sch, name)
}

func (s synth) resolve(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	var cur any = s.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

// merge copies parent keywords except the combinator into a copy of child.
func merge(parent, child map[string]any, drop string) map[string]any {
	out := map[string]any{}
	for k, v := range parent {
		if k != drop {
			out[k] = v
		}
	}
	return mergeInto(out, child)
}

func mergeInto(dst, src map[string]any) map[string]any {
	for k, v := range src {
		switch k {
		case "properties":
			props, _ := dst["properties"].(map[string]any)
			np := map[string]any{}
			for pk, pv := range props {
				np[pk] = pv
			}
			if sp, ok := v.(map[string]any); ok {
				for pk, pv := range sp {
					np[pk] = pv
				}
			}
			dst["properties"] = np
		case "required":
			req, _ := dst["required"].([]any)
			if sr, ok := v.([]any); ok {
				req = append(append([]any(nil), req...), sr...)
			}
			dst["required"] = req
		default:
			dst[k] = v
		}
	}
	return dst
}

func typeOf(sch map[string]any) string {
	switch t := sch["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			if s, ok := t[0].(string); ok {
				return s
			}
		}
	}
	return ""
}

func (s synth) object(sch map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := sch["properties"].(map[string]any)
	req, _ := sch["required"].([]any)
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			continue
		}
		ps, _ := props[name].(map[string]any)
		if ps == nil {
			ps = map[string]any{}
		}
		out[name] = s.value(ps, name, depth+1)
	}
	// Fill up to minProperties with declared optional properties.
	minP := intOf(sch["minProperties"], 0)
	for _, name := range sortedKeys(props) {
		if len(out) >= minP {
			break
		}
		if _, done := out[name]; !done {
			ps, _ := props[name].(map[string]any)
			out[name] = s.value(ps, name, depth+1)
		}
	}
	return out
}

func (s synth) array(sch map[string]any, name string, depth int) []any {
	n := intOf(sch["minItems"], 1)
	if max := intOf(sch["maxItems"], -1); max >= 0 && n > max {
		n = max
	}
	out := make([]any, 0, n)
	if prefix, ok := sch["prefixItems"].([]any); ok {
		for _, p := range prefix {
			if m, ok := p.(map[string]any); ok && len(out) < max(n, len(prefix)) {
				out = append(out, s.value(m, name, depth+1))
			}
		}
	}
	item, _ := sch["items"].(map[string]any)
	for len(out) < n {
		if item == nil {
			out = append(out, "item")
			continue
		}
		v := s.value(item, name, depth+1)
		// uniqueItems: vary integers and strings so copies differ.
		if len(out) > 0 {
			switch x := v.(type) {
			case string:
				v = fmt.Sprintf("%s%d", x, len(out))
			case int64:
				v = x + int64(len(out))
			case float64:
				v = x + float64(len(out))
			}
		}
		out = append(out, v)
	}
	return out
}

func integer(sch map[string]any) int64 {
	lo, hasLo := numOf(sch["minimum"])
	if x, ok := numOf(sch["exclusiveMinimum"]); ok {
		lo, hasLo = math.Floor(x)+1, true
	}
	hi, hasHi := numOf(sch["maximum"])
	if x, ok := numOf(sch["exclusiveMaximum"]); ok {
		hi, hasHi = math.Ceil(x)-1, true
	}
	v := 1.0
	if hasLo {
		v = math.Ceil(lo)
	} else if hasHi && hi < v {
		v = math.Floor(hi)
	}
	if m, ok := numOf(sch["multipleOf"]); ok && m > 0 {
		v = math.Ceil(v/m) * m
	}
	return int64(v)
}

func number(sch map[string]any) float64 {
	lo, hasLo := numOf(sch["minimum"])
	if x, ok := numOf(sch["exclusiveMinimum"]); ok {
		lo, hasLo = x+0.5, true
	}
	hi, hasHi := numOf(sch["maximum"])
	if x, ok := numOf(sch["exclusiveMaximum"]); ok {
		hi, hasHi = x-0.5, true
	}
	v := 1.5
	if hasLo && hasHi {
		v = lo + (hi-lo)/2
	} else if hasLo {
		v = lo
	} else if hasHi && hi < v {
		v = hi
	}
	if m, ok := numOf(sch["multipleOf"]); ok && m > 0 {
		v = math.Ceil(v/m) * m
	}
	return v
}

var formatSamples = map[string]string{
	"date-time":     "2026-01-02T15:04:05Z",
	"date":          "2026-01-02",
	"time":          "15:04:05Z",
	"duration":      "P1D",
	"email":         "user@example.com",
	"idn-email":     "user@example.com",
	"hostname":      "example.com",
	"idn-hostname":  "example.com",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"uri":           "https://example.com/resource",
	"uri-reference": "https://example.com/resource",
	"iri":           "https://example.com/resource",
	"url":           "https://example.com/resource",
	"uuid":          "123e4567-e89b-42d3-a456-426614174000",
	"regex":         "^[a-z]+$",
	"json-pointer":  "/a/b",
}

func str(sch map[string]any, name string) string {
	if f, ok := sch["format"].(string); ok {
		if v, ok := formatSamples[f]; ok {
			return v
		}
	}
	v := sampleFor(name)
	if p, ok := sch["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			v = fromPattern(re, v)
		}
	}
	minL, maxL := intOf(sch["minLength"], 0), intOf(sch["maxLength"], -1)
	for len([]rune(v)) < minL {
		v += "x"
	}
	if maxL >= 0 && len([]rune(v)) > maxL {
		v = string([]rune(v)[:maxL])
	}
	return v
}

// sampleFor picks a plausible value from a property name, so default-mode
// calls read naturally in logs ("city": "Paris").
func sampleFor(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "city") || strings.Contains(n, "location"):
		return "Paris"
	case strings.Contains(n, "country"):
		return "France"
	case strings.Contains(n, "email"):
		return "user@example.com"
	case strings.Contains(n, "url"):
		return "https://example.com"
	case strings.Contains(n, "path") || strings.Contains(n, "file"):
		return "src/main.go"
	case strings.Contains(n, "query") || strings.Contains(n, "text") || strings.Contains(n, "prompt"):
		return "hello"
	case n == "":
		return "value"
	}
	return "sample " + name
}

// fromPattern tries a few candidates against a pattern the sample missed.
func fromPattern(re *regexp.Regexp, fallback string) string {
	for _, c := range []string{"a", "abc", "A", "ABC", "1", "123", "a1", "abc123", "ABC-123", "x_y", "2026-01-02", "user@example.com", "https://example.com", "", "aaaaaaaa", "12345678"} {
		if re.MatchString(c) {
			return c
		}
	}
	return fallback
}

func numOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func intOf(v any, def int) int {
	if f, ok := numOf(v); ok {
		return int(f)
	}
	return def
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

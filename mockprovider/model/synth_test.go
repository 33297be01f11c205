package model

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/internal/localschema"
)

// synthSchemas is the property table: for every schema, Synthesize's
// output, sent as JSON, must validate (formats asserted).
var synthSchemas = map[string]string{
	"empty object":       `{"type":"object"}`,
	"no type, props":     `{"properties":{"a":{"type":"string"}},"required":["a"]}`,
	"all scalar types":   `{"type":"object","properties":{"s":{"type":"string"},"i":{"type":"integer"},"n":{"type":"number"},"b":{"type":"boolean"},"z":{"type":"null"}},"required":["s","i","n","b","z"]}`,
	"enum":               `{"type":"object","properties":{"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["unit"]}`,
	"enum numbers":       `{"type":"object","properties":{"level":{"type":"integer","enum":[3,5,8]}},"required":["level"]}`,
	"const":              `{"type":"object","properties":{"kind":{"const":"search"},"v":{"const":2}},"required":["kind","v"]}`,
	"default":            `{"type":"object","properties":{"limit":{"type":"integer","default":10,"minimum":1}},"required":["limit"]}`,
	"examples":           `{"type":"object","properties":{"q":{"type":"string","examples":["weather in Paris"]}},"required":["q"]}`,
	"format date-time":   `{"type":"object","properties":{"at":{"type":"string","format":"date-time"}},"required":["at"]}`,
	"format date":        `{"type":"object","properties":{"d":{"type":"string","format":"date"}},"required":["d"]}`,
	"format time":        `{"type":"object","properties":{"t":{"type":"string","format":"time"}},"required":["t"]}`,
	"format email":       `{"type":"object","properties":{"to":{"type":"string","format":"email"}},"required":["to"]}`,
	"format uri":         `{"type":"object","properties":{"u":{"type":"string","format":"uri"}},"required":["u"]}`,
	"format uuid":        `{"type":"object","properties":{"id":{"type":"string","format":"uuid"}},"required":["id"]}`,
	"format ipv4/ipv6":   `{"type":"object","properties":{"a":{"type":"string","format":"ipv4"},"b":{"type":"string","format":"ipv6"}},"required":["a","b"]}`,
	"format hostname":    `{"type":"object","properties":{"h":{"type":"string","format":"hostname"}},"required":["h"]}`,
	"format duration":    `{"type":"object","properties":{"p":{"type":"string","format":"duration"}},"required":["p"]}`,
	"format misc":        `{"type":"object","properties":{"a":{"type":"string","format":"json-pointer"},"b":{"type":"string","format":"relative-json-pointer"},"c":{"type":"string","format":"uri-reference"},"d":{"type":"string","format":"uri-template"},"e":{"type":"string","format":"regex"},"f":{"type":"string","format":"iri"},"g":{"type":"string","format":"idn-email"}},"required":["a","b","c","d","e","f","g"]}`,
	"min/max":            `{"type":"object","properties":{"a":{"type":"integer","minimum":5,"maximum":9},"b":{"type":"number","minimum":-3,"maximum":-2},"c":{"type":"integer","maximum":-4}},"required":["a","b","c"]}`,
	"exclusive bounds":   `{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":5},"b":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.1},"c":{"type":"integer","exclusiveMaximum":0},"d":{"type":"number","exclusiveMaximum":1.5}},"required":["a","b","c","d"]}`,
	"min and exclusive":  `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"exclusiveMinimum":10},"b":{"type":"number","minimum":20,"exclusiveMinimum":10}},"required":["a","b"]}`,
	"multipleOf":         `{"type":"object","properties":{"a":{"type":"integer","multipleOf":7,"minimum":10},"b":{"type":"number","multipleOf":0.1,"minimum":0.25},"c":{"type":"number","multipleOf":0.25,"exclusiveMinimum":1,"maximum":2},"d":{"type":"integer","multipleOf":5,"maximum":-1}},"required":["a","b","c","d"]}`,
	"string lengths":     `{"type":"object","properties":{"a":{"type":"string","minLength":20},"b":{"type":"string","maxLength":2},"c":{"type":"string","minLength":3,"maxLength":3}},"required":["a","b","c"]}`,
	"pattern":            `{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"},"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{2,4}$"},"slug":{"type":"string","pattern":"^[a-z]+(-[a-z]+)*$","minLength":8},"phone":{"type":"string","pattern":"^\\+?[1-9]\\d{1,14}$"},"alt":{"type":"string","pattern":"^(red|green|blue)$"}},"required":["zip","code","slug","phone","alt"]}`,
	"pattern unanchored": `{"type":"object","properties":{"p":{"type":"string","pattern":"ab+c"}},"required":["p"]}`,
	"arrays":             `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":3,"uniqueItems":true},"ids":{"type":"array","items":{"type":"integer","maximum":2},"minItems":2,"uniqueItems":true},"flags":{"type":"array","items":{"type":"boolean"},"minItems":2,"uniqueItems":true},"colors":{"type":"array","items":{"enum":["r","g","b"]},"minItems":3,"uniqueItems":true},"none":{"type":"array","maxItems":0},"nums":{"type":"array","items":{"type":"number","multipleOf":0.5},"minItems":2,"uniqueItems":true}},"required":["tags","ids","flags","colors","none","nums"]}`,
	"array of objects":   `{"type":"object","properties":{"rows":{"type":"array","minItems":2,"uniqueItems":true,"items":{"type":"object","properties":{"id":{"type":"integer"},"label":{"type":"string"}},"required":["id"]}}},"required":["rows"]}`,
	"tuple":              `{"type":"object","properties":{"pt":{"type":"array","prefixItems":[{"type":"number"},{"type":"string","enum":["x"]}],"minItems":2,"items":false}},"required":["pt"]}`,
	"contains":           `{"type":"object","properties":{"l":{"type":"array","contains":{"const":"must"},"items":{"type":"string"}}},"required":["l"]}`,
	"nested":             `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"array","items":{"type":"object","properties":{"d":{"type":"string","format":"date"}},"required":["d"],"additionalProperties":false}}},"required":["c"]}},"required":["b"]}},"required":["a"]}`,
	"$ref/$defs":         `{"type":"object","$defs":{"addr":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string","pattern":"^\\d{5}$"}},"required":["city","zip"]}},"properties":{"home":{"$ref":"#/$defs/addr"},"list":{"type":"array","items":{"$ref":"#/$defs/addr"},"minItems":1}},"required":["home","list"]}`,
	"definitions ref":    `{"type":"object","definitions":{"n":{"type":"integer","minimum":100}},"properties":{"x":{"$ref":"#/definitions/n"}},"required":["x"]}`,
	"anyOf":              `{"type":"object","properties":{"v":{"anyOf":[{"type":"null"},{"type":"string","minLength":4}]}},"required":["v"]}`,
	"oneOf":              `{"type":"object","properties":{"v":{"oneOf":[{"type":"string","format":"email"},{"type":"integer","minimum":10}]}},"required":["v"]}`,
	"oneOf objects":      `{"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}`,
	"oneOf overlapping":  `{"type":"object","properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number"}]}},"required":["v"]}`,
	"allOf":              `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":3}},"required":["b"]}]}`,
	"allOf with ref":     `{"$defs":{"base":{"type":"object","properties":{"id":{"type":"string","format":"uuid"}},"required":["id"]}},"type":"object","properties":{"item":{"allOf":[{"$ref":"#/$defs/base"},{"properties":{"n":{"type":"integer"}},"required":["n"]}]}},"required":["item"]}`,
	"nullable":           `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":["null","integer"],"minimum":2},"c":{"type":["array","null"],"items":{"type":"number"}}},"required":["a","b","c"]}`,
	"strict mode":        `{"type":"object","additionalProperties":false,"properties":{"location":{"type":"string","description":"City"},"unit":{"type":["string","null"],"enum":["c","f",null]},"days":{"type":"integer"},"opts":{"type":"object","additionalProperties":false,"properties":{"hourly":{"type":"boolean"}},"required":["hourly"]}},"required":["location","unit","days","opts"]}`,
	"minProperties":      `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"minProperties":2}`,
	"minProperties open": `{"type":"object","minProperties":2,"additionalProperties":{"type":"integer"}}`,
	"dependentRequired":  `{"type":"object","properties":{"card":{"type":"string"},"cvv":{"type":"string","pattern":"^\\d{3}$"}},"required":["card"],"dependentRequired":{"card":["cvv"]}}`,
	"recursive":          `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":0}},"required":["name","children"]}},"$ref":"#/$defs/node"}`,
	"no-argument":        `{"type":"object","properties":{},"additionalProperties":false}`,
	"unicode lengths":    `{"type":"object","properties":{"name":{"type":"string","pattern":"^[À-ÿ]+$","minLength":2}},"required":["name"]}`,
}

func compileFor(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := localschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///s.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return s
}

func TestSynthesizeValidates(t *testing.T) {
	for name, schema := range synthSchemas {
		t.Run(name, func(t *testing.T) {
			s := compileFor(t, schema)
			args := Synthesize(json.RawMessage(schema))
			// Validate what travels: the JSON text, read back.
			b, err := json.Marshal(args)
			if err != nil {
				t.Fatalf("arguments do not encode: %v", err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err != nil {
				t.Errorf("Synthesize(%s) = %s, invalid:\n%v", schema, b, err)
			}
		})
	}
}

// The property table itself must catch a generator that ignores a
// keyword: a constant {} fails most entries.
func TestSynthesizeTableCatchesBadOutput(t *testing.T) {
	failures := 0
	for _, schema := range synthSchemas {
		s := compileFor(t, schema)
		if s.Validate(map[string]any{}) != nil {
			failures++
		}
	}
	if failures < len(synthSchemas)/2 {
		t.Fatalf("only %d of %d schemas reject {}: the table is too weak", failures, len(synthSchemas))
	}
}

func TestSynthesizeUnreadableSchema(t *testing.T) {
	for _, schema := range []string{``, `not json`, `[]`, `true`, `{"type":"string"}`} {
		got := Synthesize(json.RawMessage(schema))
		if got == nil || len(got) != 0 {
			t.Errorf("Synthesize(%q) = %v, want {}", schema, got)
		}
	}
}

func TestSynthesizeIsDeterministic(t *testing.T) {
	schema := json.RawMessage(synthSchemas["arrays"])
	a, _ := json.Marshal(Synthesize(schema))
	for range 5 {
		b, _ := json.Marshal(Synthesize(schema))
		if !bytes.Equal(a, b) {
			t.Fatalf("Synthesize differs between calls: %s vs %s", a, b)
		}
	}
}

func TestSynthesizeReadableSamples(t *testing.T) {
	got := Synthesize(json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`))
	if got["city"] != "Paris" {
		t.Errorf("city = %v, want a readable sample (Paris)", got["city"])
	}
}

package gemini

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/genai"
)

// The drift test holds the wire structs to google.golang.org/genai: every
// JSON field the SDK can send must be one the mock decodes, so a field a
// new SDK adds shows up here as a red test, never as a 400 in a user's
// face. The SDK's GenerateContentConfig is split by its converters
// (models.go, generateContentConfigToMldev/ToVertex) between the request
// and its generationConfig; everything below it is sent as it is.

// clientOnly are config fields the SDK keeps to itself.
var clientOnly = map[string]bool{"httpOptions": true, "automaticContinuation": true}

// renamed are config fields the converters write under another name.
var renamed = map[string]string{"generationOutputConfig": "outputConfig"}

// jsonFields lists a struct's JSON field names and types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = f.Type
	}
	return out
}

// structOf strips pointers, slices and maps down to a struct type (nil if
// there is none).
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		if t == reflect.TypeFor[jsontext.Value]() || t == reflect.TypeFor[Object]() || t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// drift reports the SDK fields of sdk (recursively) that wire lacks.
func drift(sdk, wire reflect.Type, at string, seen map[[2]reflect.Type]bool, missing *[]string) {
	if seen[[2]reflect.Type{sdk, wire}] {
		return
	}
	seen[[2]reflect.Type{sdk, wire}] = true
	have := jsonFields(wire)
	for name, st := range jsonFields(sdk) {
		if clientOnly[name] {
			continue
		}
		wt, ok := have[name]
		if !ok {
			*missing = append(*missing, at+"."+name)
			continue
		}
		s, w := structOf(st), structOf(wt)
		if s != nil && w != nil {
			drift(s, w, at+"."+name, seen, missing)
		}
	}
}

func TestWireKnowsEverySDKField(t *testing.T) {
	var missing []string
	seen := map[[2]reflect.Type]bool{}
	drift(reflect.TypeFor[genai.Content](), reflect.TypeFor[Content](), "contents[]", seen, &missing)
	drift(reflect.TypeFor[genai.GenerationConfig](), reflect.TypeFor[GenerationConfig](), "generationConfig", seen, &missing)
	drift(reflect.TypeFor[genai.CountTokensConfig](), reflect.TypeFor[CountTokensRequest](), "countTokens", seen, &missing)

	// GenerateContentConfig: each field lands on the request or in its
	// generationConfig.
	request, generation := jsonFields(reflect.TypeFor[Request]()), jsonFields(reflect.TypeFor[GenerationConfig]())
	for name, st := range jsonFields(reflect.TypeFor[genai.GenerateContentConfig]()) {
		if clientOnly[name] {
			continue
		}
		if to, ok := renamed[name]; ok {
			name = to
		}
		wt, ok := request[name]
		if !ok {
			wt, ok = generation[name]
		}
		if !ok {
			missing = append(missing, "config."+name)
			continue
		}
		if s, w := structOf(st), structOf(wt); s != nil && w != nil {
			drift(s, w, "config."+name, seen, &missing)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Fatalf("the SDK can send fields the wire structs do not know: %v", missing)
	}
}

// TestEveryWireFieldTakesBothNames: proto JSON takes camelCase and
// snake_case names alike, which the wire structs get from case:ignore.
func TestEveryWireFieldTakesBothNames(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(st reflect.Type) {
		if st == nil || seen[st] || st == reflect.TypeFor[Signature]() {
			return
		}
		seen[st] = true
		for i := range st.NumField() {
			f := st.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if !strings.Contains(tag, "case:ignore") {
				t.Errorf("%s.%s: tag %q lacks case:ignore", st.Name(), f.Name, tag)
			}
			walk(structOf(f.Type))
		}
	}
	walk(reflect.TypeFor[Request]())
	walk(reflect.TypeFor[CountTokensRequest]())
}

package openaichat

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/openai/openai-go/v3"
)

// TestWireKnowsEverySDKField fails when the official Go SDK can send a
// JSON member the wire structs do not define: a new SDK field shows up
// here, never as a 400 in a user's face.
func TestWireKnowsEverySDKField(t *testing.T) {
	sdk := jsonPaths(reflect.TypeFor[openai.ChatCompletionNewParams](), true)
	ours := jsonPaths(reflect.TypeFor[chatRequest](), false)
	var missing []string
	for p := range sdk {
		if !ours[p] {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		t.Errorf("openai-go v3 ChatCompletionNewParams sends %s; the wire structs do not know it", p)
	}
	if len(sdk) < 100 {
		t.Fatalf("only %d SDK paths found: the walk is broken", len(sdk))
	}
}

var unmarshalerFrom = reflect.TypeFor[json.UnmarshalerFrom]()

// jsonPaths lists every member path a type can carry: "messages[].content[].type".
// Union types are walked through all their variants at the same path: the
// SDK's (fields tagged `json:",inline"` named OfXxx) and ours (types with
// their own UnmarshalJSONFrom, whose fields are the forms they accept).
func jsonPaths(t reflect.Type, sdk bool) map[string]bool {
	out := map[string]bool{}
	var walk func(t reflect.Type, path string, depth int)
	walk = func(t reflect.Type, path string, depth int) {
		if depth > 12 {
			return
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice:
			walk(t.Elem(), path+"[]", depth+1)
			return
		case reflect.Struct:
		default:
			return
		}
		if strings.HasPrefix(t.Name(), "Opt[") {
			return // param.Opt[T]: a scalar
		}
		union := !sdk && reflect.PointerTo(t).Implements(unmarshalerFrom)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag, hasTag := f.Tag.Lookup("json")
			name, opts, _ := strings.Cut(tag, ",")
			switch {
			case union:
				walk(f.Type, path, depth+1)
			case !hasTag || name == "-":
			case name == "" && strings.Contains(opts, "inline"):
				walk(f.Type, path, depth+1) // an SDK union's variant
			case name != "":
				p := path + "." + name
				out[p] = true
				walk(f.Type, p, depth+1)
			}
		}
	}
	walk(t, "", 0)
	return out
}

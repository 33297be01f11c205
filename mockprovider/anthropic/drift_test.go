package anthropic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/go-json-experiment/json/jsontext"
)

// TestWireModelKnowsEverySDKField walks the official Go SDK's request
// param types (MessageNewParams, BetaMessageNewParams and their
// count_tokens forms) alongside the wire
// structs and fails for every JSON member the SDK can send that the wire
// model does not know: a new SDK field shows up here, not as a 400 in a
// user's face. Regenerate with `go generate ./mockprovider/anthropic`.
func TestWireModelKnowsEverySDKField(t *testing.T) {
	d := &drift{t: t, seen: map[[2]reflect.Type]bool{}}
	d.walk(reflect.TypeFor[anthropic.MessageNewParams](), requestType, "MessageNewParams")
	d.walk(reflect.TypeFor[anthropic.BetaMessageNewParams](), requestType, "BetaMessageNewParams")
	d.walk(reflect.TypeFor[anthropic.MessageCountTokensParams](), countTokensType, "MessageCountTokensParams")
	d.walk(reflect.TypeFor[anthropic.BetaMessageCountTokensParams](), countTokensType, "BetaMessageCountTokensParams")
	if d.fields < 500 {
		t.Fatalf("only %d SDK fields compared: the walk is not reaching the param types", d.fields)
	}
}

type drift struct {
	t      *testing.T
	seen   map[[2]reflect.Type]bool
	fields int
}

var rawType = reflect.TypeFor[jsontext.Value]()

const paramPkg = "github.com/anthropics/anthropic-sdk-go/v2/packages/param"

func sdkInner(t reflect.Type) reflect.Type {
	for {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case t.Kind() == reflect.Struct && t.PkgPath() == paramPkg && strings.HasPrefix(t.Name(), "Opt["):
			t = t.Field(0).Type
		default:
			return t
		}
	}
}

func sdkUnion(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if strings.HasPrefix(t.Field(i).Name, "Of") {
			return true
		}
	}
	return false
}

func sdkFreeForm(t reflect.Type) bool {
	if t.Kind() == reflect.Interface || (t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Interface) {
		return true
	}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("api") == "extrafields" {
				return true
			}
		}
	}
	return false
}

// jsonKind is the JSON kind an SDK type is sent as.
func jsonKind(t reflect.Type) byte {
	switch t.Kind() {
	case reflect.String:
		return '"'
	case reflect.Bool:
		return 't'
	case reflect.Slice:
		return '['
	case reflect.Struct, reflect.Map, reflect.Interface:
		return '{'
	}
	return '0'
}

// sdkTag is the "type" constant of an SDK variant struct.
func sdkTag(t reflect.Type) string {
	f, ok := t.FieldByName("Type")
	if !ok {
		return ""
	}
	if m, ok := f.Type.MethodByName("Default"); ok {
		return m.Func.Call([]reflect.Value{reflect.New(f.Type).Elem()})[0].String()
	}
	return ""
}

// wireVariant picks the union member that takes what the SDK sends.
func wireVariant(sdk, w reflect.Type) reflect.Type {
	if w == resultItemType {
		f, _ := w.FieldByName("Block")
		return f.Type
	}
	kind := jsonKind(sdk)
	tag := ""
	if kind == '{' && sdk.Kind() == reflect.Struct && !sdkFreeForm(sdk) {
		tag = sdkTag(sdk)
	}
	for i := range w.NumField() {
		f := w.Field(i)
		k := f.Tag.Get("kind")
		if k == "" || k[0] != kind {
			continue
		}
		tags := f.Tag.Get("tag")
		if tags == "" {
			return f.Type
		}
		for _, c := range strings.Split(tags, "|") {
			if c == tag {
				return f.Type
			}
		}
		// An enum "type" (several accepted values): matched by name.
		if tag == "" && strings.TrimPrefix(deref(f.Type).Name(), "w") == strings.Replace(strings.TrimPrefix(sdk.Name(), "Beta"), "Param", "", 1) {
			return f.Type
		}
	}
	return nil
}

func (d *drift) walk(sdk, w reflect.Type, path string) {
	sdk, w = sdkInner(sdk), deref(w)
	if w == nil {
		d.t.Errorf("%s: the SDK sends %s, the wire model has no place for it", path, sdk)
		return
	}
	if w == rawType {
		return // free-form: anything goes
	}
	if sdk.Name() == "BetaContentBlockSourceContentUnionParam" && strings.HasSuffix(path, "[]") {
		// The Beta SDK lists this union as its own item type (a list of
		// strings or lists); the API and the GA SDK take text and image
		// blocks there, which the wire model follows.
		return
	}
	key := [2]reflect.Type{sdk, w}
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	if sdkUnion(sdk) {
		for i := range sdk.NumField() {
			if f := sdk.Field(i); strings.HasPrefix(f.Name, "Of") {
				d.walk(f.Type, w, path+"."+f.Name)
			}
		}
		return
	}
	if isUnionType(w) {
		v := wireVariant(sdkInner(sdk), w)
		if v == nil {
			d.t.Errorf("%s: no variant of %s takes the SDK's %s", path, w.Name(), sdk)
			return
		}
		d.walk(sdk, v, path)
		return
	}
	if sdkFreeForm(sdk) {
		d.t.Errorf("%s: the SDK sends free-form %s, the wire model has %s", path, sdk, w)
		return
	}
	switch sdk.Kind() {
	case reflect.Slice:
		if w.Kind() != reflect.Slice {
			d.t.Errorf("%s: the SDK sends a list, the wire model has %s", path, w)
			return
		}
		d.walk(sdk.Elem(), w.Elem(), path+"[]")
	case reflect.Map:
		if w.Kind() != reflect.Map {
			d.t.Errorf("%s: the SDK sends a map, the wire model has %s", path, w)
			return
		}
		d.walk(sdk.Elem(), w.Elem(), path+"{}")
	case reflect.Struct:
		if w.Kind() != reflect.Struct {
			d.t.Errorf("%s: the SDK sends an object, the wire model has %s", path, w)
			return
		}
		for i := range sdk.NumField() {
			f := sdk.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			d.fields++
			wf := step(w, name)
			if wf == nil {
				d.t.Errorf("%s: the SDK can send %q, the wire struct %s does not know it", path, name, w.Name())
				continue
			}
			d.walk(f.Type, wf, path+"."+name)
		}
	default:
		if jsonKind(sdk) != jsonKind(w) {
			d.t.Errorf("%s: the SDK sends %s, the wire model has %s", path, sdk, w)
		}
	}
}

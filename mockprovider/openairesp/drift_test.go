package openairesp

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"
)

// TestWireCoversSDK walks the official Go SDK's request params beside the
// wire model and fails for every JSON member the SDK can send that the
// wire model does not know (it would be a 400 in a user's face), and for
// every union variant (string, array, object type) it has no place for.
func TestWireCoversSDK(t *testing.T) {
	d := &drift{t: t, seen: map[[2]reflect.Type]bool{}}
	d.walk(reflect.TypeOf(responses.ResponseNewParams{}), reflect.TypeOf(ResponseNewParams{}), "ResponseNewParams")
	d.walk(reflect.TypeOf(responses.InputTokenCountParams{}), reflect.TypeOf(InputTokenCountParams{}), "InputTokenCountParams")
	d.walk(reflect.TypeOf(responses.ResponseCompactParams{}), reflect.TypeOf(ResponseCompactParams{}), "ResponseCompactParams")
	if d.pairs < 200 {
		t.Errorf("only %d type pairs compared: the walk stopped early", d.pairs)
	}
}

type drift struct {
	t     *testing.T
	seen  map[[2]reflect.Type]bool
	pairs int
}

var unionIface = reflect.TypeOf((*interface{ union() *union })(nil)).Elem()

func unwrap(t reflect.Type) reflect.Type {
	for {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case isOpt(t):
			t = t.Field(0).Type
		default:
			return t
		}
	}
}

func (d *drift) walk(sdk, wt reflect.Type, at string) {
	sdk, wt = unwrap(sdk), unwrap(wt)
	key := [2]reflect.Type{sdk, wt}
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	d.pairs++
	if reflect.PointerTo(wt).Implements(unionIface) {
		d.union(sdk, wt, at)
		return
	}
	switch sdk.Kind() {
	case reflect.Slice:
		if wt.Kind() != reflect.Slice {
			d.t.Errorf("%s: the SDK sends an array, the wire model has %s", at, wt)
			return
		}
		d.walk(sdk.Elem(), wt.Elem(), at+"[]")
	case reflect.Map:
		if wt.Kind() == reflect.Map {
			d.walk(sdk.Elem(), wt.Elem(), at+"{}")
		}
	case reflect.Struct:
		if isUnion(sdk) {
			d.t.Errorf("%s: the SDK's %s is a union, the wire model's %s is not", at, sdk, wt)
			return
		}
		if wt.Kind() != reflect.Struct {
			d.t.Errorf("%s: the SDK sends an object, the wire model has %s", at, wt)
			return
		}
		for i := 0; i < sdk.NumField(); i++ {
			f := sdk.Field(i)
			name, _ := jsonName(f)
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			wf, ok := fieldByJSON(wt, name)
			if !ok {
				d.t.Errorf("%s.%s: the SDK (%s) sends it; the wire model (%s) does not know it", at, name, sdk, wt)
				continue
			}
			d.walk(f.Type, wf.Type, at+"."+name)
		}
	}
}

// union checks that every variant the SDK can send has a variant of the
// wire union that takes it.
func (d *drift) union(sdk, wt reflect.Type, at string) {
	u := reflect.New(wt).Interface().(interface{ union() *union }).union()
	var sdkVariants []reflect.StructField
	if isUnion(sdk) {
		for i := 0; i < sdk.NumField(); i++ {
			if f := sdk.Field(i); f.IsExported() {
				sdkVariants = append(sdkVariants, f)
			}
		}
	} else {
		// A plain value where the wire model has a union (a list of output
		// parts read by the message content union).
		sdkVariants = []reflect.StructField{{Name: sdk.Name(), Type: sdk}}
	}
	for _, f := range sdkVariants {
		k := kindOf(f.Type)
		var sdkTags []string
		if k == '{' {
			sdkTags = tags(unwrap(f.Type))
		}
		v, ok := u.variantFor(k, sdkTags)
		if !ok {
			d.t.Errorf("%s: the SDK's variant %s (%c %v) has no place in %s", at, f.Name, k, sdkTags, wt)
			continue
		}
		d.walk(f.Type, wt.Field(v.Field).Type, at+"<"+f.Name+">")
	}
}

func (u *union) variantFor(k byte, tags []string) (variant, bool) {
	for _, v := range u.Variants {
		if v.Kind != k {
			continue
		}
		if k != '{' || (len(tags) == 0 && v.Default) {
			return v, true
		}
		for _, tag := range tags {
			if slices.Contains(v.Tags, tag) {
				return v, true
			}
		}
	}
	return variant{}, false
}

func fieldByJSON(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

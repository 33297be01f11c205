package openairesp

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider/internal/shapes"
)

// TestWireGenerated keeps wire_gen.go what the generator below derives from
// the official Go SDK's request param types (the field lists, nested all
// the way down). Run with TOOLWIRE_WIREGEN=1 to rewrite it after an SDK
// upgrade; drift_test.go then proves the result covers the SDK.
func TestWireGenerated(t *testing.T) {
	src := generateWire()
	if os.Getenv("TOOLWIRE_WIREGEN") == "1" {
		if err := os.WriteFile("wire_gen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("wire_gen.go")
	if err != nil || !bytes.Equal(have, src) {
		t.Fatal("wire_gen.go is not what the generator derives from the SDK: run TOOLWIRE_WIREGEN=1 go test -run TestWireGenerated ./mockprovider/openairesp/")
	}
}

// messageVariants are the SDK's three message shapes (easy, input,
// output). On the wire they share type "message" (or none), so they decode
// into one hand-written Message (wire.go).
var messageVariants = map[string]bool{"EasyInputMessageParam": true, "ResponseInputItemMessageParam": true, "ResponseOutputMessageParam": true}

// enumTags are the discriminator values of variants whose type field is an
// enum or a plain string rather than an SDK constant.
var enumTags = map[string][]string{
	"ToolChoiceTypesParam":                {"file_search", "web_search_preview", "computer", "computer_use_preview", "computer_use", "web_search_preview_2025_03_11", "image_generation", "code_interpreter"},
	"WebSearchToolParam":                  {"web_search", "web_search_2025_08_26"},
	"WebSearchPreviewToolParam":           {"web_search_preview", "web_search_preview_2025_03_11"},
	"ResponseComputerToolCallParam":       {"computer_call"},
	"ResponseInputItemItemReferenceParam": {"item_reference"},
	"SharedComparisonFilterParam":         {"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"},
	"SharedCompoundFilterParam":           {"and", "or"},
}

// rawFields stay jsontext.Value so a wrong value reaches the rule that
// words it (arguments-string), or because the value is any JSON (schemas).
var rawFields = map[string]bool{"ResponseFunctionToolCallParam.arguments": true}

// unionDescriptions word a union's expected kinds in the API's error text
// where it is known.
var unionDescriptions = map[string]string{
	"ResponseNewParamsInputUnion":          "one of a string or array of input items",
	"InputTokenCountParamsInputUnion":      "one of a string or array of input items",
	"ResponseCompactParamsInputUnion":      "one of a string or array of input items",
	"ResponseNewParamsConversationUnion":   "one of a string or object",
	"ResponseNewParamsToolChoiceUnion":     "one of a string or object",
	"InputTokenCountParamsToolChoiceUnion": "one of a string or object",
}

// keepRaw unions remember each object's bytes (input items are stored as
// sent, hosted tools echoed as sent).
var keepRaw = map[string]bool{"ResponseInputItemUnionParam": true, "ToolUnionParam": true}

// aliases are merged-away names that hand-written code keeps using because
// the name says what the value is (a reasoning item's summary parts): each
// is emitted as an alias of the type kept for it.
var aliases = map[string]bool{"ResponseReasoningItemSummaryParam": true}

type gen struct {
	seen  map[reflect.Type]bool
	queue []reflect.Type
	out   bytes.Buffer
	// ref names a referenced type by its wire name: the type itself while
	// the types are collected, its class or canonical type once merged.
	ref func(string) string
}

func wireName(t reflect.Type) string {
	if strings.HasSuffix(t.PkgPath(), "/shared") {
		return "Shared" + t.Name()
	}
	return t.Name()
}

func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Opt[")
}

func isUnion(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || isOpt(t) {
		return false
	}
	n := 0
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if !strings.HasPrefix(f.Name, "Of") || !strings.Contains(f.Tag.Get("json"), "inline") {
			return false
		}
		n++
	}
	return n > 0
}

func isConstant(t reflect.Type) bool { return strings.HasSuffix(t.PkgPath(), "/shared/constant") }

func (g *gen) need(t reflect.Type) {
	if !g.seen[t] {
		g.seen[t] = true
		g.queue = append(g.queue, t)
	}
}

// goType is the wire type of an SDK field type. required marks a field the
// SDK always sends (no omitzero): its strings become pointers, so a
// missing one is told from an empty one.
func (g *gen) goType(t reflect.Type, required bool) string {
	switch {
	case isOpt(t):
		return "*" + g.goType(t.Field(0).Type, false)
	case t.Kind() == reflect.String:
		if required && !isConstant(t) {
			return "*string"
		}
		return "string"
	case t.Kind() == reflect.Bool, t.Kind() == reflect.Int64, t.Kind() == reflect.Float64:
		return t.Kind().String()
	case t.Kind() == reflect.Interface:
		return "jsontext.Value"
	case t.Kind() == reflect.Slice:
		return "[]" + strings.TrimPrefix(g.goType(t.Elem(), false), "*")
	case t.Kind() == reflect.Pointer:
		return g.goType(t.Elem(), required)
	case t.Kind() == reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return "jsontext.Value"
		}
		return "map[string]" + g.goType(t.Elem(), false)
	case t.Kind() == reflect.Struct:
		if messageVariants[t.Name()] {
			return "Message"
		}
		g.need(t)
		if isUnion(t) {
			return g.ref(wireName(t))
		}
		return "*" + g.ref(wireName(t))
	}
	panic("wiregen: unhandled type " + t.String())
}

func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	return name, !strings.Contains(opts, "omitzero")
}

// emitStruct writes t's struct under the name self.
func (g *gen) emitStruct(t reflect.Type, self, extra string) {
	fmt.Fprintf(&g.out, "type %s struct {\n", self)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, required := jsonName(f)
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		typ := g.goType(f.Type, required)
		if rawFields[wireName(t)+"."+name] {
			typ = "jsontext.Value"
		}
		fmt.Fprintf(&g.out, "\t%s %s `json:%q`\n", f.Name, typ, name+",omitzero")
	}
	g.out.WriteString(extra)
	g.out.WriteString("}\n\n")
}

// tags are the "type" values that select an object variant; nil for a
// variant without a discriminator (the union's default object).
func tags(t reflect.Type) []string {
	if messageVariants[t.Name()] {
		return []string{"message"}
	}
	if v, ok := enumTags[wireName(t)]; ok {
		return v
	}
	f, ok := t.FieldByName("Type")
	if !ok || !isConstant(f.Type) {
		return nil
	}
	d := reflect.Zero(f.Type).MethodByName("Default").Call(nil)[0]
	return []string{d.String()}
}

func kindOf(t reflect.Type) byte {
	switch {
	case isOpt(t):
		return kindOf(t.Field(0).Type)
	case t.Kind() == reflect.String:
		return '"'
	case t.Kind() == reflect.Bool:
		return 't'
	case t.Kind() == reflect.Float64, t.Kind() == reflect.Int64:
		return '0'
	case t.Kind() == reflect.Slice:
		return '['
	}
	return '{'
}

// emitUnion writes t's union under the name self.
func (g *gen) emitUnion(t reflect.Type, self string) {
	name := wireName(t)
	var fields, table bytes.Buffer
	idx := 0
	done := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		ft := f.Type
		fieldName, typ := f.Name, g.goType(ft, false)
		var tg []string
		def := false
		k := kindOf(ft)
		if k == '{' {
			st := ft.Elem()
			if messageVariants[st.Name()] {
				fieldName, typ, def = "OfMessage", "*Message", true
			} else {
				typ = "*" + g.ref(wireName(st))
			}
			tg = tags(st)
		}
		if done[fieldName] {
			continue
		}
		done[fieldName] = true
		fmt.Fprintf(&fields, "\t%s %s\n", fieldName, typ)
		tagList := "nil"
		if tg != nil {
			q := make([]string, len(tg))
			for j, s := range tg {
				q[j] = strconv.Quote(s)
			}
			tagList = "[]string{" + strings.Join(q, ", ") + "}"
		}
		fmt.Fprintf(&table, "\t{Field: %d, Kind: %q, Tags: %s, Default: %v},\n", idx, rune(k), tagList, def || (k == '{' && tg == nil))
		idx++
	}
	if keepRaw[name] {
		fields.WriteString("\t// raw is the object as sent.\n\traw jsontext.Value\n")
	}
	fmt.Fprintf(&g.out, "type %s struct {\n%s}\n\n", self, fields.String())
	desc := unionDescriptions[name]
	fmt.Fprintf(&g.out, "var %sVariants = &union{Name: %q, Expected: %q, KeepRaw: %v, Variants: []variant{\n%s}}\n\n",
		lowerFirst(self), self, desc, keepRaw[name], table.String())
	fmt.Fprintf(&g.out, "func (u *%s) UnmarshalJSONFrom(dec *jsontext.Decoder) error {\n\treturn %sVariants.decode(dec, u)\n}\n\n", self, lowerFirst(self))
	fmt.Fprintf(&g.out, "func (*%s) union() *union { return %sVariants }\n\n", self, lowerFirst(self))
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// wireRoots are the request bodies the dialect reads.
var wireRoots = []reflect.Type{
	reflect.TypeOf(responses.ResponseNewParams{}),
	reflect.TypeOf(responses.InputTokenCountParams{}),
	reflect.TypeOf(responses.ResponseCompactParams{}),
	// The parts of the hand-written Message's content.
	reflect.TypeOf(responses.ResponseInputContentUnionParam{}),
	reflect.TypeOf(responses.ResponseOutputMessageContentUnionParam{}),
}

// rootExtras are fields the SDK sends outside its param structs.
var rootExtras = map[string]string{
	"ResponseNewParams": "\t// Stream is set by the SDK's NewStreaming.\n\tStream *bool `json:\"stream,omitzero\"`\n",
}

// emit is t's declaration under the name self.
func (g *gen) emit(t reflect.Type, self string) string {
	g.out.Reset()
	if isUnion(t) {
		g.emitUnion(t, self)
	} else {
		g.emitStruct(t, self, rootExtras[t.Name()])
	}
	return g.out.String()
}

// dedupe merges the types whose declarations differ only in their own name
// (shapes.Canonical), so that one wire type (one edit per field) stands for
// identical SDK shapes. Each class keeps its shortest name (the first in
// sorted order among equals): the copies an SDK nests under a longer path
// (ResponseToolSearchOutputItemParamToolMcpParam) give way to the type
// itself (ToolMcpParam). The map sends every name to the one kept.
func (g *gen) dedupe(types map[string]reflect.Type, names []string) map[string]string {
	return shapes.Canonical(names, func(n string, ref func(string) string) string {
		g.ref = ref
		return g.emit(types[n], "SELF")
	}, func(a, b string) bool { return len(a) < len(b) })
}

func generateWire() []byte {
	g := &gen{seen: map[reflect.Type]bool{}, ref: func(n string) string { return n }}
	for _, r := range wireRoots {
		g.need(r)
	}
	// Emitting each type queues the types it refers to.
	types := map[string]reflect.Type{}
	for i := 0; i < len(g.queue); i++ {
		t := g.queue[i]
		g.emit(t, wireName(t))
		types[wireName(t)] = t
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	canon := g.dedupe(types, names)
	g.ref = func(n string) string { return canon[n] }
	var b bytes.Buffer
	b.WriteString("// Code generated by TestWireGenerated from github.com/openai/openai-go/v3 request params; DO NOT EDIT.\n\n")
	b.WriteString("package openairesp\n\nimport \"github.com/go-json-experiment/json/jsontext\"\n\n")
	for _, n := range names {
		switch {
		case canon[n] == n:
			b.WriteString(g.emit(types[n], n))
		case aliases[n]:
			fmt.Fprintf(&b, "type %s = %s\n\n", n, canon[n])
		}
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		panic(err.Error() + "\n" + b.String())
	}
	return src
}

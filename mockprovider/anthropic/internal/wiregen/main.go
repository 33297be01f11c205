// Command wiregen writes mockprovider/anthropic/wire_gen.go: the typed
// request structs of the Messages API, read by reflection from the request
// param types of the official Go SDK (MessageNewParams and
// BetaMessageNewParams merged, so one request type accepts what either can
// send). Run it with `go generate ./mockprovider/anthropic` after an SDK
// upgrade; the drift test fails until then.
//
// Mapping: scalars and param.Opt become pointers (absent ≠ zero); nested
// param structs become *wX; free-form values (any, map[string]any, objects
// with extra fields) stay jsontext.Value; SDK unions (OfXxx variants)
// become union types with an UnmarshalJSONFrom that picks the variant by
// JSON kind and, for objects, by the "type" discriminator.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider/internal/shapes"
)

// overrides are the fields whose value a rule judges (so a wrong type
// reaches that rule's own message) or which the API accepts in more forms
// than the SDK sends. Keyed by wire type name and JSON name.
var overrides = map[string]string{
	"wMessage.content":          "contentUnion",
	"wireRequest.system":        "systemUnion",
	"wireCountTokens.system":    "systemUnion",
	"wToolUseBlock.input":       "jsontext.Value",
	"wToolResultBlock.is_error": "jsontext.Value",
	"wToolResultBlock.content":  "toolResultContent",
}

// extraFields are members the API accepts that the SDK param types do not
// declare (the SDK adds them itself, or they belong to a cloud form).
var extraFields = map[string][]field{
	"wireRequest": {
		{JSON: "stream", Type: tref{kind: "scalar", scalar: "bool"}},
		{JSON: "system", Type: tref{kind: "named", named: "systemUnion"}},
		{JSON: "anthropic_version", Type: tref{kind: "scalar", scalar: "string"}},
		{JSON: "anthropic_beta", Type: tref{kind: "slice", elem: &tref{kind: "scalar", scalar: "string"}}},
		// Sampling parameters: v2 of the SDK no longer declares them, but
		// v1 and the other SDKs send them and the API takes them.
		{JSON: "temperature", Type: tref{kind: "scalar", scalar: "float64"}},
		{JSON: "top_k", Type: tref{kind: "scalar", scalar: "int64"}},
		{JSON: "top_p", Type: tref{kind: "scalar", scalar: "float64"}},
	},
}

type tref struct {
	kind   string // scalar, raw, slice, map, node, named
	scalar string
	elem   *tref
	node   *node
	named  string
}

type field struct {
	JSON string
	Type tref
}

type variant struct {
	Field string // Go field name
	Kind  byte   // JSON kind: '"', '0', 't', '[', '{'
	Tag   string // discriminator, for object variants
	Type  tref
}

type node struct {
	Name     string
	Union    bool
	Fields   []field
	Variants []variant
	Default  string // tag assumed when an object carries none
	sdk      []reflect.Type
}

var (
	nodes   = map[reflect.Type]*node{}
	byName  = map[string]*node{}
	ordered []*node
)

var paramPkg = "github.com/anthropics/anthropic-sdk-go/v2/packages/param"

func wireName(t reflect.Type) string {
	n := strings.TrimPrefix(t.Name(), "Beta")
	n = strings.Replace(n, "Params", "", 1)
	n = strings.Replace(n, "Param", "", 1)
	return "w" + n
}

func isUnion(t reflect.Type) bool {
	if roleUnion(t) {
		return false
	}
	for i := range t.NumField() {
		if strings.HasPrefix(t.Field(i).Name, "Of") {
			return true
		}
	}
	return false
}

// roleUnion reports an SDK union whose variants are told apart by "role"
// (v2's MessageParam: user, assistant, system). The API reads one message
// shape whose role is a member, so its wire form is one struct holding every
// variant's fields, and the rules judge the role.
func roleUnion(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || !strings.HasPrefix(t.Field(0).Name, "Of") {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !strings.HasPrefix(f.Name, "Of") {
			continue
		}
		vt := deref(f.Type)
		if vt.Kind() != reflect.Struct {
			return false
		}
		if r, ok := vt.FieldByName("Role"); !ok || !strings.HasPrefix(r.Tag.Get("json"), "role") {
			return false
		}
	}
	return true
}

func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == paramPkg && strings.HasPrefix(t.Name(), "Opt[")
}

func hasExtras(t reflect.Type) bool {
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("api") == "extrafields" {
			return true
		}
	}
	return false
}

// mapType maps one SDK type to its wire form.
func mapType(t reflect.Type) tref {
	if isOpt(t) {
		return mapType(t.Field(0).Type)
	}
	switch t.Kind() {
	case reflect.String:
		return tref{kind: "scalar", scalar: "string"}
	case reflect.Bool:
		return tref{kind: "scalar", scalar: "bool"}
	case reflect.Int, reflect.Int64:
		return tref{kind: "scalar", scalar: "int64"}
	case reflect.Float64:
		return tref{kind: "scalar", scalar: "float64"}
	case reflect.Interface:
		return tref{kind: "raw"}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return tref{kind: "raw"}
		}
		e := mapType(t.Elem())
		return tref{kind: "map", elem: &e}
	case reflect.Slice:
		e := mapType(t.Elem())
		return tref{kind: "slice", elem: &e}
	case reflect.Pointer:
		return mapType(t.Elem())
	case reflect.Struct:
		if hasExtras(t) {
			return tref{kind: "raw"}
		}
		return tref{kind: "node", node: nodeFor(t, nil)}
	}
	panic("unmapped type " + t.String())
}

// nodeFor returns the wire node of an SDK struct, merging it into into
// when given (the same position in the Beta and GA requests).
func nodeFor(t reflect.Type, into *node) *node {
	if n, ok := nodes[t]; ok {
		if into != nil && into != n {
			merge(into, n)
		}
		return n
	}
	n := into
	if n == nil {
		// Beta and GA types meet by position (merged through into), never
		// by name: two types may strip to the same name.
		name := wireName(t)
		for byName[name] != nil {
			name += "_"
		}
		n = &node{Name: name, Union: isUnion(t)}
		byName[name] = n
		ordered = append(ordered, n)
	}
	nodes[t] = n
	n.sdk = append(n.sdk, t)
	if n.Union {
		addVariants(n, t)
	} else {
		addFields(n, t)
	}
	return n
}

// merge folds b's SDK types into a (b stays as an alias of a's fields).
func merge(a, b *node) {
	for _, t := range b.sdk {
		if a.Union {
			addVariants(a, t)
		} else {
			addFields(a, t)
		}
	}
}

func addFields(n *node, t reflect.Type) {
	if roleUnion(t) {
		for i := range t.NumField() {
			if f := t.Field(i); strings.HasPrefix(f.Name, "Of") {
				addFields(n, deref(f.Type))
			}
		}
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if ov, ok := overrides[n.Name+"."+name]; ok {
			addField(n, field{JSON: name, Type: tref{kind: "named", named: ov}})
			continue
		}
		if i := fieldIndex(n, name); i >= 0 {
			if ex := n.Fields[i].Type; ex.kind == "node" {
				if ft := deref(f.Type); ft.Kind() == reflect.Struct && !isOpt(ft) && !hasExtras(ft) {
					nodeFor(ft, ex.node)
				}
			}
			if ex := n.Fields[i].Type; ex.kind == "slice" && ex.elem.kind == "node" && f.Type.Kind() == reflect.Slice {
				if et := deref(f.Type.Elem()); et.Kind() == reflect.Struct && !hasExtras(et) {
					nodeFor(et, ex.elem.node)
				}
			}
			continue
		}
		addField(n, field{JSON: name, Type: mapType(f.Type)})
	}
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func fieldIndex(n *node, name string) int {
	for i, f := range n.Fields {
		if f.JSON == name {
			return i
		}
	}
	return -1
}

func addField(n *node, f field) {
	if fieldIndex(n, f.JSON) < 0 {
		n.Fields = append(n.Fields, f)
	}
}

// tagOf is the "type" constant of a variant struct ("" when its type is
// optional, like a custom tool's).
func tagOf(t reflect.Type) (string, bool) {
	f, ok := t.FieldByName("Type")
	if !ok || !strings.HasPrefix(f.Tag.Get("json"), "type") {
		return "", false
	}
	if m, ok := f.Type.MethodByName("Default"); ok {
		v := m.Func.Call([]reflect.Value{reflect.New(f.Type).Elem()})[0]
		return v.String(), true
	}
	if vals := enums()[f.Type.Name()]; len(vals) > 0 {
		return strings.Join(vals, "|"), true
	}
	return "", true
}

// optionalTag reports a variant whose "type" may be omitted (a custom
// tool's).
func optionalTag(t reflect.Type) bool {
	f, _ := t.FieldByName("Type")
	return f.Tag.Get("api") != "required" && strings.Contains(f.Tag.Get("json"), "omitzero")
}

var enumCache map[string][]string

// enums reads the SDK's string enums (type T string; const X T = "v")
// from its source: reflection cannot list constants.
func enums() map[string][]string {
	if enumCache != nil {
		return enumCache
	}
	enumCache = map[string][]string{}
	dir := sdkDir()
	fset := token.NewFileSet()
	for _, name := range []string{"message.go", "betamessage.go"} {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			panic(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != 1 {
					continue
				}
				if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					enumCache[id.Name] = append(enumCache[id.Name], v)
				}
			}
		}
	}
	return enumCache
}

func sdkDir() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/anthropics/anthropic-sdk-go/v2").Output()
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(out))
}

func kindOf(tr tref) byte {
	switch tr.kind {
	case "slice":
		return '['
	case "node", "raw":
		return '{'
	case "scalar":
		switch tr.scalar {
		case "string":
			return '"'
		case "bool":
			return 't'
		}
		return '0'
	}
	return '{'
}

func addVariants(n *node, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !strings.HasPrefix(f.Name, "Of") {
			continue
		}
		vt := deref(f.Type)
		v := variant{Field: strings.TrimPrefix(f.Name, "Of")}
		if vt.Kind() == reflect.Struct && !isOpt(vt) && !hasExtras(vt) {
			tag, tagged := tagOf(vt)
			if tagged && optionalTag(vt) {
				n.Default = strings.Split(tag, "|")[0]
			}
			v.Kind, v.Tag = '{', tag
			if j := variantIndex(n, v); j >= 0 {
				nodeFor(vt, n.Variants[j].Type.node)
				continue
			}
			v.Type = tref{kind: "node", node: nodeFor(vt, nil)}
		} else {
			v.Type = mapType(f.Type)
			v.Kind = kindOf(v.Type)
			if j := variantIndex(n, v); j >= 0 {
				continue
			}
		}
		for _, ex := range n.Variants {
			if ex.Field == v.Field {
				v.Field += "_"
			}
		}
		n.Variants = append(n.Variants, v)
	}
}

func variantIndex(n *node, v variant) int {
	for i, ex := range n.Variants {
		if ex.Kind == v.Kind && ex.Tag == v.Tag {
			return i
		}
	}
	return -1
}

// goType is the Go type of a field; ref names the node it refers to.
func goType(tr tref, ref func(*node) string) string {
	switch tr.kind {
	case "scalar":
		return "*" + tr.scalar
	case "raw":
		return "jsontext.Value"
	case "slice":
		return "[]" + strings.TrimPrefix(goType(*tr.elem, ref), "*")
	case "map":
		return "map[string]" + strings.TrimPrefix(goType(*tr.elem, ref), "*")
	case "node":
		if tr.node.Union {
			return ref(tr.node)
		}
		return "*" + ref(tr.node)
	case "named":
		return tr.named
	}
	panic(tr.kind)
}

func goField(json string) string {
	var b strings.Builder
	for _, p := range strings.Split(json, "_") {
		if p == "" {
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	s := b.String()
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		s = "F" + s
	}
	return s
}

func main() {
	root := &node{Name: "wireRequest"}
	byName[root.Name] = root
	ordered = append(ordered, root)
	// GA first: where the two disagree, the GA type is the API's (the Beta
	// document source lists itself as its own item type).
	nodeFor(reflect.TypeFor[anthropic.MessageNewParams](), root)
	nodeFor(reflect.TypeFor[anthropic.BetaMessageNewParams](), root)
	// count_tokens takes a subset of the members; its nested types are
	// the same wire types.
	count := &node{Name: "wireCountTokens"}
	byName[count.Name] = count
	ordered = append(ordered, count)
	nodeFor(reflect.TypeFor[anthropic.MessageCountTokensParams](), count)
	nodeFor(reflect.TypeFor[anthropic.BetaMessageCountTokensParams](), count)
	// The tool list of count_tokens is its own SDK union with the same
	// variants: one wire union takes both.
	for _, f := range count.Fields {
		if f.JSON == "tools" {
			for _, g := range root.Fields {
				if g.JSON == "tools" {
					merge(g.Type.elem.node, f.Type.elem.node)
					ordered = slices.DeleteFunc(ordered, func(n *node) bool { return n == f.Type.elem.node })
				}
			}
		}
	}
	for i, f := range count.Fields {
		if f.JSON == "tools" {
			count.Fields[i].Type = tref{kind: "named", named: "[]wToolUnion"}
		}
	}
	for _, f := range extraFields[root.Name] {
		if f.JSON == "anthropic_beta" || f.JSON == "anthropic_version" {
			addField(count, f)
		}
	}
	// tool_result content is decoded item by item (toolResultContent), so
	// an unknown item type reaches its rule; its variants come from here.
	blocks := nodeFor(reflect.TypeFor[anthropic.ContentBlockParamUnion](), nil)
	nodeFor(reflect.TypeFor[anthropic.BetaContentBlockParamUnion](), blocks)
	items := nodeFor(reflect.TypeFor[anthropic.ToolResultBlockParamContentUnion](), nil)
	nodeFor(reflect.TypeFor[anthropic.BetaToolResultBlockParamContentUnion](), items)
	for _, f := range extraFields[root.Name] {
		addField(root, f)
	}

	canon := dedupe(ordered)
	name := func(n *node) string { return canon[n].Name }
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/wiregen from anthropic-sdk-go's MessageNewParams and BetaMessageNewParams; DO NOT EDIT.\n\n")
	b.WriteString("package anthropic\n\nimport \"github.com/go-json-experiment/json/jsontext\"\n\n")
	for _, n := range ordered {
		if canon[n] == n {
			emit(&b, n, n.Name, name)
		}
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		os.Stdout.Write(b.Bytes())
		panic(err)
	}
	if err := os.WriteFile("wire_gen.go", out, 0o644); err != nil {
		panic(err)
	}
}

// dedupe merges the nodes whose declarations differ only in their own
// name (shapes.Canonical), so that one wire type (one edit per field) stands
// for identical SDK shapes. Each class keeps its first node in emission
// order; the map sends every node to it.
func dedupe(ordered []*node) map[*node]*node {
	return shapes.Canonical(ordered, func(n *node, ref func(*node) string) string {
		var b bytes.Buffer
		emit(&b, n, "SELF", ref)
		return b.String()
	}, nil)
}

// emit writes n's declaration under the name self, naming the nodes it
// refers to by ref.
func emit(b *bytes.Buffer, n *node, self string, ref func(*node) string) {
	if n.Union {
		writeUnion(b, n, self, ref)
		return
	}
	fmt.Fprintf(b, "type %s struct {\n", self)
	used := map[string]bool{}
	for _, f := range n.Fields {
		name := goField(f.JSON)
		for used[name] {
			name += "_"
		}
		used[name] = true
		fmt.Fprintf(b, "\t%s %s `json:%q`\n", name, goType(f.Type, ref), f.JSON)
	}
	b.WriteString("}\n\n")
}

// writeUnion writes a union: one field per variant (a struct tag names its
// JSON kind and discriminator, which the error paths read) and the
// UnmarshalJSONFrom that fills the one that arrived.
func writeUnion(b *bytes.Buffer, n *node, self string, ref func(*node) string) {
	sort.SliceStable(n.Variants, func(i, j int) bool { return n.Variants[i].Kind < n.Variants[j].Kind })
	fmt.Fprintf(b, "type %s struct {\n\tTag string `default:%q`\n", self, n.Default)
	for _, v := range n.Variants {
		fmt.Fprintf(b, "\t%s %s `kind:%q tag:%q`\n", v.Field, ptr(goType(v.Type, ref)), string(v.Kind), v.Tag)
	}
	b.WriteString("}\n\n")
	var tags []string
	for _, v := range n.Variants {
		if v.Kind == '{' && v.Tag != "" {
			tags = append(tags, strings.Split(v.Tag, "|")...)
		}
	}
	fmt.Fprintf(b, "func (u *%s) UnmarshalJSONFrom(dec *jsontext.Decoder) error {\n\tswitch dec.PeekKind() {\n", self)
	kinds := map[byte][]variant{}
	var order []byte
	for _, v := range n.Variants {
		k := v.Kind
		if kinds[k] == nil {
			order = append(order, k)
		}
		kinds[k] = append(kinds[k], v)
	}
	for _, k := range order {
		vs := kinds[k]
		switch {
		case k == 't':
			fmt.Fprintf(b, "\tcase 't', 'f':\n\t\treturn decodeValue(dec, &u.%s)\n", vs[0].Field)
		case k == '{' && len(tags) > 0:
			fmt.Fprintf(b, "\tcase '{':\n\t\treturn decodeTagged(dec, &u.Tag, %q, %sTags, func(tag string) any {\n\t\t\tswitch tag {\n", n.Default, lower(self))
			for _, v := range vs {
				fmt.Fprintf(b, "\t\t\tcase %s:\n\t\t\t\tu.%s = new(%s)\n\t\t\t\treturn u.%s\n", quoteAll(v.Tag), v.Field, strings.TrimPrefix(ptr(goType(v.Type, ref)), "*"), v.Field)
			}
			b.WriteString("\t\t\t}\n\t\t\treturn nil\n\t\t})\n")
		default:
			fmt.Fprintf(b, "\tcase '%s':\n\t\treturn decodeValue(dec, &u.%s)\n", escapeKind(k), vs[0].Field)
		}
	}
	fmt.Fprintf(b, "\tcase 'n':\n\t\treturn skipNull(dec)\n\t}\n\treturn wrongKind(dec, %q)\n}\n\n", kindsOf(order))
	if len(tags) > 0 {
		fmt.Fprintf(b, "var %sTags = %#v\n\n", lower(self), tags)
	}
}

func quoteAll(tags string) string {
	var q []string
	for _, t := range strings.Split(tags, "|") {
		q = append(q, strconv.Quote(t))
	}
	return strings.Join(q, ", ")
}

func ptr(s string) string {
	if strings.HasPrefix(s, "*") || strings.HasPrefix(s, "[]") || strings.HasPrefix(s, "map[") || s == "jsontext.Value" {
		return s
	}
	return "*" + s
}

func lower(s string) string { return s }

func escapeKind(k byte) string {
	if k == '"' {
		return `"`
	}
	return string(k)
}

func kindsOf(order []byte) string { return string(order) }

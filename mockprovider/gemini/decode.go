package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Methods the routes serve.
const (
	methodGenerate = "generateContent"
	methodStream   = "streamGenerateContent"
)

// invalidJSONPrefix starts every Google JSON-parse error.
const invalidJSONPrefix = "Invalid JSON payload received."

// Decode parses the path's model and method and the body.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	model, method, aerr := parseAction(x.R)
	if aerr != nil {
		return nil, nil, aerr
	}
	lenient := x.Env != nil && x.Env.Options.Lenient
	decode := func(body []byte, lenient bool) (*Request, *wire.APIError) {
		return decodeInSession(x.Session, body, lenient)
	}
	if method == methodCount {
		decode = decodeCountTokens
	}
	req, aerr := decode(body, lenient)
	if aerr != nil {
		return nil, nil, aerr
	}
	req.Model, req.Method = model, method
	req.SSE = method == methodStream && x.R.URL.Query().Get("alt") == "sse"
	return req, toConversation(req), nil
}

// parseAction splits "gemini-2.5-flash:generateContent".
func parseAction(r *http.Request) (model, method string, _ *wire.APIError) {
	action := r.PathValue("action")
	model, method, ok := cutLast(action, ":")
	if !ok || model == "" {
		return "", "", &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound,
			Message: fmt.Sprintf("The requested URL %s was not found on this server.", r.URL.Path)}
	}
	switch method {
	case methodGenerate, methodStream, methodCount:
		return strings.TrimPrefix(model, "models/"), method, nil
	}
	// An unknown custom method is a missing route on Google's front end.
	return "", "", &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound,
		Message: fmt.Sprintf("Method %q is not found for models/%s. Supported methods: generateContent, streamGenerateContent, countTokens.", method, model)}
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Rule IDs of the decoding errors.
const (
	ruleKnownFields  = "gemini.known-fields"
	ruleFieldTypes   = "gemini.field-types"
	ruleValidJSON    = "gemini.valid-json"
	ruleSchemaSubset = "gemini.parameters-schema-subset"
)

// decoder reads one JSON message of a body and words its errors: root is
// the message's wire type, prefix its proto path in the body
// ("generate_content_request" inside a countTokens body).
type decoder struct {
	body   []byte
	root   reflect.Type
	prefix string
}

// decodeBody reads the body into a Request, answering a decoding error
// the way Google's proto-JSON front end words it. In lenient mode unknown
// members are kept in Request.Unknown for the known-fields rule to
// journal.
func decodeBody(body []byte, lenient bool) (*Request, *wire.APIError) {
	return decodeRequest(decoder{body: body, root: reflect.TypeFor[Request]()}, lenient)
}

func decodeRequest(d decoder, lenient bool) (*Request, *wire.APIError) {
	if len(bytes.TrimSpace(d.body)) == 0 {
		// An empty body is an empty message: the rules then report the
		// missing contents, as the API does.
		return &Request{}, nil
	}
	req := new(Request)
	unknown, err := d.decode(req, lenient)
	if err != nil {
		return nil, err
	}
	req.Unknown = unknown
	req.BodyLen = len(d.body)
	req.derive()
	return req, nil
}

// decode fills v (of type d.root) from the body.
func (d decoder) decode(v any, lenient bool) ([]unknownMember, *wire.APIError) {
	opts := wirejson.Options{Lenient: lenient}
	paths, err := wirejson.Decode(d.body, v, opts)
	if err != nil && d.singleForRepeated(err) {
		if body, ok := wrapSingles(d.body, d.root); ok {
			d.body = body
			reflect.ValueOf(v).Elem().SetZero() // what the first attempt filled
			paths, err = wirejson.Decode(d.body, v, opts)
		}
	}
	if err != nil {
		return nil, d.decodeError(err)
	}
	var unknown []unknownMember
	for _, p := range paths {
		unknown = append(unknown, d.unknownName(p))
	}
	return unknown, nil
}

// violationText is one line of an "Invalid JSON payload received." answer
// and the field its BadRequest violation names ("" for the top level).
type violationText struct {
	field, description string
}

// decodeError renders a decoding error.
func (d decoder) decodeError(e *wirejson.Error) *wire.APIError {
	body := d.body
	bad := func(rule string, vs ...violationText) *wire.APIError {
		lines := make([]string, len(vs))
		violations := make([]any, len(vs))
		for i, v := range vs {
			lines[i] = v.description
			fv := map[string]any{"description": v.description}
			if v.field != "" {
				fv = map[string]any{"field": v.field, "description": v.description}
			}
			violations[i] = fv
		}
		return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, RuleID: rule,
			Message: strings.Join(lines, "\n"),
			Details: []any{map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": violations}}}
	}
	plain := func(rule, msg string) *wire.APIError {
		return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, RuleID: rule, Message: invalidJSONPrefix + " " + msg}
	}
	switch e.Kind {
	case wirejson.Syntax:
		return plain(ruleValidJSON, syntaxMessage(body, e))
	case wirejson.InvalidUTF8:
		return plain(ruleValidJSON, "Encountered non UTF-8 code points.")
	case wirejson.UnknownMember:
		// The API names every unknown member at once, one line each.
		paths := wirejson.UnknownMembers(body, reflect.New(d.root).Interface())
		if len(paths) == 0 {
			paths = [][]string{e.Path}
		}
		rule := ruleKnownFields
		var vs []violationText
		for i, p := range paths {
			u := d.unknownName(p)
			if i == 0 && u.inSchema {
				rule = ruleSchemaSubset
			}
			vs = append(vs, violationText{field: u.at, description: u.message()})
		}
		return bad(rule, vs...)
	}
	if len(e.Path) == 0 {
		// The body is JSON but not an object.
		return bad(ruleFieldTypes, violationText{description: invalidJSONPrefix + ` Unknown name "": Root element must be a message.`})
	}
	at := d.protoPath(e.Path)
	parentAt := d.protoPath(e.Parent())
	field := d.typeAt(e.Path)
	value := valueText(body, e.Path)
	got := byte(0)
	if value != "" {
		got = value[0]
	}
	var msg string
	switch {
	case e.Kind == wirejson.DuplicateMember:
		msg = fmt.Sprintf("Duplicate field %q at '%s'.", protoName(e.Name()), at)
	case got == '[' && !isRepeated(field):
		msg = unknownAt(e.Name(), parentAt) + ": Proto field is not repeating, cannot start list."
	case got == '{' && !isMessage(field):
		msg = fmt.Sprintf("Invalid value at '%s' (%s), Starting an object on a scalar field", at, protoTypeName(field, e))
	default:
		msg = fmt.Sprintf("Invalid value at '%s' (%s), %s", at, protoTypeName(field, e), value)
	}
	return bad(ruleFieldTypes, violationText{field: at, description: invalidJSONPrefix + " " + msg})
}

func unknownAt(name, parent string) string {
	if parent == "" {
		return fmt.Sprintf("Unknown name %q", name)
	}
	return fmt.Sprintf("Unknown name %q at '%s'", name, parent)
}

// unknownMember is an unknown member located the way the API reports it.
type unknownMember struct {
	name     string
	at       string // the parent's proto path ("" at the top level)
	inSchema bool   // inside a Schema message (parameters, responseSchema…)
}

func (u unknownMember) message() string {
	return invalidJSONPrefix + " " + unknownAt(u.name, u.at) + ": Cannot find field."
}

// Path renders an unknown member for the journal.
func (u unknownMember) Path() string {
	if u.at == "" {
		return u.name
	}
	return u.at + "." + u.name
}

func (d decoder) unknownName(path []string) unknownMember {
	body := d.body
	parent := path[:len(path)-1]
	u := unknownMember{name: path[len(path)-1], at: d.protoPath(parent)}
	if t := d.typeAt(parent); t != nil && deref(t) == reflect.TypeFor[Schema]() {
		u.inSchema = true
	}
	// A top-level unknown member holding an object is reported at itself
	// (`Unknown name "extra_body" at 'extra_body'`, MinLL/SkyrimNet-GamePlugin #77).
	if len(parent) == 0 && d.prefix == "" && bytes.HasPrefix(bytes.TrimSpace(valueBytes(body, path)), []byte("{")) {
		u.at = protoName(u.name)
	}
	return u
}

// syntaxMessage words a JSON syntax error the way Google's parser does: the
// problem, then the line with a caret under the offending character.
func syntaxMessage(b []byte, e *wirejson.Error) string {
	if errors.Is(e.Err, io.ErrUnexpectedEOF) || e.Offset >= int64(len(bytes.TrimRight(b, " \t\r\n"))) {
		return "Unexpected end of string."
	}
	off := int(max(0, min(e.Offset, int64(len(b)-1))))
	start := max(bytes.LastIndexByte(b[:off], '\n')+1, off-40)
	end := min(len(b), off+20)
	if nl := bytes.IndexByte(b[off:], '\n'); nl >= 0 {
		end = off + nl
	}
	end = max(end, off+1)
	line := strings.ToValidUTF8(string(b[start:end]), "?")
	return "Unexpected token.\n" + line + "\n" + strings.Repeat(" ", len(string(b[start:off]))) + "^"
}

// --- paths --------------------------------------------------------------

// step follows one path token from a wire type: a struct field (matched
// as the decoder does, ignoring case and '_'), a slice index or a map key.
func step(t reflect.Type, tok string) reflect.Type {
	t = deref(t)
	switch t.Kind() {
	case reflect.Struct:
		want := fold(tok)
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" && fold(name) == want {
				return f.Type
			}
		}
	case reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil // jsontext.Value: free-form JSON
		}
		return t.Elem()
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fold is a member name as the decoder matches it: case, '_' and '-'
// ignored. (A strings.Replacer built per call cost the single-value
// rewrite, which folds every member of a body, most of its time.)
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// typeAt is the wire type at path (nil inside free-form JSON).
func (d decoder) typeAt(path []string) reflect.Type {
	t := d.root
	for _, tok := range path {
		if t = step(t, tok); t == nil {
			return nil
		}
	}
	return t
}

// protoPath renders path as the API does: proto (snake_case) field names,
// [i] for list elements, and a map entry as [i].value, i its position in
// the body (tools[0].function_declarations[0].parameters.properties[1].value).
func (d decoder) protoPath(path []string) string {
	var b strings.Builder
	b.WriteString(d.prefix)
	t := d.root
	var positions []int // located once, when a map entry needs its position
	for i, tok := range path {
		kind := reflect.Invalid
		if t != nil {
			kind = deref(t).Kind()
		}
		switch {
		case kind == reflect.Map:
			if positions == nil {
				_, positions = locate(d.body, path)
			}
			at := 0 // the entry is not in the body
			if i < len(positions) {
				at = positions[i]
			}
			fmt.Fprintf(&b, "[%d].value", at)
		case kind == reflect.Slice && isIndex(tok):
			b.WriteString("[" + tok + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			if t != nil {
				tok = protoName(tok)
			}
			b.WriteString(tok)
		}
		if t != nil {
			t = step(t, tok)
		}
	}
	return b.String()
}

func isIndex(tok string) bool {
	if tok == "" {
		return false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// protoName is a field's proto name: functionDeclarations →
// function_declarations.
func protoName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// valueBytes is the JSON value at path in body (nil when absent).
func valueBytes(body []byte, path []string) []byte {
	v, _ := locate(body, path)
	return v
}

// locate follows path through body in one pass of a decoder (members and
// elements off the path are skipped, not read): the value at its end (nil
// when absent) and, for each token found, the position of the member or
// element it names. One pass keeps an error's path linear in the body,
// however deep it sits; following it value by value read each level's
// subtree again.
func locate(body []byte, path []string) (jsontext.Value, []int) {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true))
	positions := make([]int, 0, len(path))
	for _, tok := range path {
		open, err := dec.ReadToken()
		if err != nil || (open.Kind() != '{' && open.Kind() != '[') {
			return nil, positions
		}
		found := false
		for i := 0; !found && dec.PeekKind() != '}' && dec.PeekKind() != ']' && dec.PeekKind() != 0; i++ {
			if open.Kind() == '{' {
				name, err := dec.ReadToken()
				if err != nil {
					return nil, positions
				}
				found = name.String() == tok
			} else {
				found = strconv.Itoa(i) == tok
			}
			if found {
				positions = append(positions, i)
			} else if dec.SkipValue() != nil {
				return nil, positions
			}
		}
		if !found {
			return nil, positions
		}
	}
	v, err := dec.ReadValue()
	if err != nil {
		return nil, positions
	}
	return v, positions
}

// valueText is the offending value as the message quotes it.
func valueText(body []byte, path []string) string {
	v := strings.TrimSpace(string(valueBytes(body, path)))
	if len(v) > 200 {
		v = v[:200] + "..."
	}
	return v
}

func isRepeated(t reflect.Type) bool {
	t = deref(t)
	return t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8
}

func isMessage(t reflect.Type) bool {
	t = deref(t)
	if isRepeated(t) {
		t = deref(t.Elem())
	}
	return t != nil && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map || t == reflect.TypeFor[Object]())
}

// protoTypeName names the field's proto type as "Invalid value" messages
// do: TYPE_FLOAT, TYPE_STRING… for scalars, the type URL for messages and
// enums.
func protoTypeName(t reflect.Type, e *wirejson.Error) string {
	if e.Kind == wirejson.Invalid && (strings.HasPrefix(e.Message, protoPackage) || strings.HasPrefix(e.Message, "TYPE_")) {
		return e.Message
	}
	t = deref(t)
	if t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		t = deref(t.Elem())
	}
	if t == nil {
		return "TYPE_MESSAGE"
	}
	switch t {
	case reflect.TypeFor[Object](), reflect.TypeFor[jsontext.Value]():
		return protoPackage[:len("type.googleapis.com/")] + "google.protobuf.Struct"
	}
	switch t.Kind() {
	case reflect.String:
		return "TYPE_STRING"
	case reflect.Bool:
		return "TYPE_BOOL"
	case reflect.Int32:
		return "TYPE_INT32"
	case reflect.Int64:
		return "TYPE_INT64"
	case reflect.Float32:
		return "TYPE_FLOAT"
	case reflect.Float64:
		return "TYPE_DOUBLE"
	case reflect.Struct:
		if t == reflect.TypeFor[Request]() {
			return protoPackage + "GenerateContentRequest"
		}
		return protoPackage + t.Name()
	}
	return "TYPE_MESSAGE"
}

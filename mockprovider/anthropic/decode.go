package anthropic

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Pydantic-style messages for wrong types ([I]: the pattern of the
// verbatim "Input should be a valid dictionary" and "Field required").
const (
	notObject = "Input should be a valid dictionary or object to extract fields from"
	// notMessageShape is verbatim from a recorded API answer.
	notMessageShape = "Input does not match the expected shape."
	notList         = "Input should be a valid list"
	notString       = "Input should be a valid string"
	notInt          = "Input should be a valid integer"
	notNumber       = "Input should be a valid number"
	notBool         = "Input should be a valid boolean"
	required        = "Field required"
	notAllowed      = "Extra inputs are not permitted"
	fractional      = "Input should be a valid integer, got a number with a fractional part"
	notFinite       = "Input should be a finite number"
	invalidJSON     = "The request body is not valid JSON: "
)

func invalid(msg string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: errInvalidRequest, Message: msg}
}

func invalidRule(rule, msg string) *wire.APIError {
	e := invalid(msg)
	e.RuleID = rule
	return e
}

// Decode parses the body into a Request and the neutral conversation.
// Under --lenient unknown members are kept for the known-fields rule to
// journal instead of being answered.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	lenient := x != nil && x.Env != nil && x.Env.Options.Lenient
	var req *Request
	var aerr *wire.APIError
	if _, _, vertex := vertexCall(requestOf(x)); vertex {
		req, aerr = decodeVertex(x.R, body, lenient)
	} else {
		count := x != nil && x.R != nil && x.R.URL.Path == CountTokensRoute[len("POST "):]
		req, aerr = decodeInSession(sessionOf(x), body, lenient, count)
	}
	if aerr != nil {
		return nil, nil, aerr
	}
	req.Betas = append(req.Betas, betas(requestOf(x))...)
	for _, b := range req.Betas {
		req.Interleaved = req.Interleaved || b == interleavedBeta
	}
	return req, req.conversation(), nil
}

// decodeRequest reads a Messages body, or a count_tokens body (the same
// members less those that only shape an answer: max_tokens, stream,
// sampling, metadata …).
func requestOf(x *dialect.Exchange) *http.Request {
	if x == nil {
		return nil
	}
	return x.R
}

func decodeRequest(body []byte, lenient, countTokens bool) (*Request, *wire.APIError) {
	req, _, _, err := decodePlanned(resume.Full[Message](body), lenient, countTokens)
	return req, err
}

// decodePlanned is decodeRequest of plan.Doc with plan.Reused as the
// first messages (resumed.go); fresh are the messages read from the
// document. A plan that reuses messages fails on anything unclean
// (resume.Decode then decodes the body whole).
func decodePlanned(plan resume.Plan[Message], lenient, countTokens bool) (*Request, []Message, *outsideMessages, *wire.APIError) {
	body := plan.Doc
	var w wireRequest
	var target any = &w
	root := requestType
	var ct *wireCountTokens // only a count_tokens body pays for it
	if countTokens {
		ct = new(wireCountTokens)
		target, root = ct, countTokensType
	}
	prev, _ := plan.Whole.(*outsideMessages)
	var unknown [][]string
	var err *wirejson.Error
	if prev != nil {
		// Everything outside the messages is the last request's, as
		// decoded then: only the new messages are decoded now.
		w = prev.w
		_, err = wirejson.Decode(body, &w.Messages, wirejson.Options{})
	} else {
		unknown, err = wirejson.Decode(body, target, wirejson.Options{Lenient: lenient})
	}
	if err != nil {
		return nil, nil, nil, decodeError(body, root, err)
	}
	if countTokens {
		w = wireRequest{Model: ct.Model, Messages: ct.Messages, System: ct.System, Thinking: ct.Thinking,
			ToolChoice: ct.ToolChoice, Tools: ct.Tools, AnthropicBeta: ct.AnthropicBeta, AnthropicVersion: ct.AnthropicVersion, CacheControl: ct.CacheControl}
	}
	req, fresh, aerr := fromWire(&w, len(plan.Body()), plan.Reused)
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	req.CountTokens = countTokens
	// The walk is by reflection over every block type: only documents
	// that may hold a cache_control pay for it. Each message read here
	// keeps its own count, so reused messages are not walked again.
	outside := &outsideMessages{w: w}
	outside.w.Messages = nil
	if prev != nil {
		outside.breakpoints = prev.breakpoints
	}
	if mayHoldCacheControl(body) {
		if prev == nil {
			outside.breakpoints = countCacheControl(reflect.ValueOf(&outside.w).Elem())
		}
		for i := range fresh {
			fresh[i].readBreakpoints(&w.Messages[i])
		}
	}
	req.CacheBreakpoints = outside.breakpoints
	for _, m := range req.Messages {
		req.CacheBreakpoints += m.breakpoints
	}
	if req.CacheBreakpoints > 0 {
		req.readCachePlan(&w)
	}
	for _, p := range unknown {
		req.Unknown = append(req.Unknown, pydanticPath(body, root, p))
	}
	return req, fresh, outside, nil
}

// outsideMessages is what a session keeps of its last Messages request
// besides the messages (resume.Decode): the members as decoded, and
// the cache_control breakpoints among them.
type outsideMessages struct {
	w           wireRequest
	breakpoints int
}

// decodeError answers a decoding failure as the API does: pydantic's
// message after the dotted path, or the JSON parser's for a body that is
// not JSON.
func decodeError(body []byte, root reflect.Type, e *wirejson.Error) *wire.APIError {
	at := func(msg string) string {
		if len(e.Path) == 0 {
			return msg
		}
		return pydanticPath(body, root, e.Path) + ": " + msg
	}
	switch e.Kind {
	case wirejson.Syntax:
		return invalidRule(RuleValidJSON, syntaxMessage(body, int(e.Offset)))
	case wirejson.InvalidUTF8:
		return invalidRule(RuleValidJSON, fmt.Sprintf("%s'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte",
			invalidJSON, body[min(int(e.Offset), len(body)-1)], e.Offset))
	case wirejson.UnknownMember:
		return invalidRule(RuleKnownFields, at(notAllowed))
	case wirejson.DuplicateMember:
		return invalidRule(RuleFieldTypes, fmt.Sprintf("%sduplicate key '%s': %s", invalidJSON, e.Name(), position(body, int(e.Offset))))
	case wirejson.OutOfRange:
		msg := notInt
		switch {
		case isKind(e.Want, reflect.Float64):
			msg = notFinite
		case strings.ContainsAny(e.Value, ".eE"):
			msg = fractional
		}
		return invalidRule(RuleFieldTypes, at(msg))
	case wirejson.Invalid:
		return invalidRule(RuleFieldTypes, at(e.Message))
	}
	if derefType(e.Want) == messageType {
		return invalidRule(RuleFieldTypes, at(notMessageShape))
	}
	return invalidRule(RuleFieldTypes, at(typeMessage(e.Want)))
}

// messageType is one entry of messages[]: a value there that is not an
// object gets its own wording, not pydantic's model_attributes_type
// (testdata/corpus/datadog-dd-trace-py.jsonl, anthropic_completion_error.yaml#1:
// "messages.0: Input does not match the expected shape." for a string;
// the dictionary wording is evidenced for content blocks only).
var messageType = reflect.TypeFor[wMessage]()

func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isKind(t reflect.Type, k reflect.Kind) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.Kind() == k
}

// typeMessage is pydantic's message for a value of the wrong JSON kind.
func typeMessage(want reflect.Type) string {
	for want != nil && want.Kind() == reflect.Pointer {
		want = want.Elem()
	}
	if want == nil {
		return notObject
	}
	switch want.Kind() {
	case reflect.String:
		return notString
	case reflect.Int64, reflect.Int:
		return notInt
	case reflect.Float64:
		return notNumber
	case reflect.Bool:
		return notBool
	case reflect.Slice:
		return notList
	}
	return notObject
}

// syntaxMessage: "The request body is not valid JSON: <reason>: line L
// column C (char O)" (verbatim prefix and position format from pasted API
// errors).
func syntaxMessage(body []byte, offset int) string {
	offset = min(max(offset, 0), len(body))
	reason := "unexpected character"
	if len(strings.TrimSpace(string(body[offset:]))) == 0 {
		reason = "Expecting value"
	}
	return invalidJSON + reason + ": " + position(body, offset)
}

func position(body []byte, offset int) string {
	offset = min(max(offset, 0), len(body))
	line, col := 1, 1
	for _, c := range body[:offset] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d column %d (char %d)", line, col, offset)
}

var (
	requestType     = reflect.TypeFor[wireRequest]()
	countTokensType = reflect.TypeFor[wireCountTokens]()
	resultItemType  = reflect.TypeFor[resultItem]()
)

// pydanticPath renders a JSON pointer the way the API's validator does:
// dotted, with the tag of each discriminated union the path passes
// through (messages.0.content.0.tool_use.input, tools.0.custom.name).
// It walks the body and the wire types side by side; it runs only for an
// error.
func pydanticPath(body []byte, root reflect.Type, path []string) string {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return wirejson.Dotted(path)
	}
	t, node := root, doc
	out := make([]string, 0, len(path)+2)
	for i, tok := range path {
		out = append(out, tok)
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			k, _ := strconv.Atoi(tok)
			node = nil
			if k >= 0 && k < len(n) {
				node = n[k]
			}
		default:
			node = nil
		}
		t = step(t, tok)
		for t != nil && isUnionType(t) {
			var tag string
			t, tag = variant(t, node)
			if tag != "" && i < len(path)-1 {
				out = append(out, tag)
			}
		}
	}
	return strings.Join(out, ".")
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// step is the type one path token down from t.
func step(t reflect.Type, tok string) reflect.Type {
	t = deref(t)
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		return deref(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == tok {
				return deref(t.Field(i).Type)
			}
		}
	}
	return nil
}

func isUnionType(t reflect.Type) bool {
	if t == resultItemType {
		return true
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if _, ok := t.Field(i).Tag.Lookup("kind"); ok {
			return true
		}
	}
	return false
}

// variant picks the union member a JSON value decodes into, and the tag
// that names it in a path.
func variant(t reflect.Type, v any) (reflect.Type, string) {
	if t == resultItemType {
		f, _ := t.FieldByName("Block")
		return f.Type, ""
	}
	kind := byte('n')
	tag := ""
	switch n := v.(type) {
	case string:
		kind = '"'
	case float64:
		kind = '0'
	case bool:
		kind = 't'
	case []any:
		kind = '['
	case map[string]any:
		kind = '{'
		tag, _ = n["type"].(string)
		if _, ok := n["type"]; !ok {
			if f, ok := t.FieldByName("Tag"); ok {
				tag = f.Tag.Get("default")
			}
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		k := f.Tag.Get("kind")
		if k == "" || k[0] != kind {
			continue
		}
		tags := f.Tag.Get("tag")
		if kind != '{' || tags == "" {
			return deref(f.Type), ""
		}
		for _, candidate := range strings.Split(tags, "|") {
			if candidate == tag {
				return deref(f.Type), tag
			}
		}
	}
	return nil, ""
}

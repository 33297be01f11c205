package openairesp

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Request is a decoded POST /v1/responses body: the checks' input. W is the
// body as the wire model reads it; the fields after it are what the checks
// and the encoder use, read from W once.
type Request struct {
	W ResponseNewParams
	// built is the conversation, made as the request is decoded.
	built *conv.Conversation
	// taken are the facts of Items as taken from the input (prefix.go);
	// zero once Items are not those (compactions expanded, references
	// resolved) or were made otherwise.
	taken prefixFacts
	// Endpoint is the path the request came to (Path, InputTokensPath or
	// CompactPath).
	Endpoint string

	Model              string
	PreviousResponseID *string
	Store              *bool
	Include            []string
	Stream             bool
	ParallelToolCalls  *bool
	// Request fragments the Response object echoes, as sent.
	Instructions, MaxOutputTokens, Metadata, Reasoning, Text, ToolChoice jsontext.Value
	// ToolsRaw keeps each tool as sent, to echo hosted tools unchanged.
	ToolsRaw []jsontext.Value

	// Tools are the function tools (and a bare entry for the others).
	Tools []Tool
	// Items are the request's own input items, in order (a string input
	// becomes one user message). Read only: they may be the session's
	// kept items (resumed.go).
	Items []*Item
	// Prior are the stored effective items of previous_response_id, which
	// the API prepends to Items.
	Prior []*Item
	// PreviousMissing is set when previous_response_id names no stored
	// response of the session (only known online).
	PreviousMissing bool
	// InputString is set when input was a plain string, InputList when
	// it was a list (W.Input.OfInputItemList is then moved to Items).
	InputString, InputList bool
	// additionalTools are the additional_tools input items, in order.
	additionalTools []*ResponseInputItemAdditionalToolsParam
	// Unknown are the members the wire model does not know (lenient mode
	// only: strict mode answers them with a 400).
	Unknown [][]string

	// decls memoizes toolDecls for the checks of this request (a request
	// is checked by one goroutine).
	decls     []openaiwire.ToolDecl
	declsDone bool
	// cachedTokens is the prompt prefix the session's cache had seen
	// (set when the answer is encoded).
	cachedTokens int
}

// Tool is one entry of tools as the checks see it.
type Tool struct {
	Type        string
	Name        *string
	Description *string
	Parameters  jsontext.Value
	Strict      *bool
}

// Effective is the conversation the API sees: stored items, then the
// request's own. Callers only read it.
func (r *Request) Effective() []*Item {
	if len(r.Prior) == 0 && r.Items != nil {
		return r.Items[:len(r.Items):len(r.Items)]
	}
	out := make([]*Item, 0, len(r.Prior)+len(r.Items))
	out = append(out, r.Prior...)
	return append(out, r.Items...)
}

// Decode reads the body into the wire model, resolves
// previous_response_id from the session and builds the neutral
// conversation.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	if x.Env != nil && x.Session != nil {
		x.Env.IssuedReasoning = IssuedReasoning(x.Session)
	}
	req, aerr := decodeInSession(x, body)
	if aerr != nil {
		return nil, nil, aerr
	}
	return req, req.built, nil
}

func decodeRequest(x *dialect.Exchange, body []byte) (*Request, *wire.APIError) {
	req, _, err := decodePlanned(x, resume.Full[Item](body))
	return req, err
}

// decodePlanned is decodeRequest of plan.Doc with plan.Reused as the
// first input items (resumed.go); fresh are the items read from the
// document. A plan that reuses items fails on anything unclean
// (resume.Decode then decodes the body whole).
func decodePlanned(x *dialect.Exchange, plan resume.Plan[Item]) (_ *Request, fresh []Item, _ *wire.APIError) {
	body := plan.Doc
	req := &Request{Endpoint: endpointOf(x)}
	lenient := x != nil && x.Env != nil && x.Env.Options.Lenient
	var unknown [][]string
	var werr *wirejson.Error
	prev, _ := plan.Whole.(*Request)
	if prev != nil {
		// Everything outside the input array is the last request's, as
		// decoded then: only the new items are decoded now (an error in
		// them has the body decoded whole).
		req.W = prev.W
		var items []ResponseInputItemUnionParam
		if _, werr = wirejson.Decode(body, &items, wirejson.Options{}); werr == nil {
			req.W.Input.OfInputItemList = items
		}
	} else if wt := endpointBody(req.Endpoint); wt != nil {
		// The endpoint's own body type judges the request; the shared
		// model then reads what the endpoints have in common.
		if unknown, werr = wirejson.Decode(body, wt, wirejson.Options{Lenient: lenient}); werr == nil {
			_, werr = wirejson.Decode(body, &req.W, wirejson.Options{Lenient: true})
		}
	} else {
		unknown, werr = wirejson.Decode(body, &req.W, wirejson.Options{Lenient: lenient})
	}
	if werr != nil {
		if werr.Value == "" && werr.Offset >= 0 && werr.Offset < int64(len(body)) {
			werr.Value = valueAt(body[werr.Offset:])
		}
		return nil, nil, decodeError(werr)
	}
	req.Unknown = unknown
	fresh = req.fromWire(body, prev, plan.Reused, plan.Keeps())
	req.resolvePrevious(x)
	var lookup func(string) (Item, bool)
	if x != nil && x.Session != nil {
		lookup = func(id string) (Item, bool) { return lookupItem(x.Session, id) }
	}
	req.resolveReferences(lookup)
	var sess *session.Session
	if x != nil {
		sess = x.Session
	}
	// Built here, before the session keeps the fresh items: building it
	// notes on them where the turns stood (conversationIn).
	req.built = req.conversationIn(sess, len(plan.Reused), plan.Keeps())
	return req, fresh, nil
}

// fromWire fills the checks' fields from the decoded body (prev: the
// last request, whose members outside the input array body's are).
func (r *Request) fromWire(body []byte, prev *Request, reused []*Item, keep bool) (fresh []Item) {
	w := &r.W
	r.Model, r.PreviousResponseID, r.Store, r.ParallelToolCalls = w.Model, w.PreviousResponseID, w.Store, w.ParallelToolCalls
	r.Stream = w.Stream != nil && *w.Stream
	r.Include = w.Include
	// The members the checks read and the response echoes as sent: read
	// again from the body only when one was sent (a loop's requests
	// rarely send any of them).
	if prev != nil {
		r.Instructions, r.MaxOutputTokens, r.Metadata = prev.Instructions, prev.MaxOutputTokens, prev.Metadata
		r.Reasoning, r.Text, r.ToolChoice = prev.Reasoning, prev.Text, prev.ToolChoice
	} else if echoedMembers(w) > 0 {
		var echo struct {
			Instructions    jsontext.Value `json:"instructions"`
			MaxOutputTokens jsontext.Value `json:"max_output_tokens"`
			Metadata        jsontext.Value `json:"metadata"`
			Reasoning       jsontext.Value `json:"reasoning"`
			Text            jsontext.Value `json:"text"`
			ToolChoice      jsontext.Value `json:"tool_choice"`
		}
		_ = json.Unmarshal(body, &echo, wirejson.Again(json.RejectUnknownMembers(false)))
		r.Instructions, r.MaxOutputTokens, r.Metadata = echo.Instructions, echo.MaxOutputTokens, echo.Metadata
		r.Reasoning, r.Text, r.ToolChoice = echo.Reasoning, echo.Text, echo.ToolChoice
	}
	if len(w.Tools) > 0 {
		// Each tool as sent, kept by the decoder.
		r.ToolsRaw = make([]jsontext.Value, len(w.Tools))
		r.Tools = make([]Tool, len(w.Tools))
		for i := range w.Tools {
			t := &w.Tools[i]
			r.ToolsRaw[i] = t.raw
			if f := t.OfFunction; f != nil {
				r.Tools[i] = Tool{Type: "function", Name: f.Name, Description: f.Description, Parameters: f.Parameters, Strict: f.Strict}
			} else {
				r.Tools[i] = Tool{Type: typeOf(r.ToolsRaw, i)}
			}
		}
	}
	switch in := w.Input; {
	case in.OfString != nil:
		// The one user message the API reads a string as, stored as
		// {"content":s,"role":"user"}.
		raw := marshal(struct {
			Content string `json:"content"`
			Role    string `json:"role"`
		}{*in.OfString, "user"})
		r.Items = []*Item{{Type: "message", Role: "user", Content: &MessageContent{OfString: in.OfString}, Raw: raw}}
		r.InputString = true
	case in.OfInputItemList != nil || len(reused) > 0:
		fresh = r.takeItems(reused, keep)
		if r.taken&factCompaction != 0 || !r.factsKnown() {
			r.Items = expandCompactions(r.Items)
			r.taken = 0
		}
	}
	return fresh
}

// outside is what the session keeps of r for its next request
// (resume.Decode): the members outside the input array as decoded,
// read only.
func (r *Request) outside() *Request {
	o := &Request{W: r.W, Instructions: r.Instructions, MaxOutputTokens: r.MaxOutputTokens, Metadata: r.Metadata,
		Reasoning: r.Reasoning, Text: r.Text, ToolChoice: r.ToolChoice}
	o.W.Input = ResponseNewParamsInputUnion{}
	return o
}

// echoedMembers counts the members kept as sent that the body holds with a
// value other than null.
func echoedMembers(w *ResponseNewParams) int {
	n := 0
	for _, sent := range [...]bool{w.Instructions != nil, w.MaxOutputTokens != nil, w.Metadata != nil, w.Reasoning != nil, w.Text != nil,
		w.ToolChoice != (ResponseNewParamsToolChoiceUnion{})} {
		if sent {
			n++
		}
	}
	return n
}

func typeOf(raws []jsontext.Value, i int) string {
	if i >= len(raws) {
		return ""
	}
	t, _ := typeMember(raws[i])
	return t
}

// valueAt is the JSON value at the start of b (the library does not always
// say which number it refused).
func valueAt(b []byte) string {
	v, err := jsontext.NewDecoder(bytes.NewReader(b)).ReadValue()
	if err != nil || v.Kind() != '0' {
		return ""
	}
	return string(v)
}

// resolvePrevious prepends the stored items of previous_response_id.
func (r *Request) resolvePrevious(x *dialect.Exchange) {
	if r.PreviousResponseID == nil || *r.PreviousResponseID == "" || x == nil || x.Session == nil {
		return
	}
	stored, ok := lookupPrevious(x, *r.PreviousResponseID)
	if !ok {
		r.PreviousMissing = true
		return
	}
	r.Prior = expandCompactions(readStored(stored))
}

// readStored reads back the items of a stored response: those kept read,
// then the others from their bytes.
func readStored(stored *StoredResponse) []*Item {
	out := make([]*Item, 0, len(stored.read)+len(stored.rest))
	out = append(out, stored.read...)
	for _, raw := range stored.rest {
		if it, ok := storedItem(raw); ok {
			out = append(out, &it)
		}
	}
	return out
}

// readBackItem is what storedItem makes of the item's bytes, when that
// is at hand: made with an input item, or the item itself when it was
// read back (ok false: decode the bytes).
func (it *Item) readBackItem() (*Item, bool) {
	switch {
	case it.readBack != nil:
		return it.readBack, true
	case it.Index == -1 && !it.FromReference && !it.NotPersisted && !it.Unresolved:
		return it, true
	}
	return nil, false
}

// storedItem reads back an item the mock stored (valid by construction).
func storedItem(raw []byte) (Item, bool) {
	var u ResponseInputItemUnionParam
	if json.Unmarshal(raw, &u, json.RejectUnknownMembers(false)) != nil {
		return Item{}, false
	}
	it := itemOf(&u, -1)
	it.Raw = raw
	return it, true
}

// decodeError words a decoding failure as the API does: a body that is not
// JSON gets the parse error; the rest name the member at its bracketed
// path (input[0].content), with OpenAI's type names.
func decodeError(e *wirejson.Error) *wire.APIError {
	param := wirejson.Bracketed(e.Path)
	bad := func(rule, code, msg string) *wire.APIError {
		return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: param, Code: code, Message: msg, RuleID: rule}
	}
	switch e.Kind {
	case wirejson.Syntax, wirejson.InvalidUTF8:
		a := openaiwire.InvalidJSON()
		a.RuleID = RuleValidJSON
		return a
	case wirejson.UnknownMember:
		if v, ok := movedMember(e.Path); ok {
			return bad(RuleResponseFormatMoved, v.Code.(string), v.Message)
		}
		return bad(RuleKnownFields, "unknown_parameter", fmt.Sprintf("Unknown parameter: '%s'.", param))
	case wirejson.DuplicateMember:
		return bad(RuleFieldTypes, "invalid_value", fmt.Sprintf("Duplicate parameter: '%s'.", param))
	case wirejson.Invalid:
		return bad(RuleFieldTypes, "invalid_value", e.Message)
	case wirejson.OutOfRange:
		if isInteger(e.Want) && strings.ContainsAny(e.Value, ".eE") && !overflows(e.Value) {
			return bad(RuleFieldTypes, "invalid_type", fmt.Sprintf("Invalid type for '%s': expected an integer, but got a decimal instead.", param))
		}
		neg := strings.HasPrefix(e.Value, "-")
		kind, bound, code := "decimal", "1.7976931348623157e+308", "decimal"
		if isInteger(e.Want) {
			kind, bound, code = "integer", "9223372036854775807", "integer"
		}
		if neg {
			return bad(RuleFieldTypes, code+"_below_min_value", fmt.Sprintf("Invalid '%s': %s below minimum value. Expected a value >= -%s, but got %s instead.", param, kind, bound, e.Value))
		}
		return bad(RuleFieldTypes, code+"_above_max_value", fmt.Sprintf("Invalid '%s': %s above maximum value. Expected a value <= %s, but got %s instead.", param, kind, bound, e.Value))
	}
	// Wrong type.
	want, got := expectedOf(e.Want), GotOf(e.Got, e.Value)
	var ute *unionTypeError
	if errors.As(e.Err, &ute) {
		want, got = ute.Expected, GotOf(ute.Got, ute.Value)
	}
	return bad(RuleFieldTypes, "invalid_type", fmt.Sprintf("Invalid type for '%s': expected %s, but got %s instead.", param, want, got))
}

func isInteger(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.Kind() == reflect.Int64
}

// overflows reports a number too large for any Go number (1e999999).
func overflows(v string) bool {
	var f float64
	return json.Unmarshal([]byte(v), &f) != nil
}

// expectedOf names the JSON type a Go field wants, as the API does.
func expectedOf(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a valid value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a decimal"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}

// GotOf words a JSON value's kind as the API's type errors do ("but got
// an integer instead"); value is the value's text (numbers only).
func GotOf(kind byte, value string) string {
	switch kind {
	case '"':
		return "a string"
	case '0':
		if strings.ContainsAny(value, ".eE") {
			return "a decimal"
		}
		return "an integer"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return "a value of another type"
}

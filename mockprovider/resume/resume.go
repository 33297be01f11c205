// Package resume lets a session decode only what is new in a request: an
// agent loop resends its whole conversation each turn, so a request's
// conversation array (Chat "messages", Responses "input", Anthropic and
// Bedrock "messages", Gemini "contents") mostly repeats the previous
// request's, byte for byte. Decoding those bytes again, or converting and
// checking them again, costs more than everything else a long
// conversation's request asks of the server.
//
// The session keeps its last request's body, where each element of its
// conversation array ends, and what the dialect made of each element:
// the decoded element and whatever depends on it and the elements before
// it alone (its conversation turn, its prompt text, the facts its rules
// read), made once and read only after.
// The next request's elements that lie wholly inside the bytes it shares
// with that body are the same elements at the same indexes (JSON is read
// left to right, so identical leading bytes parse identically); they are
// taken as kept. The dialect strictly decodes a document made of
// everything else — the body before the array, the array's opening, and
// the body from the first element not kept — so every top-level member,
// duplicates and unknown members included, is still checked. When that
// document does not decode cleanly the dialect decodes the whole body
// instead, so errors, paths and offsets are exactly those of a full
// decode.
//
// The session also keeps what the dialect made of the body besides the
// array (its tools, system text, settings). When a body's bytes outside
// the array are the same as the last one's — what follows its new
// elements is the last body's end, byte for byte — the plan is Whole:
// those members are taken as decoded then, and only the new elements are
// decoded, as an array of their own.
package resume

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// MaxBody is the largest body a session keeps for the next request:
// what it keeps is charged to the store's byte budget as well.
const MaxBody = 8 << 20

// MinBody is the smallest: a shorter body decodes whole in about the time
// keeping it takes (the session's lock, the store's budget), which showed
// as a tenth more CPU on a first turn.
const MinBody = 4 << 10

// keptCostFactor estimates what a kept body costs in memory, its decoded
// elements and what the dialect made of them (conversation turns, rule
// facts) included, per byte of body. TestBudgetCoversLongConversations
// (mockprovider/benchmarks) holds the budgets to the live heap a long
// conversation's request leaves: 8–13 bytes per body byte in all, of which
// the journal entry is charged the rest.
const keptCostFactor = 7

// Cache is a dialect's declaration of what its sessions keep of their
// last request: E is what the dialect makes of one element of the array
// named Member. Kept elements are shared by the requests that reuse
// them, so E must be read only once made.
type Cache[E any] struct {
	member string
	kept   *session.Kept[*prior[E]]
}

// New declares a cache for the top-level array member.
func New[E any](member string) *Cache[E] {
	return &Cache[E]{
		member: member,
		kept: session.NewKept(func(session.Limits) int { return 1 },
			func(p *prior[E]) int64 { return int64(len(p.body)) * keptCostFactor }),
	}
}

// prior is one request as kept: never written once kept, so concurrent
// requests of a session may read it without the session's lock.
type prior[E any] struct {
	body  []byte
	array int   // offset of the array's '['
	close int   // offset of the array's ']'
	ends  []int // offset just past each element
	elems []*E
	// whole is what the dialect decoded of the body besides the array
	// (Decode; nil: nothing), read only.
	whole any
}

const keptID = "last"

// Plan is how one request is decoded: Doc is what the dialect decodes
// strictly (the body itself when nothing is reused), and Reused the
// elements 0..len(Reused)-1 of the array, as made from the previous
// request. Doc's array holds only the elements after them.
type Plan[E any] struct {
	Doc    []byte
	Reused []*E
	// Whole, when set, is what the dialect made of the last request's
	// body besides its array (Decode): everything outside the array
	// is the same bytes as then, and Doc is only an array of the elements
	// after the reused ones, to be decoded as the array's.
	Whole any
	body  []byte
	array int
	close int // the array's ']' in body, for a Whole plan
	ends  []int
	shift int // body offset = Doc offset + shift, for Doc offsets past the array's '['
	keeps bool
}

// Keeps reports whether the elements the dialect makes from Doc's array
// are kept for the session's next request: when not (a body too short or
// too long to keep, no session), the dialect need not prepare them for
// sharing.
func (p Plan[E]) Keeps() bool { return p.keeps }

// Body is the request's body (Doc is a document made of it when
// messages are reused).
func (p Plan[E]) Body() []byte { return p.body }

// Full is the plan that decodes body whole.
func Full[E any](body []byte) Plan[E] { return Plan[E]{Doc: body, body: body, array: -1} }

// Begin plans the decoding of body in session s (nil: no session, the
// body is decoded whole).
func (c *Cache[E]) Begin(s *session.Session, body []byte) Plan[E] {
	if c == nil || s == nil || len(body) < MinBody {
		return Full[E](body)
	}
	plan := Full[E](body)
	if p, ok := c.kept.Get(s, keptID); ok && p != nil {
		plan = p.plan(body)
	}
	plan.keeps = len(body) <= MaxBody
	return plan
}

func (p *prior[E]) plan(body []byte) Plan[E] {
	full := Full[E](body)
	common := commonPrefix(p.body, body)
	// Elements that end inside the common prefix are reused; a number
	// or literal only with the byte after it (3 is not 33's start).
	k, _ := slices.BinarySearch(p.ends, common+1)
	if k > 0 && p.ends[k-1] == common && !bytes.ContainsRune([]byte(`}]"`), rune(p.body[common-1])) {
		k--
	}
	if k == 0 {
		return full
	}
	// After the last reused element: a comma and the next element, or the
	// array's end. Anything else (a trailing comma, a syntax error) is the
	// full decode's to report.
	next := skipSpace(body, p.ends[k-1])
	if next >= len(body) {
		return full
	}
	switch body[next] {
	case ',':
		next++
		if after := skipSpace(body, next); after >= len(body) || body[after] == ']' {
			return full
		}
	case ']':
	default:
		return full
	}
	if p.whole != nil {
		// The body outside the array is the same as the last one's when
		// what follows the array's new elements is: only they are new.
		if close, ok := arrayClose(body, next); ok && bytes.Equal(p.body[p.close:], body[close:]) {
			doc := make([]byte, 0, close-next+2)
			doc = append(append(append(doc, '['), body[next:close]...), ']')
			return Plan[E]{
				Doc: doc, Reused: p.elems[:k:k], Whole: p.whole, body: body, array: p.array, close: close,
				ends: p.ends[:k:k], shift: next - 1,
			}
		}
	}
	doc := make([]byte, 0, p.array+1+len(body)-next)
	doc = append(append(doc, body[:p.array+1]...), body[next:]...)
	return Plan[E]{
		Doc: doc, Reused: p.elems[:k:k], body: body, array: p.array,
		ends: p.ends[:k:k], shift: next - (p.array + 1),
	}
}

// arrayClose finds the ']' closing the array whose elements from next on
// (the first element not reused, or the ']' itself) are in body.
func arrayClose(body []byte, next int) (int, bool) {
	dec := jsontext.NewDecoder(io.MultiReader(strings.NewReader("["), bytes.NewReader(body[next:])),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return 0, false
	}
	for dec.PeekKind() != ']' {
		if dec.SkipValue() != nil {
			return 0, false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return 0, false
	}
	return next + int(dec.InputOffset()) - 2, true
}

// keep records the request just decoded by plan (its Doc decoded cleanly
// and strictly) for the session's next request: fresh are the elements
// made from Doc's array, in order, kept as they are (not copied). body
// must not be written to afterwards. A body too large to keep, or a Doc
// whose array cannot be found, forgets what the session kept.
func (c *Cache[E]) keep(s *session.Session, plan Plan[E], fresh []E, whole any) {
	if c == nil || s == nil {
		return
	}
	if len(plan.body) < MinBody {
		return // what the session keeps may serve a longer request
	}
	if len(plan.body) > MaxBody {
		c.kept.Delete(s, keptID)
		return
	}
	var array, close int
	var ends []int
	ok := false
	if plan.Whole != nil {
		array, close = plan.array, plan.close
		ends, ok = arrayEnds(plan.Doc)
	} else {
		array, close, ends, ok = elementEnds(plan.Doc, c.member)
		if len(plan.Reused) > 0 {
			close += plan.shift
		}
	}
	if !ok || len(ends) != len(fresh) || (len(plan.Reused) > 0 && array != plan.array) {
		c.kept.Delete(s, keptID)
		return
	}
	// The body is kept as it is, not copied: the server reads each body
	// into a buffer of its own that nothing writes to afterwards.
	p := &prior[E]{body: plan.body, array: array, close: close, whole: whole}
	p.ends = make([]int, 0, len(plan.ends)+len(ends))
	p.ends = append(p.ends, plan.ends...)
	for _, e := range ends {
		if len(plan.Reused) > 0 {
			e += plan.shift
		}
		p.ends = append(p.ends, e)
	}
	p.elems = make([]*E, 0, len(plan.Reused)+len(fresh))
	p.elems = append(p.elems, plan.Reused...)
	for i := range fresh {
		p.elems = append(p.elems, &fresh[i])
	}
	c.kept.Put(s, session.KeptItem[*prior[E]]{ID: keptID, Value: p})
}

// Decode decodes body in session s through decode, reusing what s kept
// of its last request, and keeps this one for the next. decode reads
// plan.Doc with plan.Reused as the array's first elements and returns
// the elements it made from the document (nil: not to be kept) and what
// it made of the body besides the array (whole: nil for nothing; read
// only once returned); a plan that reuses elements must fail on anything
// unclean — an error in its document, members it would only collect —
// and the body is then decoded whole, so what a client sees never
// depends on what was reused. A next body whose bytes outside the array
// are the same as this one's comes as a Whole plan, whose Doc holds only
// the new elements.
func Decode[E, R any](c *Cache[E], s *session.Session, body []byte, decode func(Plan[E]) (R, []E, any, *wire.APIError)) (R, *wire.APIError) {
	plan := c.Begin(s, body)
	out, fresh, whole, err := decode(plan)
	if err != nil && len(plan.Reused) > 0 {
		full := Full[E](body)
		full.keeps = plan.keeps
		plan = full
		out, fresh, whole, err = decode(plan)
	}
	if len(body) < MinBody {
		return out, err
	}
	if err != nil || fresh == nil {
		c.Forget(s)
		return out, err
	}
	c.keep(s, plan, fresh, whole)
	return out, nil
}

// Forget drops what s keeps (a request the dialect could not resume from
// cleanly).
func (c *Cache[E]) Forget(s *session.Session) {
	if c != nil && s != nil {
		c.kept.Delete(s, keptID)
	}
}

// elementEnds finds the top-level array member of doc (a document the
// strict decoder accepted) and where each of its elements ends. It fails
// unless member is the one top-level name a decoder matching names
// loosely (Gemini's: case, '_' and '-' ignored) could take for it.
func elementEnds(doc []byte, member string) (array, close int, ends []int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return 0, 0, nil, false
	}
	found := false
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return 0, 0, nil, false
		}
		name := tok.String()
		if !sameLoosely(name, member) {
			if dec.SkipValue() != nil {
				return 0, 0, nil, false
			}
			continue
		}
		if found || name != member || dec.PeekKind() != '[' {
			return 0, 0, nil, false
		}
		found = true
		if _, err := dec.ReadToken(); err != nil {
			return 0, 0, nil, false
		}
		array = int(dec.InputOffset()) - 1
		for dec.PeekKind() != ']' {
			if dec.SkipValue() != nil {
				return 0, 0, nil, false
			}
			ends = append(ends, int(dec.InputOffset()))
		}
		if _, err := dec.ReadToken(); err != nil {
			return 0, 0, nil, false
		}
		close = int(dec.InputOffset()) - 1
	}
	return array, close, ends, found && doc[array] == '[' && doc[close] == ']'
}

// arrayEnds is where each element of the array doc ends.
func arrayEnds(doc []byte) (ends []int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, false
	}
	for dec.PeekKind() != ']' {
		if dec.SkipValue() != nil {
			return nil, false
		}
		ends = append(ends, int(dec.InputOffset()))
	}
	_, err := dec.ReadToken()
	return ends, err == nil
}

// sameLoosely reports whether a loose matcher takes name for member (a
// lower-case word).
func sameLoosely(name, member string) bool {
	i := 0
	for _, r := range name {
		switch {
		case r == '_' || r == '-':
			continue
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		}
		if i >= len(member) || rune(member[i]) != r {
			return false
		}
		i++
	}
	return i == len(member)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	// Compare in blocks so the common case, a long shared prefix, runs at
	// memory speed.
	const block = 4096
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

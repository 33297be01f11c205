package wirejson

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/internal/bounded"
)

// Memo remembers what exact bytes decoded to, for the part of a request
// that every turn of a tool loop repeats unchanged: the tool declarations,
// often the largest part of a body, and the conversation's earlier
// messages, which a loop sends again on every turn. A repeated value costs
// a bracket scan, a map lookup and the tokenizer's skip (which still
// checks its syntax, names and UTF-8).
//
// A value the memo does not know is decoded in place by the body's own
// decoder, exactly as without the memo, so a body with several faults is
// answered for the same one. Only strict decodes that succeeded are kept,
// and the types memoized decode the same wherever they sit, so a hit is
// exactly what decoding would have produced. The values are shared
// between requests and goroutines: their users only read them.
type Memo[T any] struct {
	// kept holds the values by their bytes (up to 4 MiB of them; when
	// full the memo starts over: a tool set is a few KiB).
	kept bounded.Map[T]
	// misses counts the values decoded afresh.
	misses atomic.Int64
	// Presize, when set, is given a value's bytes before a miss decodes
	// them into v, to size its slices at once: decoding appends to a
	// slice, growing a large array through a dozen copies.
	Presize func(raw []byte, v *T)

	once            sync.Once
	strict, lenient json.Options
}

// Misses is how many values the memo has decoded afresh (its tests and
// the dialects' count what a repeated request decodes).
func (m *Memo[T]) Misses() int64 { return m.misses.Load() }

// Options are the decoding options for Decode that route values of type T
// through the memo, strict or lenient about unknown members.
func (m *Memo[T]) Options(lenient bool) json.Options {
	m.once.Do(func() {
		m.strict, m.lenient = throughMemos(m.unmarshalers())
	})
	if lenient {
		return m.lenient
	}
	return m.strict
}

func (m *Memo[T]) unmarshalers() *json.Unmarshalers { return json.UnmarshalFromFunc(m.decode) }

func throughMemos(u *json.Unmarshalers) (strict, lenient json.Options) {
	through := json.WithUnmarshalers(u)
	return json.JoinOptions(strictOpts, through), json.JoinOptions(lenientOpts, through)
}

// Memos routes the values of several types through their memos in one
// decode (for Options.Memo): the tools and the conversation's items of a
// dialect, say. The types must not nest in each other: a value read from
// a memo is not looked up again inside.
type Memos struct {
	once            sync.Once
	memos           []interface{ unmarshalers() *json.Unmarshalers }
	strict, lenient json.Options
}

// NewMemos groups memos, each a *Memo[T] of a different T.
func NewMemos(memos ...interface{ unmarshalers() *json.Unmarshalers }) *Memos {
	return &Memos{memos: memos}
}

// Options are the decoding options for Decode, as Memo.Options.
func (ms *Memos) Options(lenient bool) json.Options {
	ms.once.Do(func() {
		us := make([]*json.Unmarshalers, len(ms.memos))
		for i, m := range ms.memos {
			us[i] = m.unmarshalers()
		}
		ms.strict, ms.lenient = throughMemos(json.JoinUnmarshalers(us...))
	})
	if lenient {
		return ms.lenient
	}
	return ms.strict
}

// withoutMemos decodes a memoized type itself: the memo's own unmarshaler
// would otherwise be called again for it.
var withoutMemos = json.WithUnmarshalers(nil)

func (m *Memo[T]) decode(dec *jsontext.Decoder, v *T) error {
	if k := dec.PeekKind(); k != '{' && k != '[' {
		return errors.ErrUnsupported // nothing read: decoded as without the memo
	}
	// The value's bytes, looked at before the decoder reads them.
	rest := dec.UnreadBuffer()
	lead := len(rest) - len(bytes.TrimLeft(rest, ",: \n\r\t"))
	n := ValueLength(rest[lead:])
	if n > 0 {
		if cached, ok := m.kept.Get(rest[lead : lead+n]); ok {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			*v = cached
			return nil
		}
	}
	// The key is copied before decoding: the unread buffer is valid only
	// until the decoder reads on.
	var key string
	if strict, _ := json.GetOption(dec.Options(), json.RejectUnknownMembers); strict && n > 0 {
		key = string(rest[lead : lead+n])
	}
	if m.Presize != nil && n > 0 {
		m.Presize(rest[lead:lead+n], v)
	}
	start := dec.InputOffset()
	m.misses.Add(1)
	if err := json.UnmarshalDecode(dec, v, withoutMemos); err != nil {
		return err
	}
	if key != "" && dec.InputOffset()-start == int64(lead+n) {
		m.kept.Put(key, *v)
	}
	return nil
}

// Relocate makes an error found decoding a value on its own an error of
// the whole body: its pointer is prefixed with where the value sits (at)
// and its offset moved by the value's start.
func Relocate(err error, at jsontext.Pointer, offset int64) error {
	var se *json.SemanticError
	var xe *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		se.JSONPointer = at + se.JSONPointer
		se.ByteOffset += offset
		return se
	case errors.As(err, &xe):
		xe.JSONPointer = at + xe.JSONPointer
		xe.ByteOffset += offset
		return xe
	}
	return err
}

package wirejson

import (
	"errors"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Memo remembers what exact bytes decoded to, for the part of a request
// that every turn of a tool loop repeats unchanged: the tool declarations,
// often the largest part of a body and the most expensive to decode (each
// is a union whose variant is chosen by a second read). A repeated value
// costs one map lookup. Only strict decodes that succeeded are kept, so a
// hit is exactly what decoding would have produced; the values are shared
// between requests, and their users only read them.
type Memo[T any] struct {
	// MaxBytes bounds the bytes of the values remembered; when full the
	// memo starts over (a tool set is a few KiB; the bound is generous).
	MaxBytes int

	mu    sync.RWMutex
	m     map[string]T
	bytes int

	once            sync.Once
	strict, lenient json.Options
}

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

func (m *Memo[T]) decode(dec *jsontext.Decoder, v *T) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	m.mu.RLock()
	cached, ok := m.m[string(raw)]
	m.mu.RUnlock()
	if ok {
		*v = cached
		return nil
	}
	end := dec.InputOffset()
	var fresh T
	if err := json.Unmarshal(raw, &fresh, Again(dec.Options())); err != nil {
		return Relocate(err, dec.StackPointer(), end-int64(len(raw)))
	}
	if strict, _ := json.GetOption(dec.Options(), json.RejectUnknownMembers); strict {
		m.put(raw, fresh)
	}
	*v = fresh
	return nil
}

func (m *Memo[T]) put(raw []byte, v T) {
	limit := m.MaxBytes
	if limit <= 0 {
		limit = 4 << 20
	}
	if len(raw) > limit/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || m.bytes+len(raw) > limit {
		m.m, m.bytes = map[string]T{}, 0
	}
	m.m[string(raw)] = v
	m.bytes += len(raw)
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

package anthropic

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// A tool loop sends its whole history with every request: each earlier
// message comes back byte for byte, and decoding it again (a union per
// block, each read twice) was most of the decoding. The messages are
// remembered by their exact bytes, as the tool declarations are.
//
// Unlike wirejson.Memo, which reads a value whole before decoding it, a
// message the memo does not know is decoded in place by the body's own
// decoder, exactly as without the memo: one read, and a body with several
// faults is answered for the same one (a semantic fault before a syntax
// fault later in the same message stays the one reported). Only a value
// that decoded strictly is remembered, and bytes that decoded once decode
// the same anywhere (nothing in a message's decoding depends on where it
// sits), so a hit is what decoding would have produced.
//
// A remembered message is shared between requests and goroutines: the
// code that reads it (fromMessage, fromBlock, readCachePlan,
// countCacheControl) only reads, and hands on strings, copies of small
// structs (media content), or spans of the memo's bytes that nothing
// writes (Block.Input, Block.IsError, read by the rules, the cache hash,
// the size estimate and arguments).
type messageMemo struct {
	valueMemo[wMessage]

	// decodes counts the messages decoded afresh (a test reads it).
	decodes atomic.Int64
}

var messagesMemo = messageMemo{valueMemo: valueMemo[wMessage]{maxBytes: 4 << 20}}

// freshMessage is wMessage without the memo: the decoder's default for
// the struct, which the memo calls on a miss.
type freshMessage wMessage

// unmarshal is the memo's unmarshaler for one element of messages[].
func (m *messageMemo) unmarshal(dec *jsontext.Decoder, v *wMessage) error {
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported // nothing read: the default decodes it
	}
	rest := dec.UnreadBuffer()
	lead := len(rest) - len(bytes.TrimLeft(rest, ",: \n\r\t"))
	n := objectLength(rest[lead:])
	var raw []byte
	if n > 0 {
		raw = rest[lead : lead+n]
		if cached, ok := m.get(raw); ok {
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
	if strict, _ := json.GetOption(dec.Options(), json.RejectUnknownMembers); strict && n > 0 && n <= m.maxBytes/4 {
		key = string(raw)
	}
	start := dec.InputOffset()
	m.decodes.Add(1)
	if err := json.UnmarshalDecode(dec, (*freshMessage)(v)); err != nil {
		return err
	}
	if key != "" && dec.InputOffset()-start == int64(lead+n) {
		m.put(key, *v)
	}
	return nil
}

// objectLength is the length of the JSON object b starts with, found by
// matching brackets outside strings, or 0 when b does not hold all of it.
// It validates nothing: a length only serves to look bytes up, and bytes
// found in the memo were a whole valid object when they were put there.
func objectLength(b []byte) int {
	depth, in := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			switch c {
			case '\\':
				i++
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// requestMemos routes the tool declarations and the messages of a body
// through their memos (wirejson.Options.Memo).
type requestMemos struct {
	tools    *wirejson.Memo[[]wToolUnion]
	messages *messageMemo

	once            sync.Once
	strict, lenient json.Options
}

// memos are the process's memos; newMemos gives empty ones (tests compare
// what a hit gives with what a miss gives).
var memos = requestMemos{tools: &toolsMemo, messages: &messagesMemo}

func newMemos() *requestMemos {
	return &requestMemos{tools: new(wirejson.Memo[[]wToolUnion]), messages: &messageMemo{valueMemo: valueMemo[wMessage]{maxBytes: 4 << 20}}}
}

func (r *requestMemos) Options(lenient bool) json.Options {
	r.once.Do(func() {
		tools, _ := json.GetOption(r.tools.Options(false), json.WithUnmarshalers)
		both := json.WithUnmarshalers(json.JoinUnmarshalers(tools, json.UnmarshalFromFunc(r.messages.unmarshal)))
		r.strict = json.JoinOptions(r.tools.Options(false), both)
		r.lenient = json.JoinOptions(r.tools.Options(true), both)
	})
	if lenient {
		return r.lenient
	}
	return r.strict
}

// valueMemo remembers what bytes decoded to, for values decoded from spans
// of a body (tool_use inputs), bounded as the other memos are. Its values
// are shared: their users only read them.
type valueMemo[T any] struct {
	maxBytes int

	mu    sync.RWMutex
	m     map[string]T
	bytes int
}

var argumentsMemo = valueMemo[map[string]any]{maxBytes: 4 << 20}

func (m *valueMemo[T]) get(raw []byte) (T, bool) {
	m.mu.RLock()
	v, ok := m.m[string(raw)]
	m.mu.RUnlock()
	return v, ok
}

// put remembers v under key; a value over a quarter of the bound is not
// kept, and a full memo starts over.
func (m *valueMemo[T]) put(key string, v T) {
	if len(key) > m.maxBytes/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || m.bytes+len(key) > m.maxBytes {
		m.m, m.bytes = map[string]T{}, 0
	}
	m.m[key] = v
	m.bytes += len(key)
}

package anthropic

import (
	"sync"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// A tool loop sends its whole history with every request: each earlier
// message comes back byte for byte, and decoding it again (a union per
// block, each read twice) was most of the decoding. The messages are
// remembered by their exact bytes, as the tool declarations are.
//
// A remembered message is shared between requests and goroutines: the
// code that reads it (fromMessage, fromBlock, readCachePlan,
// countCacheControl) only reads, and hands on strings, copies of small
// structs (media content), or spans of the memo's bytes that nothing
// writes (Block.Input, Block.IsError, read by the rules, the cache hash,
// the size estimate and arguments).
var messagesMemo = wirejson.Memo[wMessage]{MaxBytes: 4 << 20}

// memos are the process's memos; newMemos gives empty ones (tests compare
// what a hit gives with what a miss gives).
var memos = wirejson.NewMemos(&toolsMemo, &messagesMemo)

func newMemos() *wirejson.Memos {
	return wirejson.NewMemos(new(wirejson.Memo[[]wToolUnion]), &wirejson.Memo[wMessage]{MaxBytes: 4 << 20})
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

package anthropic

import (
	"github.com/toolwire/toolwire/mockprovider/internal/bounded"
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
var messagesMemo wirejson.Memo[wMessage]

// memos are the process's memos; newMemos gives empty ones (tests compare
// what a hit gives with what a miss gives).
var memos = wirejson.NewMemos(&toolsMemo, &messagesMemo)

func newMemos() *wirejson.Memos {
	return wirejson.NewMemos(new(wirejson.Memo[[]wToolUnion]), new(wirejson.Memo[wMessage]))
}

// argumentsMemo keeps tool_use inputs decoded for the model by their
// bytes. Its maps are shared: their users only read them.
var argumentsMemo bounded.Map[map[string]any]

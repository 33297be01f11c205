package openairesp

import (
	"unsafe"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// prefixFacts are what the input items up to one (that one included)
// hold, made as the item is taken from the input (takeItems) from the
// facts of the item before it, and kept with the item: a request that
// resends a long conversation reads them from its last item instead of
// walking every item for each of them (each walk over the items of a
// 400-round conversation cost a request a few percent). Resumed items
// keep facts made with the same items before them, so they hold for the
// request that reuses them.
type prefixFacts uint8

const (
	// factTaken marks an item taken from its request's input in order:
	// the facts below are the items' up to it. A request's items made
	// otherwise (a stored response's, a hand-built request's) have none,
	// and every check walks them.
	factTaken prefixFacts = 1 << iota
	factAdditionalTools
	factCompaction
	factReference
	// factMissing: an item lacks a member its type requires
	// (checkRequired).
	factMissing
	// factOutputUnbound: a function_call_output whose call is not among
	// the items just before it (everyOutputAfterItsCall fails).
	factOutputUnbound
)

// takeFacts sets the facts of items[i], just taken, from those of the
// item before it.
func takeFacts(items []*Item, i int) {
	it := items[i]
	f := factTaken
	if i > 0 {
		f |= items[i-1].facts
	}
	switch it.Type {
	case "compaction":
		f |= factCompaction
	case "item_reference":
		f |= factReference
	}
	if it.AdditionalTools != nil {
		f |= factAdditionalTools
	}
	if len(missingMembers(it)) > 0 {
		f |= factMissing
	}
	if !outputBound(items, i) {
		f |= factOutputUnbound
	}
	it.facts = f
}

// factsKnown reports whether r.Items are still the items as taken, so
// that r.taken holds for them.
func (r *Request) factsKnown() bool { return r.taken&factTaken != 0 }

// turnsAt is where the conversation of a request's items alone stood
// after one item: how many turns, how many parts the last turn had, and
// what the system and developer messages up to it said. ok is set when
// it was recorded (conversationIn).
type turnsAt struct {
	turns, parts int
	system       string
	ok           bool
}

func lastParts(ts []conv.Turn) int {
	if len(ts) == 0 {
		return 0
	}
	return len(ts[len(ts)-1].Parts)
}

// keptTurns are the turns of the last conversation a session built from
// its input items alone, and those items: a request that reuses the
// first of them copies the turns they make (where turnsAt says) instead
// of building them again, which walked every item. The turns are the
// conversation's own (read only); the charge is for the arrays.
var keptTurns = session.NewKept(func(session.Limits) int { return 1 },
	func(k *turnsKept) int64 {
		return int64(len(k.turns))*int64(unsafe.Sizeof(conv.Turn{})) + int64(len(k.items))*int64(unsafe.Sizeof(&Item{}))
	})

const keptTurnsID = "last"

type turnsKept struct {
	items []*Item
	turns []conv.Turn
}

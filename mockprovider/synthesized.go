package mockprovider

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// synthesized is what a session keeps of argument synthesis, by tool
// schema (model.Memo): an agent loop declares the same tools on every
// request, and synthesizing a call's arguments again — parsing the schema
// into maps and walking it — was a fifth of the mock's work on a call
// turn (BenchmarkHandler, every dialect's call turn, 20–28 % less time
// with it). Per session and charged to the store's budget, like what the
// session keeps of its last request; gone with the session.
var synthesized = session.NewKept(
	func(session.Limits) int { return maxSynthesized },
	func(k keptSynthesis) int64 { return int64(k.schema) + int64(k.Cost)*synthesizedCostFactor + 512 },
)

// maxSynthesized is the most schemas a session keeps synthesis of (a
// client declaring more tools than this re-synthesizes some), and
// maxSynthesizedCost the largest arguments it keeps: schemas with large
// bounds are rare, and what they make is cheap to make again next to
// what it would hold.
const (
	maxSynthesized     = 64
	maxSynthesizedCost = 16 << 10
	// synthesizedCostFactor is what decoded arguments (maps of any)
	// weigh in memory per byte of their JSON, roughly.
	synthesizedCostFactor = 8
)

type keptSynthesis struct {
	model.Synthesized
	schema int // the id's length
}

// sessionMemo is model.Memo on one session.
type sessionMemo struct{ s *session.Session }

func (m sessionMemo) Synthesized(schema json.RawMessage) (model.Synthesized, bool) {
	k, ok := synthesized.Get(m.s, string(schema))
	return k.Synthesized, ok
}

func (m sessionMemo) KeepSynthesized(schema json.RawMessage, s model.Synthesized) {
	if s.Cost > maxSynthesizedCost {
		return
	}
	synthesized.Put(m.s, session.KeptItem[keptSynthesis]{ID: string(schema), Value: keptSynthesis{Synthesized: s, schema: len(schema)}})
}

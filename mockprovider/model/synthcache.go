package model

import (
	"context"
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/conv"

	"github.com/toolwire/toolwire/mockprovider/internal/bounded"
)

// synthCache remembers Synthesize by schema bytes: an agent loop declares
// the same tools on every request, and parsing and walking a schema costs
// more than copying the arguments it yields. Synthesize is deterministic,
// so a cached result is the one a fresh call would make.
var synthCache = &synthMemo{kept: bounded.Map[synthResult]{MaxEntries: maxCachedSynth}}

// maxCachedSynth bounds the cache; when full it is cleared, not evicted
// one by one (it refills in one request per tool). Arguments heavier than
// maxCachedSynthBytes are not kept at all: tool schemas with large bounds
// are rare, and 4096 of them would be gigabytes.
const (
	maxCachedSynth      = 4096
	maxCachedSynthBytes = 16 << 10
)

type synthResult struct {
	args  map[string]any
	notes []string
}

type synthMemo struct {
	kept bounded.Map[synthResult]
}

// get returns a deep copy of the cached arguments for schema, computing
// them on a miss. The cached map is never handed out: callers (encoders)
// may change what they get.
func (c *synthMemo) get(ctx context.Context, schema json.RawMessage) (map[string]any, []string, error) {
	v, ok := c.kept.Get(schema)
	if !ok {
		args, notes, cost, err := synthesize(ctx, schema)
		if err != nil {
			return nil, nil, err
		}
		v = synthResult{args: args, notes: notes}
		if cost > maxCachedSynthBytes {
			return args, notes, nil // built for this caller alone
		}
		c.kept.Put(string(schema), v)
	}
	return conv.CloneValue(v.args).(map[string]any), append([]string(nil), v.notes...), nil
}

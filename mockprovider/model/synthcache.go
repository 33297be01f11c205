package model

import (
	"encoding/json"
	"sync"
)

// synthCache remembers Synthesize by schema bytes: an agent loop declares
// the same tools on every request, and parsing and walking a schema costs
// more than copying the arguments it yields. Synthesize is deterministic,
// so a cached result is the one a fresh call would make.
var synthCache = &synthMemo{m: map[string]map[string]any{}}

// maxCachedSynth bounds the cache; when full it is cleared, not evicted
// one by one (it refills in one request per tool).
const maxCachedSynth = 4096

type synthMemo struct {
	mu sync.Mutex
	m  map[string]map[string]any
}

// get returns a deep copy of the cached arguments for schema, computing
// them on a miss. The cached map is never handed out: callers (encoders)
// may change what they get.
func (c *synthMemo) get(schema json.RawMessage) map[string]any {
	c.mu.Lock()
	v, ok := c.m[string(schema)]
	c.mu.Unlock()
	if !ok {
		v = synthesize(schema)
		c.mu.Lock()
		if len(c.m) >= maxCachedSynth {
			clear(c.m)
		}
		c.m[string(schema)] = v
		c.mu.Unlock()
	}
	return cloneJSON(v).(map[string]any)
}

// cloneJSON deep-copies decoded JSON, keeping nil maps and slices nil so
// the copy encodes exactly as the original.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}

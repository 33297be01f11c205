package openaiwire

import (
	"encoding/json"
	"sync"
)

// schemaVerdicts remembers what compiling a tool schema found, by the
// schema's bytes. It is the one cache kept on the request path: an agent
// loop declares the same tools on every request, and compiling a schema
// against the meta-schema costs several times the rest of a Chat or
// Responses request (without it the load benchmark's CPU ratio falls from
// about 0.36 of the baseline's to 0.08 for both APIs). It is bounded and
// starts over when full: it refills in one request per tool. A verdict is
// a string, so nothing shared can be written to.
var schemaVerdicts verdicts

const (
	maxVerdicts     = 4096
	maxVerdictBytes = 4 << 20 // of keys
	maxVerdictKey   = 1 << 20
)

type verdicts struct {
	mu    sync.Mutex
	kept  map[string]string
	bytes int
}

// get is compute(raw), from the cache when raw was compiled before.
func (v *verdicts) get(raw json.RawMessage, compute func(json.RawMessage) string) string {
	v.mu.Lock()
	msg, ok := v.kept[string(raw)]
	v.mu.Unlock()
	if ok {
		return msg
	}
	msg = compute(raw)
	if len(raw) > maxVerdictKey {
		return msg
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.kept == nil || len(v.kept) >= maxVerdicts || v.bytes+len(raw) > maxVerdictBytes {
		v.kept, v.bytes = map[string]string{}, 0
	}
	v.kept[string(raw)] = msg
	v.bytes += len(raw)
	return msg
}

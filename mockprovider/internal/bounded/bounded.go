// Package bounded is the string-keyed cache the mock keeps of what every
// request of a tool loop repeats (decoded tools and messages, schema
// verdicts, parsed arguments): shared by all requests, bounded, and
// cleared when full rather than evicted entry by entry, since what it
// holds refills in one request.
package bounded

import "sync"

// DefaultMaxBytes bounds the keys of a Map given no bound.
const DefaultMaxBytes = 4 << 20

// Map maps keys to values, safe for concurrent use. Its values are
// shared: whoever puts one must not write into it again, and whoever
// gets one only reads it. A Map given neither MaxEntries nor MaxBytes
// keeps up to DefaultMaxBytes of keys.
type Map[V any] struct {
	// MaxEntries bounds the number of entries (0: no bound).
	MaxEntries int
	// MaxBytes bounds the bytes of the keys kept (0: no bound).
	MaxBytes int
	// MaxKey is the longest key kept; a longer one is not (0: a quarter
	// of MaxBytes, or no bound).
	MaxKey int

	mu    sync.RWMutex
	m     map[string]V
	bytes int
}

// Get looks key up (the conversion does not copy key).
func (c *Map[V]) Get(key []byte) (V, bool) {
	c.mu.RLock()
	v, ok := c.m[string(key)]
	c.mu.RUnlock()
	return v, ok
}

// GetString is Get for a string key.
func (c *Map[V]) GetString(key string) (V, bool) {
	c.mu.RLock()
	v, ok := c.m[key]
	c.mu.RUnlock()
	return v, ok
}

// Put keeps v under key, starting over when a bound would be passed.
func (c *Map[V]) Put(key string, v V) {
	maxBytes := c.MaxBytes
	if maxBytes == 0 && c.MaxEntries == 0 {
		maxBytes = DefaultMaxBytes
	}
	maxKey := c.MaxKey
	if maxKey == 0 {
		maxKey = maxBytes / 4
	}
	if maxKey > 0 && len(key) > maxKey {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.MaxEntries > 0 && len(c.m) >= c.MaxEntries || maxBytes > 0 && c.bytes+len(key) > maxBytes {
		c.m, c.bytes = map[string]V{}, 0
	}
	c.m[key] = v
	c.bytes += len(key)
}

// Len is the number of entries kept.
func (c *Map[V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

package openaiwire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
)

// TestVerdictsAreKeptAndBounded: a schema compiled once is not compiled
// again, a huge one is never kept, and the cache never holds more than
// its bounds however many schemas pass through it, from many goroutines.
func TestVerdictsAreKeptAndBounded(t *testing.T) {
	var v verdicts
	var mu sync.Mutex
	calls := map[string]int{}
	compute := func(raw json.RawMessage) string {
		mu.Lock()
		calls[string(raw)]++
		mu.Unlock()
		return "verdict " + string(raw)
	}
	for range 3 {
		if got := v.get(json.RawMessage(`{"type":"object"}`), compute); got != `verdict {"type":"object"}` {
			t.Fatalf("got %q", got)
		}
	}
	if n := calls[`{"type":"object"}`]; n != 1 {
		t.Errorf("a repeated schema was compiled %d times, want 1", n)
	}
	huge := json.RawMessage(`"` + string(bytes.Repeat([]byte("a"), maxVerdictKey)) + `"`)
	v.get(huge, compute)
	v.get(huge, compute)
	if n := calls[string(huge)]; n != 2 {
		t.Errorf("a schema over %d bytes was compiled %d times, want 2 (never kept)", maxVerdictKey, n)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range maxVerdicts {
				v.get(json.RawMessage(`{"n":`+strconv.Itoa(g*maxVerdicts+i)+`}`), compute)
			}
		}()
	}
	wg.Wait()
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.kept) > maxVerdicts || v.bytes > maxVerdictBytes {
		t.Errorf("cache holds %d verdicts, %d bytes of keys; bounds %d, %d", len(v.kept), v.bytes, maxVerdicts, maxVerdictBytes)
	}
}

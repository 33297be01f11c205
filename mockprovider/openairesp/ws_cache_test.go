package openairesp

import (
	"fmt"
	"testing"
)

func TestSocketCacheKeepsTheLatestAndEvicts(t *testing.T) {
	c := NewSocketCache()
	for i := range socketCacheSize + 1 {
		c.put(&StoredResponse{ID: fmt.Sprint("resp_", i), Body: []byte(`{}`)})
	}
	if _, ok := c.get("resp_0"); ok || c.Len() != socketCacheSize {
		t.Errorf("the oldest is kept past the bound: %d held", c.Len())
	}
	last := fmt.Sprint("resp_", socketCacheSize)
	if _, ok := c.get(last); !ok {
		t.Fatal("the latest is missing")
	}
	c.Evict(last)
	c.Evict("resp_unknown")
	if _, ok := c.get(last); ok || c.Len() != socketCacheSize-1 {
		t.Errorf("evicted response still held (%d)", c.Len())
	}
	// Putting one again after eviction takes a fresh place at the end.
	c.put(&StoredResponse{ID: last, Body: []byte(`{}`)})
	c.put(&StoredResponse{ID: "resp_new", Body: []byte(`{}`)})
	if _, ok := c.get("resp_1"); ok {
		t.Error("bound not kept after re-insertion")
	}
	if _, ok := c.get(last); !ok {
		t.Error("re-inserted response lost")
	}
}

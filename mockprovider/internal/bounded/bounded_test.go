package bounded

import (
	"fmt"
	"sync"
	"testing"
)

func TestMapKeepsAndStartsOverWhenFull(t *testing.T) {
	c := Map[int]{MaxEntries: 3}
	for i := range 3 {
		c.Put(fmt.Sprint(i), i)
	}
	if v, ok := c.Get([]byte("2")); !ok || v != 2 {
		t.Fatalf("Get(2) = %v, %v", v, ok)
	}
	c.Put("3", 3)
	if c.Len() != 1 {
		t.Fatalf("a full map was not started over: %d entries", c.Len())
	}
	if v, ok := c.GetString("3"); !ok || v != 3 {
		t.Fatalf("the entry that started it over is missing: %v, %v", v, ok)
	}
}

func TestMapBoundsKeyBytes(t *testing.T) {
	c := Map[bool]{MaxBytes: 40} // keys up to 10 bytes
	c.Put("elevenbytes", true)
	if c.Len() != 0 {
		t.Fatal("a key over a quarter of MaxBytes was kept")
	}
	for i := range 20 {
		c.Put(fmt.Sprintf("key-%05d", i), true)
		if c.bytes > 40 {
			t.Fatalf("%d key bytes kept, bound 40", c.bytes)
		}
	}
	short := Map[bool]{MaxEntries: 10, MaxKey: 3}
	short.Put("four", true)
	if short.Len() != 0 {
		t.Fatal("a key over MaxKey was kept")
	}
}

func TestMapIsSafeForConcurrentUse(t *testing.T) {
	c := Map[int]{MaxEntries: 8}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				k := fmt.Sprint(g, i%16)
				c.Put(k, i)
				c.Get([]byte(k))
			}
		}()
	}
	wg.Wait()
}

package main

import (
	"io"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// With --vary no two requests carry the same body (each its own user
// text), and every one still names the tools and the question; without
// it the bodies repeat.
func TestVaryGivesEveryRequestItsOwnBody(t *testing.T) {
	bodyOf := func(d conv.Dialect, i int) string {
		b, err := io.ReadAll(turnRequest("http://127.0.0.1:1", d, false, "k", i).Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	defer func() { varyText = false }()
	for _, d := range conv.Dialects {
		varyText = false
		if bodyOf(d, 0) != bodyOf(d, 2) {
			t.Errorf("%s: bodies differ without --vary", d)
		}
		varyText = true
		seen := map[string]bool{}
		for i := range 6 {
			b := bodyOf(d, i)
			if seen[b] || !strings.Contains(b, userText+" (request ") || !strings.Contains(b, "get_weather") {
				t.Fatalf("%s, request %d: %s", d, i, b)
			}
			seen[b] = true
		}
	}
}

package openaiwire

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/session"
)

// namedCachedTokens is CachedTokens as it was before the typed counts:
// FNV-1a over the prompt, each prefix a string-named count.
func namedCachedTokens(s *session.Session, api, model string, prompt []byte) int {
	tokens := len(prompt) / CharsPerToken
	if s == nil || tokens < CacheMinTokens {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(model))
	done, cached := 0, 0
	for k, n := CacheMinTokens, 0; k <= tokens && n < maxCachePoints; k, n = k+CacheStepTokens, n+1 {
		end := k * CharsPerToken
		_, _ = h.Write(prompt[done:end])
		done = end
		if s.Count(api+":prompt-prefix:"+strconv.FormatUint(h.Sum64(), 36)) > 1 {
			cached = k
		}
	}
	return cached
}

// TestCachedTokensAsNamedCounts: whatever prompts a session sends (grown,
// cut, changed early or late, another model or API, more prefixes than a
// session keeps counts for), the cached tokens are those the string-named
// counts gave.
func TestCachedTokensAsNamedCounts(t *testing.T) {
	typed := session.NewStore(session.DefaultLimits()).Get("k")
	named := session.NewStore(session.DefaultLimits()).Get("k")
	rng := rand.New(rand.NewPCG(21, 4))
	base := make([]byte, 160<<10) // up to 313 prefixes: more than a session counts
	for i := range base {
		base[i] = byte('a' + rng.IntN(26))
	}
	hits, misses := 0, 0
	for i := range 300 {
		prompt := append([]byte(nil), base[:rng.IntN(len(base))]...)
		if len(prompt) > 0 && rng.IntN(3) == 0 {
			prompt[rng.IntN(len(prompt))] = '#'
		}
		api, model := []string{"openai-chat", "openai-responses"}[rng.IntN(2)], []string{"gpt-4o", "gpt-4.1"}[rng.IntN(2)]
		got, want := CachedTokens(typed, api, model, prompt), namedCachedTokens(named, api, model, prompt)
		if got != want {
			t.Fatalf("request %d (%d bytes, %s, %s): cached %d, the named counts gave %d", i, len(prompt), api, model, got, want)
		}
		if got > 0 {
			hits++
		} else if len(prompt)/CharsPerToken >= CacheMinTokens {
			misses++
		}
	}
	if hits == 0 || misses == 0 {
		t.Fatalf("%d prompts cached, %d long ones not: the sequence does not test both", hits, misses)
	}
}

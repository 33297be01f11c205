package openaiwire

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"
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
// cut, changed early or late, another model or API), the cached tokens are
// those the string-named counts gave while a session's counts fitted its
// 256 (six prompts of at most 41 prefixes each).
func TestCachedTokensAsNamedCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	base := make([]byte, 24<<10)
	for i := range base {
		base[i] = byte('a' + rng.IntN(26))
	}
	hits, misses := 0, 0
	for episode := range 60 {
		typed := session.NewStore(session.DefaultLimits()).Get("k")
		named := session.NewStore(session.DefaultLimits()).Get("k")
		for i := range 6 {
			prompt := append([]byte(nil), base[:rng.IntN(len(base))]...)
			if len(prompt) > 0 && rng.IntN(3) == 0 {
				prompt[rng.IntN(len(prompt))] = '#'
			}
			api, model := []string{"openai-chat", "openai-responses"}[rng.IntN(2)], []string{"gpt-4o", "gpt-4.1"}[rng.IntN(2)]
			got, want := CachedTokens(typed, api, model, prompt), namedCachedTokens(named, api, model, prompt)
			if got != want {
				t.Fatalf("episode %d, request %d (%d bytes, %s, %s): cached %d, the named counts gave %d", episode, i, len(prompt), api, model, got, want)
			}
			if got > 0 {
				hits++
			} else if len(prompt)/CharsPerToken >= CacheMinTokens {
				misses++
			}
		}
	}
	if hits == 0 || misses == 0 {
		t.Fatalf("%d prompts cached, %d long ones not: the sequence does not test both", hits, misses)
	}
}

// TestCachedTokensLongLoop: an agent loop's prompt, grown by a round each
// request, reports everything the previous prompt held as cached, and a
// retry of it everything it holds, however many prefixes the session has
// seen (the string-named counts forgot them all past 256).
func TestCachedTokensLongLoop(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	rng := rand.New(rand.NewPCG(3, 3))
	prompt := make([]byte, 0, 400<<10)
	grow := func(n int) {
		for range n {
			prompt = append(prompt, byte('a'+rng.IntN(26)))
		}
	}
	grow(40 << 10)
	CachedTokens(s, "openai-chat", "gpt-4o", prompt)
	for i := range 300 {
		seen := len(prompt) / CharsPerToken
		grow(1 << 10)
		want := CacheMinTokens + (seen-CacheMinTokens)/CacheStepTokens*CacheStepTokens
		if got := CachedTokens(s, "openai-chat", "gpt-4o", prompt); got != want {
			t.Fatalf("request %d (%d tokens, %d before): cached %d, want %d", i, len(prompt)/CharsPerToken, seen, got, want)
		}
		tokens := len(prompt) / CharsPerToken
		want = CacheMinTokens + (tokens-CacheMinTokens)/CacheStepTokens*CacheStepTokens
		if got := CachedTokens(s, "openai-chat", "gpt-4o", prompt); got != want {
			t.Fatalf("request %d again (%d tokens): cached %d, want %d", i, tokens, got, want)
		}
	}
}

// TestCachedTokensLeaveCounters: a session's counts (faults met) survive
// a prompt of more prefixes than a session counts.
func TestCachedTokensLeaveCounters(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	faults := session.NewCounter(func(string) int { return 8 })
	faults.Count(s, "turn-1")
	CachedTokens(s, "openai-chat", "gpt-4o", make([]byte, 200<<10)) // 385 prefixes
	if n := faults.Count(s, "turn-1"); n != 2 {
		t.Fatalf("count after a long prompt: %d, want 2", n)
	}
}

// TestPromptPrefixGenerations: making room forgets the prefixes only the
// older generation holds; one seen again since is kept.
func TestPromptPrefixGenerations(t *testing.T) {
	p := &promptPrefixes{recent: map[uint64]struct{}{}}
	for sum := range uint64(prefixGeneration) {
		p.seen(sum)
	}
	p.seen(prefixGeneration) // a new generation begins
	if !p.seen(0) || !p.seen(1) {
		t.Fatal("the older generation's prefixes are forgotten already")
	}
	for sum := range uint64(prefixGeneration) {
		p.seen(1000 + prefixGeneration + sum)
	}
	if p.seen(2) {
		t.Fatal("a prefix two generations old is still seen")
	}
	if !p.seen(1) {
		t.Fatal("a prefix seen again in the last generation is forgotten")
	}
}

// TestCachedTokensConcurrent: requests of one session mark and read its
// prefixes at once (go test -race); a prompt sent before all of them
// is cached for each.
func TestCachedTokensConcurrent(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	prompt := make([]byte, 40<<10)
	CachedTokens(s, "openai-chat", "gpt-4o", prompt)
	want := CacheMinTokens + (len(prompt)/CharsPerToken-CacheMinTokens)/CacheStepTokens*CacheStepTokens
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				longer := append(append([]byte(nil), prompt...), make([]byte, (w*20+i)<<9)...)
				if got := CachedTokens(s, "openai-chat", "gpt-4o", longer); got < want {
					t.Errorf("worker %d request %d: cached %d, want at least %d", w, i, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

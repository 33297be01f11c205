package openaiwire

import (
	"bytes"
	"hash/fnv"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/session"
)

// namedCounts is the string-named counter namedCachedTokens used (the
// session's own, since removed).
var namedCounts = session.NewCounter(func(name string) int { return len(name) })

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
		if namedCounts.Count(s, api+":prompt-prefix:"+strconv.FormatUint(h.Sum64(), 36)) > 1 {
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
			got, want := CachedTokens(typed, api, model, [][]byte{prompt}), namedCachedTokens(named, api, model, prompt)
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
	CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{prompt})
	for i := range 300 {
		seen := len(prompt) / CharsPerToken
		grow(1 << 10)
		want := CacheMinTokens + (seen-CacheMinTokens)/CacheStepTokens*CacheStepTokens
		if got := CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{prompt}); got != want {
			t.Fatalf("request %d (%d tokens, %d before): cached %d, want %d", i, len(prompt)/CharsPerToken, seen, got, want)
		}
		tokens := len(prompt) / CharsPerToken
		want = CacheMinTokens + (tokens-CacheMinTokens)/CacheStepTokens*CacheStepTokens
		if got := CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{prompt}); got != want {
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
	CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{make([]byte, 200<<10)}) // 385 prefixes
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
	CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{prompt})
	want := CacheMinTokens + (len(prompt)/CharsPerToken-CacheMinTokens)/CacheStepTokens*CacheStepTokens
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				longer := append(append([]byte(nil), prompt...), make([]byte, (w*20+i)<<9)...)
				if got := CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{longer}); got < want {
					t.Errorf("worker %d request %d: cached %d, want at least %d", w, i, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// wholeCachedTokens is CachedTokens as it was before prompts came in
// pieces: the prompt copied whole, every prefix hashed from its start.
func wholeCachedTokens(s *session.Session, api, model string, prompt []byte) int {
	tokens := len(prompt) / CharsPerToken
	if s == nil || tokens < CacheMinTokens {
		return 0
	}
	var h maphash.Hash
	h.SetSeed(prefixSeed)
	_, _ = h.WriteString(api)
	_ = h.WriteByte(0)
	_, _ = h.WriteString(model)
	sums := make([]uint64, 0, min(maxCachePoints, (tokens-CacheMinTokens)/CacheStepTokens+1))
	done := 0
	for k := CacheMinTokens; k <= tokens && len(sums) < maxCachePoints; k += CacheStepTokens {
		end := k * CharsPerToken
		_, _ = h.Write(prompt[done:end])
		done = end
		sums = append(sums, h.Sum64())
	}
	p := prefixesOf(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	cached := 0
	for i, sum := range sums {
		if p.seen(sum) {
			cached = CacheMinTokens + i*CacheStepTokens
		}
	}
	return cached
}

// TestCachedTokensPiecesAsWhole: whatever prompts a session sends in
// pieces (grown, retried, changed in the middle in place or by a copy,
// shorter, cut inside a piece, the same bytes split otherwise or copied,
// another model or API, past the last possible prefix, enough prefixes to
// turn the generations over), the cached tokens are those of the prompts
// hashed whole from their start.
func TestCachedTokensPiecesAsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	base := make([]byte, maxHashed+(64<<10))
	for i := range base {
		base[i] = byte('a' + rng.IntN(26))
	}
	size := func(pieces [][]byte) int {
		n := 0
		for _, p := range pieces {
			n += len(p)
		}
		return n
	}
	// copied is b in a buffer of its own.
	copied := func(b []byte) []byte { return append([]byte(nil), b...) }
	hits, resumed := 0, 0
	for episode := range 40 {
		pieced := session.NewStore(session.DefaultLimits()).Get("k")
		whole := session.NewStore(session.DefaultLimits()).Get("k")
		var pieces [][]byte
		api, model := "openai-chat", "gpt-4o"
		scale := []int{2 << 10, 16 << 10, 96 << 10}[episode%3]
		for i := range 24 {
			what := "grown"
			switch op := rng.IntN(10); {
			case op < 4 || len(pieces) == 0:
				// New pieces are base at their place in the prompt (kept
				// pieces, at the same addresses when sent again).
				for range 1 + rng.IntN(4) {
					at := size(pieces)
					k := min(rng.IntN(scale), len(base)-at)
					pieces = append(pieces, base[at:at+k:at+k])
				}
			case op == 4:
				what = "retried"
			case op == 5:
				what = "changed in the middle"
				j := rng.IntN(len(pieces))
				c := copied(pieces[j])
				if len(c) > 0 && rng.IntN(2) == 0 {
					c[rng.IntN(len(c))] = '#'
				}
				pieces[j] = c
			case op == 6:
				what = "shorter"
				pieces = pieces[:rng.IntN(len(pieces))]
				if len(pieces) > 0 && rng.IntN(2) == 0 {
					last := pieces[len(pieces)-1]
					pieces[len(pieces)-1] = last[:rng.IntN(len(last)+1)]
				}
			case op == 7:
				what = "split otherwise"
				all := copied(bytes.Join(pieces, nil))
				pieces = nil
				for len(all) > 0 {
					k := min(1+rng.IntN(scale), len(all))
					pieces, all = append(pieces, all[:k:k]), all[k:]
				}
			case op == 8:
				what = "copied"
				for j := range pieces {
					pieces[j] = copied(pieces[j])
				}
			default:
				what = "another model or API"
				api, model = []string{"openai-chat", "openai-responses"}[rng.IntN(2)], []string{"gpt-4o", "gpt-4.1"}[rng.IntN(2)]
			}
			// The session keeps what it is given: each request's pieces
			// are a slice of their own.
			sent := slices.Clone(pieces)
			before, _ := keptLastPrompt.Get(pieced, lastPromptID)
			got := CachedTokens(pieced, api, model, sent)
			want := wholeCachedTokens(whole, api, model, bytes.Join(sent, nil))
			if got != want {
				t.Fatalf("episode %d, request %d (%s, %d pieces, %d bytes, %s, %s): cached %d, hashed whole %d", episode, i, what, len(sent), size(sent), api, model, got, want)
			}
			if got > 0 {
				hits++
			}
			if before != nil && before.api == api && before.model == model && sharedBytes(before.pieces, sent) >= before.hashed && size(sent) > before.hashed {
				resumed++
			}
		}
	}
	t.Logf("%d prompts cached, %d resumed", hits, resumed)
	if hits == 0 || resumed == 0 {
		t.Fatalf("%d prompts cached, %d resumed: the sequences do not test both", hits, resumed)
	}
}

// TestCachedTokensResumes: a prompt that resends the last one's pieces
// is hashed from where that one ends: bytes changed in place behind the
// session's back (which kept pieces never are) go unread, so the cached
// tokens are those of the bytes first sent.
func TestCachedTokensResumes(t *testing.T) {
	s := session.NewStore(session.DefaultLimits()).Get("k")
	first := bytes.Repeat([]byte("a"), 40<<10)
	CachedTokens(s, "openai-chat", "gpt-4o", [][]byte{first})
	for i := range first {
		first[i] = 'b'
	}
	grown := [][]byte{first, bytes.Repeat([]byte("c"), 4<<10)}
	want := CacheMinTokens + (len(first)/CharsPerToken-CacheMinTokens)/CacheStepTokens*CacheStepTokens
	if got := CachedTokens(s, "openai-chat", "gpt-4o", grown); got != want {
		t.Fatalf("cached %d, want %d (the first prompt's prefixes, not hashed again)", got, want)
	}
}

// TestLastPromptCharged: what a session keeps of its latest prompt (its
// pieces, which a request decoded whole holds alone) is charged to the
// store's budget, so sessions past it drop theirs: memory stays within
// the budget however many sessions send long prompts.
func TestLastPromptCharged(t *testing.T) {
	limits := session.DefaultLimits()
	limits.JournalBudget = 4 << 20
	st := session.NewStore(limits)
	const prompt = 200 << 10
	for i := range 64 {
		CachedTokens(st.Get(strconv.Itoa(i)), "openai-chat", "gpt-4o", [][]byte{make([]byte, prompt)})
	}
	held := 0
	for i := range 64 {
		if s, ok := st.Lookup(strconv.Itoa(i)); ok {
			if _, ok := keptLastPrompt.Get(s, lastPromptID); ok {
				held += prompt
			}
		}
	}
	if held == 0 || int64(held) > limits.JournalBudget || st.JournalBytes() > limits.JournalBudget {
		t.Fatalf("sessions hold %d bytes of prompts, %d charged, budget %d", held, st.JournalBytes(), limits.JournalBudget)
	}
}

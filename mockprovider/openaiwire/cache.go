package openaiwire

import (
	"hash/maphash"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/session"
)

// Prompt caching as OpenAI documents it for both APIs
// (https://platform.openai.com/docs/guides/prompt-caching): a prompt of
// 1,024 tokens or more whose prefix was seen before reports that prefix as
// cached tokens (Chat usage.prompt_tokens_details.cached_tokens, Responses
// usage.input_tokens_details.cached_tokens), in steps of 128 tokens from
// 1,024. The mock remembers prefixes per session (so tests stay
// independent), per API and per model, as the real cache is per
// organization and model.
const (
	CacheMinTokens  = 1024
	CacheStepTokens = 128
	// CharsPerToken is the usage estimate: tokens = characters / 4.
	CharsPerToken = 4
	// maxCachePoints bounds the prefixes remembered per request.
	maxCachePoints = 1024
)

// prefixSeed keys the prefixes' hashes: made once, never changed.
var prefixSeed = maphash.MakeSeed()

// promptPrefixes are the hashes of the cacheable prefixes (API and model
// included) a session's prompts held, in two generations of at most
// prefixGeneration each: making room forgets what only older prompts
// held, never what the latest ones did.
type promptPrefixes struct {
	mu            sync.Mutex
	recent, older map[uint64]struct{}
}

const (
	prefixGeneration = maxCachePoints
	// prefixesCost is what a session's prefixes are charged: both
	// generations full, a map slot of about 16 bytes each.
	prefixesCost = 2 * prefixGeneration * 16
	prefixesID   = "prompt-prefixes"
)

var keptPrefixes = session.NewKept(func(session.Limits) int { return 1 }, func(*promptPrefixes) int64 { return prefixesCost })

// seen reports whether sum was seen before, and notes it as seen now.
func (p *promptPrefixes) seen(sum uint64) bool {
	if _, ok := p.recent[sum]; ok {
		return true
	}
	_, old := p.older[sum]
	if len(p.recent) >= prefixGeneration {
		p.older, p.recent = p.recent, make(map[uint64]struct{}, len(p.recent))
	}
	p.recent[sum] = struct{}{}
	return old
}

// prefixesOf is s's prompt prefixes, made on first use.
func prefixesOf(s *session.Session) *promptPrefixes {
	if p, ok := keptPrefixes.Get(s, prefixesID); ok {
		return p
	}
	p := &promptPrefixes{recent: map[uint64]struct{}{}}
	keptPrefixes.Put(s, session.KeptItem[*promptPrefixes]{ID: prefixesID, Value: p})
	return p
}

// CachedTokens marks every cacheable prefix of prompt (the prompt as the
// model reads it, in a stable rendering) as seen in the session and
// returns the longest one seen before: 0 offline, for a short prompt, or
// for a first sight. api keeps the APIs' prefixes apart.
func CachedTokens(s *session.Session, api, model string, prompt []byte) int {
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

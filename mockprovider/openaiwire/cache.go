package openaiwire

import (
	"bytes"
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

// hashedPrompt is a session's latest prompt: its pieces and its
// prefixes' hashes, read only once made. A prompt that starts with the
// same bytes (an agent loop's next request, a retry, which resend the
// pieces the session keeps) reuses them and resumes hashing at end.
type hashedPrompt struct {
	api, model string
	pieces     [][]byte
	size       int // the pieces' bytes
	sums       []uint64
	// hashed is how many bytes end hashes: the whole prompt, or up to
	// its last possible prefix.
	hashed int
	end    maphash.Hash
}

const (
	prefixGeneration = maxCachePoints
	// prefixesCost is what a session's prefixes are charged: both
	// generations full, a map slot of about 16 bytes each.
	prefixesCost = 2 * prefixGeneration * 16
	prefixesID   = "prompt-prefixes"
	lastPromptID = "last-prompt"
	// maxHashed is where the last possible prefix ends.
	maxHashed = (CacheMinTokens + (maxCachePoints-1)*CacheStepTokens) * CharsPerToken
)

var keptPrefixes = session.NewKept(func(session.Limits) int { return 1 }, func(*promptPrefixes) int64 { return prefixesCost })

// keptLastPrompt is charged all the latest prompt holds, its pieces'
// bytes included: they are often those the session's resume cache keeps
// too, but not always (a request decoded whole), and the budget must
// bound what the session alone holds.
var keptLastPrompt = session.NewKept(func(session.Limits) int { return 1 }, func(h *hashedPrompt) int64 {
	return int64(h.size + 24*len(h.pieces) + 8*len(h.sums) + 256)
})

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

// CachedTokens marks every cacheable prefix of the prompt (the prompt as
// the model reads it, in a stable rendering, given as the pieces it is
// made of) as seen in the session and returns the longest one seen
// before: 0 offline, for a short prompt, or for a first sight. api keeps
// the APIs' prefixes apart. The session keeps pieces to compare with its
// next prompt: neither the slice nor their bytes may change afterwards.
func CachedTokens(s *session.Session, api, model string, pieces [][]byte) int {
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	if s == nil || size/CharsPerToken < CacheMinTokens {
		return 0
	}
	last, _ := keptLastPrompt.Get(s, lastPromptID)
	h := hashPrompt(last, api, model, pieces, size)
	keptLastPrompt.Put(s, session.KeptItem[*hashedPrompt]{ID: lastPromptID, Value: h})
	p := prefixesOf(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	// Every prefix is marked, those reused as well: which ones the
	// generations keep depends on all of them, in order.
	cached := 0
	for i, sum := range h.sums {
		if p.seen(sum) {
			cached = CacheMinTokens + i*CacheStepTokens
		}
	}
	return cached
}

// hashPrompt hashes the prefixes of the prompt made of pieces (size bytes
// in all), resuming after last when the prompt starts with all last
// hashed. A resent piece (at the same address) compares equal without its
// bytes being read, so a resent conversation costs only what it adds.
func hashPrompt(last *hashedPrompt, api, model string, pieces [][]byte, size int) *hashedPrompt {
	tokens := size / CharsPerToken
	points := min(maxCachePoints, (tokens-CacheMinTokens)/CacheStepTokens+1)
	h := &hashedPrompt{api: api, model: model, pieces: pieces, size: size, sums: make([]uint64, 0, points), hashed: min(size, maxHashed)}
	from := 0
	if last != nil && last.api == api && last.model == model && sharedBytes(last.pieces, pieces) >= last.hashed {
		h.sums = append(h.sums, last.sums...)
		h.end, from = last.end, last.hashed
	} else {
		h.end.SetSeed(prefixSeed)
		_, _ = h.end.WriteString(api)
		_ = h.end.WriteByte(0)
		_, _ = h.end.WriteString(model)
	}
	next := (CacheMinTokens + len(h.sums)*CacheStepTokens) * CharsPerToken
	at := 0 // where piece begins in the prompt
	for _, piece := range pieces {
		if at >= h.hashed {
			break
		}
		b := piece[max(0, min(from-at, len(piece))):min(len(piece), h.hashed-at)]
		pos := max(at, from)
		at += len(piece)
		for len(b) > 0 {
			n := len(b)
			if len(h.sums) < points {
				n = min(n, next-pos)
			}
			_, _ = h.end.Write(b[:n])
			b, pos = b[n:], pos+n
			if pos == next && len(h.sums) < points {
				h.sums = append(h.sums, h.end.Sum64())
				next += CacheStepTokens * CharsPerToken
			}
		}
	}
	return h
}

// sharedBytes is the length of the pieces a and b start with alike.
func sharedBytes(a, b [][]byte) int {
	n := 0
	for i := range min(len(a), len(b)) {
		if !bytes.Equal(a[i], b[i]) {
			break
		}
		n += len(a[i])
	}
	return n
}

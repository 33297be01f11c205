package openaiwire

import (
	"hash/maphash"

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

// promptPrefix is a cacheable prefix a session has seen: the API's, of
// the model and prompt the hash covers.
type promptPrefix struct {
	api string
	sum uint64
}

var seenPrefixes = session.NewCounter(func(p promptPrefix) int { return len(p.api) + 8 })

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
	_, _ = h.WriteString(model)
	done, cached := 0, 0
	for k, n := CacheMinTokens, 0; k <= tokens && n < maxCachePoints; k, n = k+CacheStepTokens, n+1 {
		end := k * CharsPerToken
		_, _ = h.Write(prompt[done:end])
		done = end
		if seenPrefixes.Count(s, promptPrefix{api, h.Sum64()}) > 1 {
			cached = k
		}
	}
	return cached
}

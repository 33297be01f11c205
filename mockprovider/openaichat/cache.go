package openaichat

import (
	"hash/fnv"
	"strconv"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Prompt caching as OpenAI documents it (platform.openai.com/docs/guides/
// prompt-caching): a prompt of 1,024 tokens or more whose prefix was seen
// before reports that prefix as usage.prompt_tokens_details.cached_tokens,
// in steps of 128 tokens from 1,024. The mock remembers prefixes per
// session (so tests stay independent) and per model, as the real cache is
// per organization and model.
const (
	cacheMinTokens  = 1024
	cacheStepTokens = 128
	charsPerToken   = 4 // the usage estimate: tokens = characters / 4
	// maxCachePoints bounds the prefixes remembered per request.
	maxCachePoints = 1024
)

// promptText renders the prompt in the order the model reads it: tools,
// system, then every turn. Its length is the prompt-token estimate, and
// its prefixes are what the cache matches.
func promptText(c *conv.Conversation) []byte {
	b := make([]byte, 0, 1024)
	for _, t := range c.Tools {
		b = append(append(append(b, "tool "...), t.Name...), '\n')
		b = append(append(b, t.Description...), '\n')
		b = append(append(b, t.Parameters...), '\n')
	}
	if c.System != "" {
		b = append(append(append(b, "system\n"...), c.System...), '\n')
	}
	for _, t := range c.Turns {
		b = append(append(b, t.Role...), '\n')
		for _, p := range t.Parts {
			b = append(b, p.Text...)
			if p.Call != nil {
				b = append(append(append(b, p.Call.ID...), ' '), p.Call.Name...)
				args, _ := json.Marshal(p.Call.Arguments, json.Deterministic(true))
				b = append(b, args...)
			}
			if p.Result != nil {
				b = append(b, p.Result.CallID...)
				for _, ct := range p.Result.Content {
					b = append(append(b, ct.Text...), ct.Data...)
				}
			}
			if p.Media != nil {
				b = append(append(b, p.Media.URL...), p.Media.Data...)
			}
			b = append(b, '\n')
		}
	}
	return b
}

// cachedTokens marks every cacheable prefix of prompt as seen in the
// session and returns the longest one seen before (0 offline, for a short
// prompt, or for a first sight).
func cachedTokens(s *session.Session, model string, prompt []byte) int {
	tokens := len(prompt) / charsPerToken
	if s == nil || tokens < cacheMinTokens {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(model))
	done, cached := 0, 0
	for k, n := cacheMinTokens, 0; k <= tokens && n < maxCachePoints; k, n = k+cacheStepTokens, n+1 {
		end := k * charsPerToken
		_, _ = h.Write(prompt[done:end])
		done = end
		if s.Count("openai-chat:prompt-prefix:"+strconv.FormatUint(h.Sum64(), 36)) > 1 {
			cached = k
		}
	}
	return cached
}

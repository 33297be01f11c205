package anthropic

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Prompt caching as the docs describe it
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
// a cache_control breakpoint marks the prompt up to and including its block
// (in the order tools, system, messages) as a cache entry. The first
// request that sends a prefix writes it (usage.cache_creation_input_tokens,
// split by ttl in usage.cache_creation); a later one that sends the same
// prefix reads it (cache_read_input_tokens), and input_tokens is only the
// remainder. A prefix shorter than the model's minimum is simply not
// cached. A hit is looked for at each breakpoint and at the block
// boundaries up to 20 blocks before it, so a breakpoint that moves forward
// as a conversation grows reads what the previous turn wrote. The mock
// remembers written prefixes per session (tests stay independent) and per
// model, as the real cache is per organization and model.
const (
	// cacheLookback is how many blocks before a breakpoint a hit is
	// looked for.
	cacheLookback = 20
	ttl5m         = "5m"
	ttl1h         = "1h"
)

// cacheMinimums are the minimum cacheable prompt lengths the docs list by
// model (as quoted in https://github.com/anthropics/anthropic-sdk-python/issues/1194:
// 4096 for Opus 4.6, Opus 4.5 and Haiku 4.5; 2048 for Haiku 3.5 and
// Haiku 3; 1024 for Sonnet 4.6, 4.5, 4, 3.7 and Opus 4.1, 4). Opus 4.7 is
// not in that list [I]: the 4096 of the Opus line since 4.5. A model id
// matches an entry it starts with (dated ids included).
var cacheMinimums = []struct {
	prefix string
	tokens int
}{
	{"claude-opus-4-5", 4096},
	{"claude-opus-4-6", 4096},
	{"claude-opus-4-7", 4096},
	{"claude-haiku-4-5", 4096},
	{"claude-3-5-haiku", 2048},
	{"claude-3-haiku", 2048},
}

// cacheMinimum is the shortest prefix (in tokens) model caches.
func cacheMinimum(model string) int {
	for _, m := range cacheMinimums {
		if strings.HasPrefix(model, m.prefix) {
			return m.tokens
		}
	}
	return 1024
}

// cachePlan is where a request's breakpoints outside its messages sit
// (a message keeps its own: Message.cacheTTL), read from the wire
// request only when it has a breakpoint (nil otherwise: nothing cached).
type cachePlan struct {
	tools       []string // ttl per tools[] entry, "" for none
	systemTexts []string // the system prompt's blocks (one for a string)
	systemTTL   []string
	// automatic is the ttl of the top-level cache_control, which puts the
	// breakpoint on the last cacheable block ("" when absent).
	automatic string
}

var cacheControlPtr = reflect.TypeFor[*wCacheControlEphemeral]()

// findCacheControl returns the first cache_control set in v (a block may
// carry it on itself or on a nested item, as tool_result content does).
func findCacheControl(v reflect.Value) *wCacheControlEphemeral {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if v.Type() == cacheControlPtr {
			return v.Interface().(*wCacheControlEphemeral)
		}
		return findCacheControl(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if c := findCacheControl(v.Index(i)); c != nil {
				return c
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if c := findCacheControl(v.Field(i)); c != nil {
				return c
			}
		}
	}
	return nil
}

func ttlOf(c *wCacheControlEphemeral) string {
	switch {
	case c == nil:
		return ""
	case c.Ttl != nil && *c.Ttl == ttl1h:
		return ttl1h
	}
	return ttl5m
}

// mayHoldCacheControl is false only for a document that cannot hold a
// cache_control member: its name spelled plainly, or with a \u escape
// (the one JSON escape that can spell a letter or '_'), so the walk by
// reflection over every block type runs only where one may be.
func mayHoldCacheControl(doc []byte) bool {
	return bytes.Contains(doc, []byte(`"cache_control"`)) || bytes.Contains(doc, []byte(`\u`))
}

// readBreakpoints records what the cache reads of message m decoded
// from w: how many cache_control members it sets, and the ttl of each
// block's breakpoint. They are kept with the message, so a request that
// resends it counts its breakpoints without its wire form.
func (m *Message) readBreakpoints(w *wMessage) {
	m.breakpoints = countCacheControl(reflect.ValueOf(w).Elem())
	if m.breakpoints == 0 {
		return
	}
	m.cacheTTL = make([]string, len(w.Content.Blocks))
	for j := range w.Content.Blocks {
		m.cacheTTL[j] = ttlOf(findCacheControl(reflect.ValueOf(&w.Content.Blocks[j]).Elem()))
	}
}

// readCachePlan records the breakpoints of the wire request outside its
// messages.
func (r *Request) readCachePlan(w *wireRequest) {
	p := &cachePlan{automatic: ttlOf(w.CacheControl)}
	for i := range w.Tools {
		p.tools = append(p.tools, ttlOf(findCacheControl(reflect.ValueOf(&w.Tools[i]).Elem())))
	}
	if w.System.String != nil {
		p.systemTexts, p.systemTTL = []string{*w.System.String}, []string{""}
	}
	for _, b := range w.System.Blocks {
		p.systemTexts = append(p.systemTexts, str(b.Text))
		p.systemTTL = append(p.systemTTL, ttlOf(b.CacheControl))
	}
	r.cache = p
}

// cacheSegment is one block of the prompt in cache order.
type cacheSegment struct {
	tokens    int    // tokens of the prompt up to and including this block
	hash      uint64 // of the prompt up to and including this block
	ttl       string // a breakpoint's ttl, "" elsewhere
	cacheable bool   // thinking blocks cannot hold the automatic breakpoint
}

// cacheSegments lays the prompt out as the cache sees it: tools, system
// blocks, message blocks, each with the running size (counted as
// promptSize counts it) and the running hash of everything before. A
// message block enters the running hash by its own hash, made once with
// the message (hashBlocks), so a long conversation's prefixes are not
// hashed again on each request.
func (r *Request) cacheSegments() []cacheSegment {
	p := r.cache
	var h maphash.Hash
	h.SetSeed(cacheSeed)
	write(&h, r.Model)
	size, n := 0, len(r.ToolNames)+len(p.systemTexts)
	for _, m := range r.Messages {
		n += len(m.Blocks)
	}
	out := make([]cacheSegment, 0, n)
	add := func(n int, hash uint64, ttl string, cacheable bool) {
		size += n
		out = append(out, cacheSegment{tokens: size / charsPerToken, hash: hash, ttl: ttl, cacheable: cacheable})
	}
	custom := 0
	for i, name := range r.ToolNames {
		n := 0
		write(&h, "tool", name)
		if custom < len(r.customIndex) && r.customIndex[custom] == i {
			t := &r.Tools[custom]
			write(&h, t.Description, string(t.Parameters))
			n = toolSize(t)
			custom++
		}
		add(n, h.Sum64(), at(p.tools, i), true)
	}
	for i, text := range p.systemTexts {
		write(&h, "system", text)
		n := len(text)
		if i > 0 {
			n++ // the newline promptSize counts between joined blocks
		}
		add(n, h.Sum64(), at(p.systemTTL, i), true)
	}
	running := h.Sum64()
	for _, m := range r.Messages {
		for j := range m.Blocks {
			b := &m.Blocks[j]
			running = chainHash(running, m.blockHashes[j])
			add(blockSize(b), running, at(m.cacheTTL, b.Index), b.Type != "thinking" && b.Type != "redacted_thinking")
		}
	}
	if p.automatic != "" {
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].cacheable {
				if out[i].ttl == "" {
					out[i].ttl = p.automatic
				}
				break
			}
		}
	}
	return out
}

// hashBlocks hashes each block of m as the cache keys it, role
// included, into hashes (one per block).
func hashBlocks(m *Message, hashes []uint64) {
	var h maphash.Hash
	h.SetSeed(cacheSeed)
	for j := range m.Blocks {
		b := &m.Blocks[j]
		h.Reset()
		write(&h, m.Role, b.Type, b.Text, b.Signature, b.ID, b.Name)
		_, _ = h.Write(b.Input)
		_ = h.WriteByte(0)
		write(&h, b.ToolUseID, b.ResultText, b.Media.Data, b.Media.Text, b.Media.URL)
		for _, it := range b.ResultItems {
			write(&h, it.Type, it.Content.Text, it.Content.Data, it.Content.URL)
		}
		hashes[j] = h.Sum64()
	}
}

// cacheSeed seeds the prompt cache's hashes: written prefixes are kept
// per session, in memory, so the keys need only be stable in a process.
var cacheSeed = maphash.MakeSeed()

// chainHash extends the hash of a prefix by a block's hash, FNV-1a
// style over its eight bytes, so equal prefixes chain to equal hashes.
func chainHash(prefix, block uint64) uint64 {
	const prime = 1099511628211
	for range 8 {
		prefix ^= block & 0xff
		prefix *= prime
		block >>= 8
	}
	return prefix
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// write feeds fields to the hash, each ended by a zero byte so that
// neighbouring fields cannot trade characters.
func write(h *maphash.Hash, fields ...string) {
	for _, f := range fields {
		_, _ = h.WriteString(f)
		_ = h.WriteByte(0)
	}
}

// cacheUse is what a request reads from and writes to the prompt cache, in
// tokens.
type cacheUse struct {
	read, created5m, created1h int
}

func (c cacheUse) created() int { return c.created5m + c.created1h }

// charsPerToken is the usage estimate's ratio (tokens = bytes / 4).
const charsPerToken = 4

// writtenPrefixes counts the cache prefixes a session wrote, by their
// hash (model, tools, system and blocks chained, see cacheSegments).
var writtenPrefixes = session.NewCounter(func(uint64) int { return 8 })

// useCache looks the request's breakpoints up in the session's cache and
// writes the prefixes it did not find. Offline (no session), without a
// breakpoint, or for count_tokens, nothing is cached.
func (r *Request) useCache(s *session.Session) cacheUse {
	if s == nil || r.cache == nil || r.CountTokens {
		return cacheUse{}
	}
	segs := r.cacheSegments()
	minimum := cacheMinimum(r.Model)
	// The longest prefix written before that a breakpoint can see.
	hit := -1
	for b := range segs {
		if segs[b].ttl == "" {
			continue
		}
		for j := b; j >= 0 && j >= b-cacheLookback && j > hit; j-- {
			if segs[j].tokens >= minimum && writtenPrefixes.Counted(s, segs[j].hash) {
				hit = j
				break
			}
		}
	}
	var use cacheUse
	done := 0
	if hit >= 0 {
		use.read, done = segs[hit].tokens, segs[hit].tokens
	}
	// Every breakpoint past the hit that is long enough writes its prefix;
	// the tokens between two writes are charged to the later one's ttl.
	for b := range segs {
		if segs[b].ttl == "" || segs[b].tokens < minimum {
			continue
		}
		writtenPrefixes.Count(s, segs[b].hash)
		if b <= hit {
			continue
		}
		n := segs[b].tokens - done
		done = segs[b].tokens
		if segs[b].ttl == ttl1h {
			use.created1h += n
		} else {
			use.created5m += n
		}
	}
	return use
}

// blockSize is what a block adds to the prompt-size estimate.
func blockSize(b *Block) int {
	n := len(b.Type) + len(b.Text) + len(b.Name) + len(b.Input) + len(b.ResultText) + len(b.Media.Data) + len(b.Media.Text)
	for _, it := range b.ResultItems {
		n += len(it.Content.Text) + len(it.Content.Data)
	}
	return n
}

// toolSize is what a custom tool's declaration adds to the estimate.
func toolSize(t *conv.Tool) int {
	return len(t.Name) + len(t.Description) + len(t.Parameters)
}

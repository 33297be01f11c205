package anthropic_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

// cachedLoopBody is an agent loop's request after rounds tool rounds,
// as prompt-caching loops send it: a cache_control breakpoint on the
// system prompt and one on the last user message (which moves forward
// each round).
func cachedLoopBody(rounds int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-5","max_tokens":1024,` +
		`"system":[{"type":"text","text":"You are a weather assistant. Answer briefly.","cache_control":{"type":"ephemeral","ttl":"1h"}}],` +
		`"tools":[{"name":"get_weather","description":"Current weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],` +
		`"messages":[{"role":"user","content":"What is the weather in these cities?"}`)
	for i := range rounds + 1 {
		cache := ""
		if i == rounds {
			cache = `,"cache_control":{"type":"ephemeral"}`
		}
		fmt.Fprintf(&b, `,{"role":"assistant","content":[{"type":"text","text":"Checking city number %d for you now."},`+
			`{"type":"tool_use","id":"toolu_%06d","name":"get_weather","input":{"city":"City %d"}}]}`+
			`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":"Sunny, 21 degrees, light wind from the west, humidity 40 percent, no rain expected today in city %d."%s}]}`,
			i, i, i, i, i, cache)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func serveCached(tb testing.TB, srv *mockprovider.Server, body []byte) {
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("x-api-key", "bench-cache")
	r.Header.Set("anthropic-version", "2023-06-01")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"cache_read_input_tokens":`)) {
		tb.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

// BenchmarkLongCached is a 400-round agent loop that uses prompt
// caching: /repeat resends one request, /loop grows the conversation a
// round per request (32 rounds, then again), as BenchmarkLong and
// BenchmarkLongLoop do in mockprovider/benchmarks.
func BenchmarkLongCached(b *testing.B) {
	const rounds, steps = 400, 32
	b.Run("repeat", func(b *testing.B) {
		srv := mockprovider.New(mockprovider.Options{})
		body := cachedLoopBody(rounds)
		for range 20 {
			serveCached(b, srv, body)
		}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			serveCached(b, srv, body)
		}
	})
	b.Run("loop", func(b *testing.B) {
		srv := mockprovider.New(mockprovider.Options{})
		bodies := make([][]byte, steps)
		size := 0
		for i := range bodies {
			bodies[i] = cachedLoopBody(rounds + i)
			size += len(bodies[i])
		}
		for _, body := range bodies {
			serveCached(b, srv, body)
		}
		b.SetBytes(int64(size / steps))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			serveCached(b, srv, bodies[i%steps])
			i++
		}
	})
}

package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Prompt caching: how many breakpoints a request may set.

const RuleCacheControlLimit = "anthropic.cache-control-limit"

func cacheRules(s *rules.Set[Request]) {
	const cc = `,"cache_control":{"type":"ephemeral"}`
	block := func(text string, cached bool) string {
		if cached {
			return `{"type":"text","text":"` + text + `"` + cc + `}`
		}
		return `{"type":"text","text":"` + text + `"}`
	}
	// breakpoints marks four blocks for caching, five with lastCached.
	breakpoints := func(lastCached bool) json.RawMessage {
		return json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,` +
			`"system":[` + block("You are a weather assistant.", true) + `,` + block("Answer in one sentence.", true) + `],` +
			`"tools":[{"name":"get_weather","description":"Get current weather for a location.","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}` + cc + `}],` +
			`"messages":[{"role":"user","content":[` + block("Here is the city list: Paris, Rome.", true) + `,` + block("What's the weather in Paris?", lastCached) + `]}]}`)
	}
	s.Add(rules.Rule{ID: RuleCacheControlLimit, Level: rules.MUST, Family: "shapes",
		Summary: "At most 4 blocks may carry cache_control (tools, system, messages and the automatic breakpoint together).",
		Refs:    []rules.Ref{{URL: "https://github.com/tghamm/Anthropic.SDK/issues/50", Quote: `"A maximum of 4 blocks with cache_control may be provided. Found 5."`}},
		Cases: []rules.Case{{
			Name: "five cache_control breakpoints",
			Bad:  breakpoints(true), Good: breakpoints(false),
			WantStatus:  400,
			WantMessage: "A maximum of 4 blocks with cache_control may be provided. Found 5.",
		}},
	}, checkCacheControlLimit)
}

func checkCacheControlLimit(r *Request, _ *rules.Env) []rules.Violation {
	if r.CacheBreakpoints <= 4 {
		return nil
	}
	return []rules.Violation{requestBreach("", fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", r.CacheBreakpoints))}
}

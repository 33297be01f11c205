package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Extended thinking: the budget, the tool_choice it allows, and the
// thinking blocks passed back.

const (
	RuleThinkingBudgetMinimum = "anthropic.thinking-budget-minimum"
	RuleThinkingBudgetBelow   = "anthropic.thinking-budget-below-max-tokens"
	RuleThinkingForcedChoice  = "anthropic.thinking-no-forced-tool-choice"
	RuleThinkingSignature     = "anthropic.thinking-signature"
	RuleRedactedThinking      = "anthropic.redacted-thinking-unchanged"
	RuleThinkingBlockFirst    = "anthropic.thinking-block-first"
)

// thinkingDoc is the link the API's thinking errors end with.
const thinkingDoc = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

// thinkingRules' cases pass back thinking blocks signed by this process (as
// the mock signed them in the answer the client received).
func thinkingRules(s *rules.Set[Request]) {
	const plan = "The user wants the weather in Paris: call get_weather."
	think := func(budget, maxTokens int, extra, messages string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"model":"claude-sonnet-4-5","max_tokens":%d,"thinking":{"type":"enabled","budget_tokens":%d},%s%s,"messages":%s}`,
			maxTokens, budget, extra, caseTools, messages))
	}
	signed := fmt.Sprintf(`{"type":"thinking","thinking":%q,"signature":%q}`, plan, sign(plan))
	forged := fmt.Sprintf(`{"type":"thinking","thinking":%q,"signature":%q}`, plan, sign(plan+" (edited)"))
	const nonce = "0123456789abcdefghijklmn"
	data := redactedData(nonce)
	redacted := fmt.Sprintf(`{"type":"redacted_thinking","data":%q}`, data)
	changed := fmt.Sprintf(`{"type":"redacted_thinking","data":%q}`, data[:12]+"AAAA"+data[16:])

	s.Add(rules.Rule{ID: RuleThinkingBudgetMinimum, Level: rules.MUST, Family: "shapes",
		Summary: "thinking.budget_tokens must be at least 1024.",
		Refs:    []rules.Ref{{URL: "https://github.com/themaximalist/llm.js/issues/30", Quote: `"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"`}},
		Cases: []rules.Case{{
			Name:        "budget of 512 tokens",
			Bad:         think(512, 4096, "", msgs(askWeather)),
			Good:        think(1024, 4096, "", msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
		}},
	}, checkThinkingMinimum)

	s.Add(rules.Rule{ID: RuleThinkingBudgetBelow, Level: rules.MUST, Family: "shapes",
		Summary: "max_tokens must be greater than thinking.budget_tokens (except under the interleaved-thinking beta).",
		Refs: []rules.Ref{
			{URL: "https://github.com/liuw1535/antigravity2api-nodejs/issues/149", Quote: "\"`max_tokens` must be greater than `thinking.budget_tokens`. …\""},
			{URL: "https://platform.claude.com/docs/en/build-with-claude/extended-thinking", Quote: "interleaved thinking lets the budget exceed max_tokens"},
		},
		Cases: []rules.Case{{
			Name:        "budget equal to max_tokens",
			Bad:         think(2048, 2048, "", msgs(askWeather)),
			Good:        think(2048, 4096, "", msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at " + thinkingDoc + "#max-tokens-and-context-window-size",
		}},
	}, checkThinkingBelowMax)

	s.Add(rules.Rule{ID: RuleThinkingForcedChoice, Level: rules.MUST, Family: "shapes",
		Summary: "Manual extended thinking (type enabled) cannot be combined with a tool_choice that forces tool use (any, tool); adaptive thinking can.",
		Refs: []rules.Ref{
			{URL: "https://github.com/mastra-ai/mastra/issues/7507", Quote: `"Thinking may not be enabled when tool_choice forces tool use."`},
			{URL: "https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows", Quote: "options that force tool use return an error with manual extended thinking, adaptive thinking supports forced tool use"},
		},
		Cases: []rules.Case{
			{
				Name:        "thinking with tool_choice any",
				Bad:         think(1024, 4096, `"tool_choice":{"type":"any"},`, msgs(askWeather)),
				Good:        think(1024, 4096, `"tool_choice":{"type":"auto"},`, msgs(askWeather)),
				WantStatus:  400,
				WantMessage: "Thinking may not be enabled when tool_choice forces tool use.",
			},
			{
				Name: "manual thinking with a forced tool (adaptive thinking: accepted)",
				Bad:  think(1024, 4096, `"tool_choice":{"type":"tool","name":"get_weather"},`, msgs(askWeather)),
				Good: json.RawMessage(`{"model":"claude-opus-4-7","max_tokens":4096,"thinking":{"type":"adaptive"},"tool_choice":{"type":"tool","name":"get_weather"},` +
					caseTools + `,"messages":` + msgs(askWeather) + `}`),
				WantStatus:  400,
				WantMessage: "Thinking may not be enabled when tool_choice forces tool use.",
			},
		},
	}, checkThinkingForcedChoice)

	s.Add(rules.Rule{ID: RuleThinkingSignature, Level: rules.MUST, Family: "continuity",
		Summary: "A thinking block passed back must carry the signature it was issued with, for its exact text.",
		Refs:    []rules.Ref{{URL: "https://github.com/ding113/claude-code-hub/issues/518", Quote: "\"messages.1.content.0: Invalid `signature` in `thinking` block\""}},
		Cases: []rules.Case{{
			Name:        "thinking block passed back with another block's signature",
			Bad:         think(1024, 4096, "", msgs(askWeather, assistant(forged, callA), user(resultA))),
			Good:        think(1024, 4096, "", msgs(askWeather, assistant(signed, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.0: Invalid `signature` in `thinking` block",
		}},
	}, checkThinkingSignature)

	s.Add(rules.Rule{ID: RuleRedactedThinking, Level: rules.MUST, Family: "continuity",
		Summary: "A redacted_thinking block in the latest assistant message must come back with its data exactly as issued.",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/claude-code/issues/25361", Quote: "\"messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.\""},
			{URL: "https://platform.claude.com/docs/en/build-with-claude/extended-thinking#redacted-thinking-blocks", Quote: "pass them back unchanged"},
			{Quote: "that changed data is answered so", Inferred: true},
		},
		Cases: []rules.Case{{
			Name:        "redacted_thinking passed back with other data",
			Bad:         think(1024, 4096, "", msgs(askWeather, assistant(signed, changed, callA), user(resultA))),
			Good:        think(1024, 4096, "", msgs(askWeather, assistant(signed, redacted, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
		}},
	}, checkRedactedThinking)

	s.Add(rules.Rule{ID: RuleThinkingBlockFirst, Level: rules.MUST, Family: "continuity",
		Summary: "With thinking on, the assistant turn whose tool calls the request answers must open with its thinking block (its first message since the last user message that is not only tool results).",
		Refs: []rules.Ref{
			{URL: "https://github.com/lbjlaq/Antigravity-Manager/issues/139", Quote: "\"messages.129.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block …\""},
			{URL: "https://github.com/dust-tt/srchd/pull/41", Quote: "one opening block suffices for a long loop"},
		},
		Cases: []rules.Case{{
			Name:        "thinking block dropped from the tool-calling turn",
			Bad:         think(1024, 4096, "", msgs(askWeather, assistant(`{"type":"text","text":"Checking."}`, callA), user(resultA))),
			Good:        think(1024, 4096, "", msgs(askWeather, assistant(signed, `{"type":"text","text":"Checking."}`, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
		}},
	}, checkThinkingFirst)
}

func checkThinkingMinimum(r *Request, _ *rules.Env) []rules.Violation {
	if r.ThinkingBudget == nil || *r.ThinkingBudget >= 1024 {
		return nil
	}
	return []rules.Violation{requestBreach("thinking.enabled.budget_tokens", "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")}
}

func checkThinkingBelowMax(r *Request, _ *rules.Env) []rules.Violation {
	if r.ThinkingBudget == nil || !r.HasMaxTokens || r.Interleaved || r.MaxTokens > *r.ThinkingBudget {
		return nil
	}
	return []rules.Violation{requestBreach("max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "+thinkingDoc+"#max-tokens-and-context-window-size")}
}

func checkThinkingForcedChoice(r *Request, _ *rules.Env) []rules.Violation {
	if !r.Thinking || r.AdaptiveThinking || (r.ToolChoice.Mode != conv.ToolChoiceRequired && r.ToolChoice.Mode != conv.ToolChoiceFunction) {
		return nil
	}
	return []rules.Violation{requestBreach("tool_choice", "Thinking may not be enabled when tool_choice forces tool use.")}
}

// checkThinkingSignature verifies every thinking block passed back when
// thinking is on (the blocks the model then reads).
func checkThinkingSignature(r *Request, _ *rules.Env) []rules.Violation {
	if !r.Thinking {
		return nil
	}
	var out []rules.Violation
	r.blocksWhere(func(f *facts) bool { return f.thinking }, func(b *Block) {
		if b.Type == "thinking" && !validSignature(b.Text, b.Signature) {
			p := blockPath(b)
			out = append(out, messageBreach(b.Msg, p, p+": Invalid `signature` in `thinking` block"))
		}
	})
	return out
}

// checkRedactedThinking verifies the data of the redacted_thinking blocks
// of the latest assistant message (the blocks the API reads back), when
// thinking is on.
func checkRedactedThinking(r *Request, _ *rules.Env) []rules.Violation {
	if !r.Thinking {
		return nil
	}
	for i := len(r.Groups) - 1; i >= 0; i-- {
		if r.Groups[i].Role != "assistant" {
			continue
		}
		var out []rules.Violation
		for k := range r.Groups[i].Blocks {
			if b := &r.Groups[i].Blocks[k]; b.Type == "redacted_thinking" && !validRedactedData(b.Signature) {
				p := blockPath(b)
				out = append(out, messageBreach(b.Msg, p, p+": `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. "+
					"These blocks must remain as they were in the original response."))
			}
		}
		return out
	}
	return nil
}

// checkThinkingFirst: when the request answers tool calls with thinking
// on, the assistant turn that made them must open with its thinking. The
// turn is every message since the last user message that is not only tool
// results: without the interleaved-thinking beta the model thinks once, at
// the start, and the later steps of the loop carry no thinking block — the
// API accepts a long loop opened by one (https://github.com/dust-tt/srchd/pull/41).
func checkThinkingFirst(r *Request, _ *rules.Env) []rules.Violation {
	if !r.Thinking || len(r.Groups) < 2 {
		return nil
	}
	last := r.Groups[len(r.Groups)-1]
	if last.Role != "user" || !hasType(last.Blocks, "tool_result") {
		return nil
	}
	opening := -1
	for i := len(r.Groups) - 2; i >= 0; i-- {
		g := r.Groups[i]
		if g.Role == "user" && !onlyToolResults(g.Blocks) {
			break
		}
		if g.Role == "assistant" {
			opening = i
		}
	}
	if opening < 0 {
		return nil
	}
	g := r.Groups[opening]
	if !hasType(g.Blocks, "tool_use") || len(g.Blocks) == 0 {
		return nil
	}
	first := g.Blocks[0]
	if first.Type == "thinking" || first.Type == "redacted_thinking" {
		return nil
	}
	p := blockPath(&first) + ".type"
	return []rules.Violation{messageBreach(first.Msg, p, p+": Expected `thinking` or `redacted_thinking`, but found `"+first.Type+"`. "+
		"When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "+
		"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "+thinkingDoc)}
}

// onlyToolResults reports whether a user message answers calls and says
// nothing else (it continues the assistant's turn).
func onlyToolResults(blocks []Block) bool {
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return len(blocks) > 0
}

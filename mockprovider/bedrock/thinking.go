package bedrock

import (
	"encoding/json"
	"slices"
	"strings"
)

// modelFields is what the mock reads of additionalModelRequestFields, the
// model's own request members Bedrock hands on: Claude's extended thinking
// (thinking {type, budget_tokens}; reasoning_config is the same setting
// under the name AWS's own gateway sends for Claude 3.7 Sonnet:
// github.com/aws-samples/bedrock-access-gateway, src/api/models/bedrock.py)
// and the betas (anthropic_beta)
// (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html).
type modelFields struct {
	Thinking        *thinkingConfig `json:"thinking"`
	ReasoningConfig *thinkingConfig `json:"reasoning_config"`
	AnthropicBeta   []string        `json:"anthropic_beta"`
}

type thinkingConfig struct {
	Type         string `json:"type"`
	BudgetTokens *int64 `json:"budget_tokens"`
}

// interleavedBeta lets the model think again after tool results.
const interleavedBeta = "interleaved-thinking-2025-05-14"

// fields reads additionalModelRequestFields; members of other shapes are
// the model's business, not the mock's: they read as absent.
func (r *Request) fields() modelFields {
	var f modelFields
	if len(r.AdditionalModelRequestFields) > 0 {
		_ = json.Unmarshal(r.AdditionalModelRequestFields, &f)
	}
	return f
}

// thinks reports whether the request turned the model's thinking on.
func (r *Request) thinks() bool {
	f := r.fields()
	for _, c := range []*thinkingConfig{f.Thinking, f.ReasoningConfig} {
		if c != nil && (c.Type == "enabled" || c.Type == "adaptive") {
			return true
		}
	}
	return false
}

// thinksNow reports whether the answer opens with reasoning: with thinking
// on, at the start of the model's turn, and after tool results only under
// the interleaved-thinking beta (without it the model thinks once per
// turn, before its first call).
func (r *Request) thinksNow() bool {
	if !r.thinks() {
		return false
	}
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == roleUser && hasResult(r.Messages[n-1]) {
		return slices.Contains(r.fields().AnthropicBeta, interleavedBeta)
	}
	return true
}

func hasResult(m Message) bool {
	return count(m, func(b Block) bool { return b.ToolResult != nil }) > 0
}

// anthropicModel reports a Claude model id (a foundation model or an
// inference profile of one): the models whose errors Bedrock relays from
// Anthropic's API.
func anthropicModel(id string) bool {
	return strings.HasPrefix(id, "anthropic.") || strings.Contains(id, ".anthropic.")
}

// defaultThinking is what the model thinks before answering when thinking
// is on and the reply carries no reasoning of its own.
const defaultThinking = "Let me work out what the user needs and which tool, if any, answers it."

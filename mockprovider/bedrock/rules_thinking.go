package bedrock

import (
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Extended thinking on Claude models: the reasoning a tool-calling turn
// opened with goes back with it. Bedrock relays Anthropic's refusal,
// prefixed "The model returned the following errors: ".

// thinkingDoc is the link the relayed refusal ends with.
const thinkingDoc = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

func thinkingRules(s *rules.Set[Request]) {
	const (
		claudePath = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse"
		thinking   = `"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}},"inferenceConfig":{"maxTokens":4096}`
		reasoning  = `{"reasoningContent":{"reasoningText":{"text":"The user wants the weather in Paris: call get_weather.","signature":"RXFzaWduYXR1cmU="}}}`
	)
	think := func(messages ...string) []byte {
		b := body(weatherTool, messages...)
		return append(append(b[:len(b)-1:len(b)-1], ","+thinking...), '}')
	}
	s.Add(rules.Rule{ID: "bedrock.thinking-block-first", Level: rules.MUST, Family: "continuity",
		Summary: "With a Claude model's thinking on (additionalModelRequestFields.thinking), the assistant turn whose toolUse calls the request answers opens with the reasoningContent block it was answered with, signature included.",
		Refs: []rules.Ref{
			{URL: "https://github.com/anomalyco/opencode/issues/3077", Quote: "BedrockException - {\"message\":\"The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). …\"}"},
			{URL: "https://github.com/langchain-ai/langchain-aws/issues/844", Quote: "ValidationException … when calling the ConverseStream operation: The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. … Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"},
			{URL: "https://github.com/spring-projects/spring-ai/issues/6413", Quote: "Bedrock requires the assistant message containing a `toolUse` block to also carry the preceding signed `reasoningContent` block when the follow-up `toolResult` is sent"},
		},
		Cases: []rules.Case{{Name: "the reasoning dropped from the tool-calling turn", Path: claudePath,
			Bad:        think(askWeather, callParis, resultParis),
			Good:       think(askWeather, assistant(reasoning, toolUse("tooluse_01", "get_weather")), resultParis),
			WantStatus: 400,
			WantMessage: "The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. " +
				"When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). " +
				"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at " + thinkingDoc}},
	}, checkThinkingFirst)
}

// checkThinkingFirst: when the request answers tool calls with a Claude
// model's thinking on, the assistant turn that made them opens with its
// reasoning. The turn is every message since the last user message that
// is not only tool results: without the interleaved-thinking beta the
// model thinks once, at the start of its turn.
func checkThinkingFirst(r *Request, _ *rules.Env) []rules.Violation {
	n := len(r.Messages)
	if !anthropicModel(r.Model) || !r.thinks() || n < 2 || r.Messages[n-1].Role != roleUser || !hasResult(r.Messages[n-1]) {
		return nil
	}
	opening := -1
	for i := n - 2; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == roleUser && !onlyResults(m) {
			break
		}
		if m.Role == roleAssistant {
			opening = i
		}
	}
	if opening < 0 {
		return nil
	}
	m := r.Messages[opening]
	if count(m, func(b Block) bool { return b.ToolUse != nil }) == 0 || len(m.Content) == 0 || m.Content[0].ReasoningContent != nil {
		return nil
	}
	path := fmt.Sprintf("messages.%d.content.0.type", opening)
	return []rules.Violation{turnBreach(opening, path, "The model returned the following errors: "+path+": Expected `thinking` or `redacted_thinking`, but found `"+anthropicType(m.Content[0])+"`. "+
		"When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "+
		"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "+thinkingDoc)}
}

// onlyResults reports a user message that answers calls and says nothing
// else (it continues the assistant's turn).
func onlyResults(m Message) bool {
	return len(m.Content) > 0 && count(m, func(b Block) bool { return b.ToolResult != nil }) == len(m.Content)
}

// anthropicType names a Converse block as the Messages API it is handed
// to does.
func anthropicType(b Block) string {
	switch {
	case b.Text != nil:
		return "text"
	case b.ToolUse != nil:
		return "tool_use"
	case b.ToolResult != nil:
		return "tool_result"
	case b.Image != nil:
		return "image"
	case b.Document != nil:
		return "document"
	}
	return "text"
}

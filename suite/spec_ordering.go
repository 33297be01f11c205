package suite

// Turns and blocks come in the order the provider demands: Anthropic
// tool_result blocks first and nothing after a tool_use; Gemini response
// turns right after call turns, parallel responses together and in call
// order; roles each API accepts. https://platform.openai.com/docs/guides/function-calling
// and §Important Gemini details; https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use.
var _ = registerFamily(family{
	Name:  "ordering",
	Title: "Turns and blocks are in order",
})

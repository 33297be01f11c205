package suite

// Turns and blocks come in the order the provider demands: Anthropic
// tool_result blocks first and nothing after a tool_use; Gemini response
// turns right after call turns, parallel responses together and in call
// order; roles each API accepts. Seed 000 §Conversation structure detail
// and §Important Gemini details; provider-rules.md §3.3, §4.2, §4.3 rule 2.
var _ = registerFamily(family{
	Name:  "ordering",
	Title: "Turns and blocks are in order",
	Rules: []string{
		"tool-result-first", "no-content-after-tool-use", "first-message-user", "role-alternation",
		"strict-first-message-user", "strict-role-alternation",
		"function-response-after-call", "function-call-after-user", "call-turn-not-mixed", "function-response-order",
		"function-response-order-ids",
		"valid-role", "message-role", "assistant-content-type",
	},
})

package suite

// Declarations and messages have the shape each API requires: function
// names and schemas (strict mode included), arguments a JSON string for
// OpenAI and an object elsewhere, required fields present. https://platform.openai.com/docs/guides/function-calling
// §Field-by-field comparison, https://platform.openai.com/docs/guides/function-calling; the providers' API reference
// §1.3 rules 3 and 5, §2.2, §3.2, §4.2.
var _ = registerFamily(family{
	Name:  "shapes",
	Title: "Declarations and messages have the required shape",
	Rules: []string{
		"tool-name-pattern", "function-name-pattern", "function-name-valid", "tool-schema-valid",
		"function-schema-valid", "strict-schema", "arguments-string", "tool-use-input-object",
		"function-call-args-object", "required-fields", "model-required", "contents-required", "part-has-data",
		"non-empty-content", "tool-calls-non-empty", "stream-options-need-stream",
		"known-fields", "message-members", "field-types", "valid-json",
		"tool-controls-need-tools", "forced-tool-declared", "reasoning-models-refuse-max-tokens",
		"tool-names-unique", "non-empty-text-block", "cache-control-limit",
		"tool-choice-declared", "tool-choice-needs-tools", "thinking-budget-minimum",
		"thinking-budget-below-max-tokens", "thinking-no-forced-tool-choice",
		"parameters-one-schema", "parameters-schema-subset", "schema-required-defined",
		"allowed-function-names-declared", "function-calling-config-needs-declarations",
	},
})

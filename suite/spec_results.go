package suite

// The result carries the tool's data in the dialect's native shape:
// strings or blocks for OpenAI and Anthropic, an object for Gemini; errors
// flagged the dialect's way; images and documents where the dialect takes
// them. https://platform.openai.com/docs/guides/function-calling (multimodal function
// results); https://platform.openai.com/docs/guides/function-calling.
var _ = registerFamily(family{
	Name:  "results",
	Title: "Results carry the tool's data, natively",
	Rules: []string{

		"function-response-object", "tool-result-content-type", "tool-result-is-error-boolean",
		"image-only-in-user-messages", "image-format", "multimodal-response-model", "multimodal-response-inline-data",
		"multimodal-response-mime", "multimodal-response-display-name-unique",
		"multimodal-response-ref-resolves", "multimodal-response-ref-once",
	},
})

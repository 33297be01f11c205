package suite

// The result carries the tool's data in the dialect's native shape:
// strings or blocks for OpenAI and Anthropic, an object for Gemini; errors
// flagged the dialect's way; images and documents where the dialect takes
// them. https://platform.openai.com/docs/guides/function-calling (multimodal function
// results); https://platform.openai.com/docs/guides/function-calling.
var _ = registerFamily(family{
	Name:  "results",
	Title: "Results carry the tool's data, natively",
})

package suite

// What the model needs to continue travels back with the results: OpenAI
// reasoning items (replayed, or by previous_response_id, each item id once
// and referenced only when stored), Anthropic thinking blocks with their
// signatures, and Gemini 3 thought signatures as issued. https://ai.google.dev/gemini-api/docs/function-calling
// thought signatures; https://platform.openai.com/docs/guides/function-calling.
var _ = registerFamily(family{
	Name:  "continuity",
	Title: "Reasoning items and thought signatures travel back",
})

package suite

// The agent loop ends well: bad calls (unknown tool, unparseable
// arguments) become error results instead of crashes, and the model's
// final text comes back unchanged. https://platform.openai.com/docs/guides/function-calling
// example.
var _ = registerFamily(family{
	Name:  "loop",
	Title: "The tool loop completes",
	// Every loop rule is a scenario check; its family is declared with it
	// in suite/checks.
})

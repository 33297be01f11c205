package suite

// Declarations and messages have the shape each API requires: function
// names and schemas (strict mode included), arguments a JSON string for
// OpenAI and an object elsewhere, required fields present. https://platform.openai.com/docs/guides/function-calling
// §Field-by-field comparison, https://platform.openai.com/docs/guides/function-calling; the providers' API reference
// §1.3 rules 3 and 5, §2.2, §3.2, §4.2.
var _ = registerFamily(family{
	Name:  "shapes",
	Title: "Declarations and messages have the required shape",
})

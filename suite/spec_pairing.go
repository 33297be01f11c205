package suite

// Every call is answered, every answer names a call that was made — by id
// (OpenAI, Anthropic) or by position and name (Gemini). https://ai.google.dev/gemini-api/docs/function-calling
// fields and §Common pitfalls; https://platform.openai.com/docs/guides/function-calling
// rules 1–2, §3.3 rules 1–3, §4.3 rule 1.
var _ = registerFamily(family{
	Name:  "pairing",
	Title: "Calls and results pair up",
})

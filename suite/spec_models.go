package suite

// The request names a model the API serves, and asks of it only what it
// accepts: roles, reasoning effort and its levels, web search, audio, the
// API that serves it. The model catalog (mockprovider/models/catalog.yaml)
// holds what each model takes; each rule cites the real refusal.
var _ = registerFamily(family{
	Name:  "models",
	Title: "The model exists and accepts what is asked of it",
})

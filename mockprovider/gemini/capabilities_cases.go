package gemini

import "github.com/toolwire/toolwire/mockprovider/dialect"

// capabilityCases are the break/fix pairs of the model catalog's rules:
// the model is in the path, so Bad and Good differ there.
func capabilityCases() []dialect.RuleCase {
	msg := func(model, version, method string) string {
		return "models/" + model + " is not found for API version " + version + ", or is not supported for " + method + ". Call ModelService.ListModels to see the list of available models and their supported methods."
	}
	req := body(weatherFn, userAsk)
	return []dialect.RuleCase{
		{Rule: RuleModelExists, Name: "a retired model", Path: "/v1beta/models/gemini-1.5-flash:generateContent", GoodPath: path25,
			Bad: req, Good: req, WantStatus: 404, WantMessage: msg("gemini-1.5-flash", "v1beta", "generateContent")},
		{Rule: RuleModelExists, Name: "a made-up model, streamed on v1", Path: "/v1/models/gemini-test:streamGenerateContent?alt=sse",
			GoodPath: "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
			Bad:      req, Good: req, WantStatus: 404, WantMessage: msg("gemini-test", "v1", "StreamGenerateContent")},
		{Rule: RuleModelExists, Name: "a made-up model on Vertex AI", Path: "/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-test:generateContent",
			GoodPath: "/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent",
			Headers:  map[string]string{"Authorization": "Bearer ya29.token"},
			Bad:      req, Good: req, WantStatus: 404,
			WantMessage: "Publisher Model `projects/my-proj/locations/us-central1/publishers/google/models/gemini-test` was not found or your project does not have access to it."},
		{Rule: RuleModelExists, Name: "a made-up model, counting tokens", Path: "/v1beta/models/gemini-test:countTokens",
			GoodPath: "/v1beta/models/gemini-2.5-flash:countTokens",
			Bad:      req, Good: req, WantStatus: 404, WantMessage: msg("gemini-test", "v1beta", "countTokens")},
	}
}

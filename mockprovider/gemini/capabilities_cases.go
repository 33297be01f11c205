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
		{Rule: RuleModelExists, Name: "a made-up model, counting tokens", Path: "/v1beta/models/gemini-test:countTokens",
			GoodPath: "/v1beta/models/gemini-2.5-flash:countTokens",
			Bad:      req, Good: req, WantStatus: 404, WantMessage: msg("gemini-test", "v1beta", "countTokens")},
	}
}

package gemini

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// The model catalog: the model exists (enforced by the server for every
// dialect, answered by ModelNotFound).

const RuleModelExists = "gemini.model-exists"

// modelRules' cases name the model in the path, so Bad and Good differ
// there.
func modelRules(s *rules.Set[Request]) {
	msg := func(model, version, method string) string {
		return "models/" + model + " is not found for API version " + version + ", or is not supported for " + method + ". Call ModelService.ListModels to see the list of available models and their supported methods."
	}
	req := body(weatherFn, userAsk)
	s.Add(rules.Rule{ID: RuleModelExists, Level: rules.MUST, Family: "models",
		Summary: "The model is one the API serves (a catalog model, with or without models/; serve --models adds more), on generateContent, streamGenerateContent, countTokens and the Models API.",
		Refs: []rules.Ref{
			{URL: "https://github.com/vercel/next.js/issues/95049", Quote: "404 NOT_FOUND, verbatim"},
			{URL: "https://github.com/google/adk-python/issues/200", Quote: "the same 404"},
			{URL: "https://github.com/google-gemini/gemini-cli/issues/9952", Quote: "countTokens"},
			{URL: "https://github.com/genkit-ai/genkit/issues/4688", Quote: "Vertex AI's Publisher Model 404"},
		},
		Cases: []rules.Case{
			{Name: "a retired model", Path: "/v1beta/models/gemini-1.5-flash:generateContent", GoodPath: path25,
				Bad: req, Good: req, WantStatus: 404, WantMessage: msg("gemini-1.5-flash", "v1beta", "generateContent")},
			{Name: "a made-up model, streamed on v1", Path: "/v1/models/gemini-test:streamGenerateContent?alt=sse",
				GoodPath: "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
				Bad:      req, Good: req, WantStatus: 404, WantMessage: msg("gemini-test", "v1", "StreamGenerateContent")},
			{Name: "a made-up model on Vertex AI", Path: "/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-test:generateContent",
				GoodPath: "/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent",
				Headers:  map[string]string{"Authorization": "Bearer ya29.token"},
				Bad:      req, Good: req, WantStatus: 404,
				WantMessage: "Publisher Model `projects/my-proj/locations/us-central1/publishers/google/models/gemini-test` was not found or your project does not have access to it."},
			{Name: "a made-up model, counting tokens", Path: "/v1beta/models/gemini-test:countTokens",
				GoodPath: "/v1beta/models/gemini-2.5-flash:countTokens",
				Bad:      req, Good: req, WantStatus: 404, WantMessage: msg("gemini-test", "v1beta", "countTokens")},
		},
	}, nil) // the server answers it, before decoding
}

// ModelNotFound is the API's 404 for an unknown model, naming the path's
// API version and the method, verbatim:
// https://github.com/vercel/next.js/issues/95049 (v1beta, generateContent,
// "Call ModelService.ListModels"), https://github.com/google-gemini-php/laravel/issues/32
// (v1), https://github.com/ChatGPTNextWeb/NextChat/issues/4699 (the
// streaming method, spelt StreamGenerateContent),
// https://github.com/google-gemini/gemini-cli/issues/9952 (countTokens).
// Vertex AI names the publisher model of the project path instead
// (vertexModelNotFound); its express mode (no project in the path) is not
// checked, no capture showing its words.
func (d *Dialect) ModelNotFound(r *http.Request, model string) *wire.APIError {
	if r == nil {
		return nil
	}
	if isVertexProject(r) {
		return vertexModelNotFound(r, model)
	}
	if strings.Contains(r.URL.Path, "/publishers/google/") {
		return nil
	}
	version, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	_, method, _ := cutLast(r.PathValue("action"), ":")
	if method == methodStream {
		method = "StreamGenerateContent"
	}
	return &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound, RuleID: RuleModelExists,
		Message: fmt.Sprintf("models/%s is not found for API version %s, or is not supported for %s. Call ModelService.ListModels to see the list of available models and their supported methods.", model, version, method)}
}

// vertexModelNotFound is Vertex AI's 404 for an unknown publisher model,
// verbatim: https://github.com/genkit-ai/genkit/issues/4688,
// https://github.com/truefoundry/models/pull/946.
func vertexModelNotFound(r *http.Request, model string) *wire.APIError {
	name := "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location") + "/publishers/google/models/" + model
	return &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound, RuleID: RuleModelExists,
		Message: "Publisher Model `" + name + "` was not found or your project does not have access to it. Please ensure you are using a valid model version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions"}
}

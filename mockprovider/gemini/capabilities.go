package gemini

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// RuleModelExists: the model exists (enforced by the server for every
// dialect, answered by ModelNotFound).
const RuleModelExists = "gemini.model-exists"

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

// capabilityRules are the catalog's rules, appended to the dialect's own.
func capabilityRules() []rules.Rule {
	return []rules.Rule{
		{ID: RuleModelExists, Dialect: conv.Gemini, Level: rules.MUST,
			Summary: "The model is one the API serves (a catalog model, with or without models/; serve --models adds more), on generateContent, streamGenerateContent, countTokens and the Models API.",
			Source:  "https://github.com/vercel/next.js/issues/95049 and https://github.com/google/adk-python/issues/200 (404 NOT_FOUND, verbatim); https://github.com/google-gemini/gemini-cli/issues/9952 (countTokens); https://github.com/genkit-ai/genkit/issues/4688 (Vertex AI's Publisher Model 404)"},
	}
}

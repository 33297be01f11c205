package anthropic

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// VertexRoute is Anthropic on Vertex AI, as anthropic-sdk-go's vertex
// package sends it: the model and the method in the path
// (…/models/claude-sonnet-4-5:rawPredict, :streamRawPredict, and
// …/models/count-tokens:rawPredict with the model in the body),
// anthropic_version in the body instead of the header, bearer auth.
const VertexRoute = "POST /v1/projects/{project}/locations/{location}/publishers/anthropic/models/{call}"

// vertexCall reads the model and method of a Vertex path.
func vertexCall(r *http.Request) (model, method string, ok bool) {
	if r == nil || !strings.HasPrefix(r.URL.Path, "/v1/projects/") {
		return "", "", false
	}
	model, method, found := strings.Cut(r.PathValue("call"), ":")
	return model, method, found
}

// decodeVertex applies the path to a request decoded from a Vertex body.
func decodeVertex(r *http.Request, body []byte, lenient bool) (*Request, *wire.APIError) {
	model, method, _ := vertexCall(r)
	count := model == "count-tokens"
	switch {
	case method != "rawPredict" && method != "streamRawPredict", count && method != "rawPredict":
		return nil, &wire.APIError{Status: http.StatusNotFound, Type: "not_found_error",
			Message: "The requested method " + method + " is not supported on publishers/anthropic/models/" + model + "."}
	}
	req, aerr := decodeRequest(body, lenient, count)
	if aerr != nil {
		return nil, aerr
	}
	if !req.HasAnthropicVersion {
		// Vertex reads the API version from the body; text [I] in the
		// validator's words.
		return nil, invalidRule(RuleRequiredFields, "anthropic_version: "+required)
	}
	if !count {
		req.Model, req.HasModel = model, true
		req.Stream = req.Stream || method == "streamRawPredict"
	}
	return req, nil
}

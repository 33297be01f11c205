package mockprovider

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// notFound answers a path no route serves, or a method a route does not
// take, in the envelope of the provider the request was meant for, so an
// SDK pointed at a wrong base URL raises its own NotFoundError with the
// real API's text instead of choking on Go's plain-text "404 page not
// found".
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	d := guessDialect(r)
	dl, ok := s.dialects[d]
	if !ok || strings.HasPrefix(r.URL.Path, "/_toolwire/") {
		wire.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"message": "toolwire: no such endpoint: " + r.Method + " " + r.URL.Path}})
		return
	}
	e := &wire.APIError{Status: http.StatusNotFound}
	switch d {
	case conv.OpenAIChat:
		// Under /v1 the API names the request (2023-25 captures, e.g.
		// github.com/swordintent/chatgpt-web-api/issues/11); outside it
		// the newer unknown_url text (github.com/InternLM/MindSearch/issues/150).
		e.Type = "invalid_request_error"
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			e.Message = "Invalid URL (" + r.Method + " " + r.URL.Path + ")"
		} else {
			e.Message = "Unknown request URL: " + r.Method + " " + r.URL.Path + ". Please check the URL for typos, or see the docs at https://platform.openai.com/docs/api-reference/."
			e.Code = "unknown_url"
		}
	case conv.Anthropic:
		e.Type, e.Message = "not_found_error", "Not Found"
	case conv.Gemini:
		// Inferred: Google's JSON 404 for a method the service lacks.
		e.Type, e.Message = "NOT_FOUND", "Method not found."
	}
	dl.WriteError(w, e)
}

// guessDialect picks the provider a stray request was meant for: by its
// auth headers first (each SDK sends its own), then by its path.
func guessDialect(r *http.Request) conv.Dialect {
	h := r.Header
	p := r.URL.Path
	switch {
	case h.Get("Anthropic-Version") != "" || h.Get("X-Api-Key") != "" || strings.Contains(p, "/publishers/anthropic/"):
		return conv.Anthropic
	case h.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key") || strings.HasPrefix(p, "/v1beta") ||
		strings.HasPrefix(p, "/v1alpha") || strings.Contains(p, ":generateContent") || strings.Contains(p, ":streamGenerateContent") ||
		strings.Contains(p, "/publishers/google/"):
		return conv.Gemini
	}
	return conv.OpenAIChat
}

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
	dl.WriteError(w, dl.NotFound(r))
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

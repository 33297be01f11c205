package gemini

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/models"
)

// ModelAPI is the model catalog namespace of the Gemini API.
func (d *Dialect) ModelAPI() models.API { return models.Gemini }

// StrayScore claims a request no route serves that carries the Gemini
// SDKs' marks (x-goog-api-key, ?key=, a v1beta/v1alpha prefix, a
// generation method, a Vertex Google path); Anthropic's marks outrank it.
func (d *Dialect) StrayScore(r *http.Request) int {
	p := r.URL.Path
	if r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key") || strings.HasPrefix(p, "/v1beta") ||
		strings.HasPrefix(p, "/v1alpha") || strings.Contains(p, ":generateContent") || strings.Contains(p, ":streamGenerateContent") ||
		strings.Contains(p, "/publishers/google/") {
		return 2
	}
	return 0
}

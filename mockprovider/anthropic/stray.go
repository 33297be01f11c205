package anthropic

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/models"
)

// ModelAPI is the model catalog namespace of the Messages API.
func (d *Dialect) ModelAPI() models.API { return models.Anthropic }

// StrayScore claims a request no route serves that carries the Anthropic
// SDKs' marks (anthropic-version, x-api-key, a Vertex Claude path); it
// outranks Gemini's marks.
func (d *Dialect) StrayScore(r *http.Request) int {
	h := r.Header
	if h.Get("Anthropic-Version") != "" || h.Get("X-Api-Key") != "" || strings.Contains(r.URL.Path, "/publishers/anthropic/") {
		return 3
	}
	return 0
}

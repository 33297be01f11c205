package dialect

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/models"
)

// ModelServer is implemented by dialects whose Models API (list and
// retrieve) the server answers from its model catalog.
type ModelServer interface {
	ModelRoutes(h Host, catalog *models.Catalog) []ModelRoute
}

// ModelRoute is one GET endpoint of a Models API.
type ModelRoute struct {
	Pattern string // "GET /v1/models/{id}"
	// Claims tells this API's requests from another's on a path both
	// serve (OpenAI and Anthropic share GET /v1/models; the Anthropic SDKs
	// always send anthropic-version, the OpenAI ones never do). nil takes
	// what no other route of the path claims.
	Claims  func(r *http.Request) bool
	Handler http.HandlerFunc
}

// Authorized checks the API key as d's endpoints do, answering d's error
// through h when it is missing or wrong.
func Authorized(h Host, d Dialect, w http.ResponseWriter, r *http.Request) bool {
	if _, aerr := d.Key(r); aerr != nil {
		h.WriteErrorFor(d.Name(), w, aerr)
		return false
	}
	return true
}

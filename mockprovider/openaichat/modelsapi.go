package openaichat

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// ModelRoutes serves OpenAI's Models API (shared by Chat Completions and
// Responses): what no other API's SDK claims on GET /v1/models.
func (d *Dialect) ModelRoutes(h dialect.Host, catalog *models.Catalog) []dialect.ModelRoute {
	return []dialect.ModelRoute{
		{Pattern: "GET /v1/models/{id}", Handler: openaiwire.GetModelFrom(catalog)},
		{Pattern: "GET /v1/models", Handler: func(w http.ResponseWriter, r *http.Request) {
			if !dialect.Authorized(h, d, w, r) {
				return
			}
			data := []openaiwire.Model{}
			for _, m := range catalog.List(models.OpenAI) {
				data = append(data, openaiwire.ModelObject(m.ID, m))
			}
			wire.WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
		}},
	}
}

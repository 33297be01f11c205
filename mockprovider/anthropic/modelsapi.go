package anthropic

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// ModelRoutes serves the Models API on the paths OpenAI's uses too,
// claiming the requests the Anthropic SDKs send: with anthropic-version
// (or, to retrieve one model, an x-api-key).
func (d *Dialect) ModelRoutes(h dialect.Host, catalog *models.Catalog) []dialect.ModelRoute {
	return []dialect.ModelRoute{
		{Pattern: "GET /v1/models/{id}", Handler: d.GetModelFrom(catalog), Claims: func(r *http.Request) bool {
			return r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != ""
		}},
		{Pattern: "GET /v1/models", Claims: func(r *http.Request) bool { return r.Header.Get("anthropic-version") != "" }, Handler: func(w http.ResponseWriter, r *http.Request) {
			if !dialect.Authorized(h, d, w, r) {
				return
			}
			list := catalog.List(models.Anthropic)
			data := make([]any, 0, len(list))
			for _, m := range list {
				data = append(data, ModelInfo(m.ID, m))
			}
			page := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
			if len(list) > 0 {
				page["first_id"], page["last_id"] = list[0].ID, list[len(list)-1].ID
			}
			wire.WriteJSON(w, http.StatusOK, page)
		}},
	}
}

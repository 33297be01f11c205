package gemini

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// ModelRoutes serves the Gemini API's models.list and models.get.
func (d *Dialect) ModelRoutes(h dialect.Host, catalog *models.Catalog) []dialect.ModelRoute {
	return []dialect.ModelRoute{
		{Pattern: "GET /v1beta/models", Handler: func(w http.ResponseWriter, r *http.Request) {
			if !dialect.Authorized(h, d, w, r) {
				return
			}
			var list []map[string]any
			for _, m := range catalog.List(models.Gemini) {
				list = append(list, modelInfo(m.ID, m))
			}
			wire.WriteJSON(w, http.StatusOK, map[string]any{"models": list})
		}},
		{Pattern: "GET /v1beta/models/{model}", Handler: func(w http.ResponseWriter, r *http.Request) {
			if !dialect.Authorized(h, d, w, r) {
				return
			}
			id := strings.TrimPrefix(r.PathValue("model"), "models/")
			m, ok := catalog.Lookup(models.Gemini, id)
			if !ok {
				// Worded as the generation methods' 404, naming models.get [I].
				h.WriteErrorFor(d.Name(), w, &wire.APIError{Status: http.StatusNotFound, Type: "NOT_FOUND",
					Message: "models/" + id + " is not found for API version v1beta, or is not supported for getModel. Call ModelService.ListModels to see the list of available models and their supported methods."})
				return
			}
			wire.WriteJSON(w, http.StatusOK, modelInfo(id, m))
		}},
	}
}

func modelInfo(id string, m *models.Model) map[string]any {
	name := id
	in, out := int64(1048576), int64(65536)
	if m != nil && !m.IsWildcard() {
		if m.DisplayName != "" {
			name = m.DisplayName
		}
		if m.InputTokenLimit > 0 {
			in = m.InputTokenLimit
		}
		if m.MaxOutputTokens > 0 {
			out = m.MaxOutputTokens
		}
	}
	info := map[string]any{
		"name": "models/" + id, "version": "001", "displayName": name, "description": "toolwire mock of " + id,
		"inputTokenLimit": in, "outputTokenLimit": out,
		"supportedGenerationMethods": []string{"generateContent", "streamGenerateContent", "countTokens"},
	}
	if m != nil && m.Reasoning != nil && *m.Reasoning {
		info["thinking"] = true
	}
	return info
}

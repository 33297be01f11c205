package openaiwire

import (
	"net/http"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Model is the API's model object (GET /v1/models/{id}).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// modelCreated is the created time of a model the catalog gives no date
// (a fine-tuned model, a --models entry without one): 2024-07-17,
// gpt-4o-mini's.
const modelCreated = 1721172741

// ModelNotFoundMessage is the API's answer to a model id it does not
// serve, on every endpoint that takes one (Chat, Responses, its WebSocket
// mode, the Models API): 404, invalid_request_error, param null, code
// model_not_found. Verbatim, backquotes included:
// https://github.com/rd-1-2022/ai-openai-helloworld/issues/9,
// https://github.com/Dooy/chatgpt-web-midjourney-proxy/issues/271; a
// fine-tuned id is named whole
// (https://github.com/noahgsolomon/brainrot.js/issues/17).
func ModelNotFoundMessage(model string) string {
	return "The model `" + model + "` does not exist or you do not have access to it."
}

// ModelNotFound is that 404.
func ModelNotFound(model string) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: InvalidRequest, Message: ModelNotFoundMessage(model), Code: "model_not_found"}
}

// GetModel answers GET /v1/models/{id} from the built-in catalog.
func GetModel(w http.ResponseWriter, r *http.Request) { GetModelFrom(nil)(w, r) }

// GetModelFrom answers GET /v1/models/{id} with the model object of a
// catalog model (a fine-tuned id is named as asked), after the same bearer
// auth as every OpenAI endpoint; a missing id is the API's Invalid URL 404,
// an unknown one its model_not_found. It is not a route of its own:
// Anthropic serves the same path, so the server dispatches to it by the
// request's auth header.
func GetModelFrom(catalog *models.Catalog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		started := time.Now()
		if _, err := Key(r); err != nil {
			WriteError(w, err)
			return
		}
		id := r.PathValue("id")
		if id == "" {
			id = strings.TrimPrefix(r.URL.Path, "/v1/models/")
		}
		if id == "" || strings.Contains(id, "/") {
			WriteError(w, InvalidURL(r))
			return
		}
		m, ok := catalog.Lookup(models.OpenAI, id)
		if !ok {
			WriteError(w, ModelNotFound(id))
			return
		}
		ResponseHeaders(w.Header(), started, 0)
		wire.WriteJSON(w, http.StatusOK, ModelObject(id, m))
	}
}

// ModelObject is the Models API's object for id, a catalog model's.
func ModelObject(id string, m *models.Model) Model {
	created := int64(modelCreated)
	if m != nil {
		if t, err := time.Parse(time.DateOnly, m.Created); err == nil {
			created = t.Unix()
		}
	}
	return Model{ID: id, Object: "model", Created: created, OwnedBy: "system"}
}

// InvalidURL is the API's 404 for a path it does not serve.
func InvalidURL(r *http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: InvalidRequest, Message: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"}
}

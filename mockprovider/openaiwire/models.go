package openaiwire

import (
	"net/http"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Model is the API's model object (GET /v1/models/{id}).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// modelCreated is the created time the mock reports for every model: it
// serves any model name it is asked for, so it knows no release dates
// and answers one fixed time (2024-07-17, gpt-4o-mini's).
const modelCreated = 1721172741

// GetModel answers GET /v1/models/{id} with the model object, after the
// same bearer auth as every OpenAI endpoint; a missing id is the API's
// 404. It is not a route of its own: Anthropic serves the same path, so
// the server dispatches to it by the request's auth header.
func GetModel(w http.ResponseWriter, r *http.Request) {
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
	ResponseHeaders(w.Header(), started, 0)
	wire.WriteJSON(w, http.StatusOK, Model{ID: id, Object: "model", Created: modelCreated, OwnedBy: "system"})
}

// InvalidURL is the API's 404 for a path it does not serve.
func InvalidURL(r *http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: InvalidRequest, Message: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"}
}

package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// DefaultModel addresses a request that names no model: Gemini has the
// model in the path, so one is needed to post at all.
const DefaultModel = "gemini-2.5-flash"

// Endpoint is where go-genai posts on the Gemini API (v1beta): the model
// and the method are the last path segment, and a stream asks for SSE
// (models.go: "{model}:streamGenerateContent?alt=sse").
func (d *Dialect) Endpoint(model string, stream bool) string {
	if model == "" {
		model = DefaultModel
	}
	if stream {
		return "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
	}
	return "/v1beta/models/" + model + ":generateContent"
}

// SetAuth sets x-goog-api-key, as go-genai does for an API key.
func (d *Dialect) SetAuth(h http.Header, key string) { h.Set("x-goog-api-key", key) }

// ErrorMessage checks that body is {"error":{"code": status, "message",
// "status"}} and returns the message.
func (d *Dialect) ErrorMessage(status int, body []byte) (string, error) {
	var env struct {
		Error struct {
			Code    json.Number `json:"code"`
			Message string      `json:"message"`
			Status  string      `json:"status"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", errors.New("error body is not JSON")
	}
	if code, err := env.Error.Code.Int64(); err != nil || code != int64(status) || env.Error.Status == "" {
		return "", fmt.Errorf(`Gemini envelope must be {"error":{"code":%d,"message","status"}}`, status)
	}
	return env.Error.Message, nil
}

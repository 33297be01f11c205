package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// SDKVersion is the anthropic-version header anthropic-sdk-go sends with
// every request (internal/requestconfig/requestconfig.go).
const SDKVersion = "2023-06-01"

// Endpoint is where anthropic-sdk-go posts a message; the model and the
// stream flag travel in the body.
func (d *Dialect) Endpoint(model string, stream bool) string {
	return strings.TrimPrefix(Route, "POST ")
}

// SetAuth sets x-api-key (WithAPIKey) and the version header the API
// demands of every request.
func (d *Dialect) SetAuth(h http.Header, key string) {
	h.Set("x-api-key", key)
	h.Set("anthropic-version", SDKVersion)
}

// ErrorMessage checks that body is {"type":"error","error":{"type",
// "message"}} and returns the message.
func (d *Dialect) ErrorMessage(status int, body []byte) (string, error) {
	var env struct {
		Type  string                     `json:"type"`
		Error map[string]json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", errors.New("error body is not JSON")
	}
	_, hasType := env.Error["type"]
	raw, hasMessage := env.Error["message"]
	if env.Type != "error" || !hasType || !hasMessage {
		return "", errors.New(`Anthropic envelope must be {"type":"error","error":{"type","message"}}`)
	}
	var msg string
	_ = json.Unmarshal(raw, &msg)
	return msg, nil
}

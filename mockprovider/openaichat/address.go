package openaichat

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// Endpoint is where openai-go posts a chat completion; the model and the
// stream flag travel in the body.
func (d *Dialect) Endpoint(model string, stream bool) string {
	return strings.TrimPrefix(Route, "POST ")
}

func (d *Dialect) SetAuth(h http.Header, key string) { openaiwire.SetAuth(h, key) }

func (d *Dialect) ErrorMessage(status int, body []byte) (string, error) {
	return openaiwire.ErrorMessage(body)
}

package openairesp

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
)

// Endpoint is where openai-go creates a response; the model and the
// stream flag travel in the body.
func (d *Dialect) Endpoint(model string, stream bool) string { return Path }

func (d *Dialect) SetAuth(h http.Header, key string) { openaiwire.SetAuth(h, key) }

func (d *Dialect) ErrorMessage(status int, body []byte) (string, error) {
	return openaiwire.ErrorMessage(body)
}

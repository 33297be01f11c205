// Package openairesp is a placeholder being replaced by the real dialect.
package openairesp

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Dialect implements dialect.Dialect.
type Dialect struct{}

// New returns the dialect.
func New() *Dialect { return &Dialect{} }

func (d *Dialect) Name() conv.Dialect  { return "openairesp" }
func (d *Dialect) Routes() []string    { return nil }
func (d *Dialect) Rules() []rules.Rule { return nil }
func (d *Dialect) Key(r *http.Request) (string, *wire.APIError) {
	return "", &wire.APIError{Status: 501}
}
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	return nil, nil, &wire.APIError{Status: 501}
}
func (d *Dialect) Encode(x *dialect.Exchange, req any, c *conv.Conversation, reply *model.Reply) {}
func (d *Dialect) WriteError(w http.ResponseWriter, e *wire.APIError) {
	wire.WriteJSON(w, e.Status, e.Message)
}
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {}
func (d *Dialect) Fault(kind string) *wire.APIError          { return &wire.APIError{Status: 501} }

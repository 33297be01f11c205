// Package openairesp is the OpenAI Responses API dialect (POST
// /v1/responses): input items in, output items out, reasoning items that
// must travel back with the calls they preceded, previous_response_id
// continuations from a per-session store, and the event stream with
// sequence numbers. Retrieval (GET), deletion (DELETE) and input-item
// listing of stored responses are served beside the pipeline.
package openairesp

import (
	"net/http"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Dialect implements dialect.Dialect and dialect.Extra.
type Dialect struct {
	rules []rules.Rule
	// streams maps a stream in flight to its response, so an injected
	// in-stream error can name the response that failed. A plain map: every
	// stream adds and removes its key, which a sync.Map pays for with an
	// allocation and its lock each time.
	streamsMu sync.Mutex
	streams   map[*wire.SSE]streamState
}

// New returns the dialect.
func New() *Dialect { return &Dialect{rules: set.Rules()} }

// Path is the create endpoint.
const Path = "/v1/responses"

func (d *Dialect) Name() conv.Dialect { return conv.OpenAIResponses }
func (d *Dialect) Routes() []string {
	return []string{"POST " + Path, "POST " + InputTokensPath, "POST " + CompactPath}
}

func (d *Dialect) Key(r *http.Request) (string, *wire.APIError) { return openaiwire.Key(r) }

func (d *Dialect) InvalidKey(key string) *wire.APIError { return openaiwire.InvalidKey(key) }

func (d *Dialect) NotFound(r *http.Request) *wire.APIError { return openaiwire.NotFound(r) }

func (d *Dialect) WriteError(w http.ResponseWriter, e *wire.APIError) { openaiwire.WriteError(w, e) }

func (d *Dialect) Fault(kind string) *wire.APIError { return openaiwire.Fault(kind) }

// Package openaichat is the OpenAI Chat Completions dialect
// (POST /v1/chat/completions): it decodes requests into the neutral
// conversation, holds the Chat rules with the API's verbatim errors, and
// answers with chat.completion objects or chat.completion.chunk streams
// that the official SDKs accumulate unchanged.
package openaichat

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Route is the endpoint this dialect serves on api.openai.com.
const Route = "POST /v1/chat/completions"

// Azure OpenAI serves the same API under a deployment (the deployment
// names the model; ?api-version= is required) and, in its v1 API, under
// /openai/v1 (api-version optional).
const (
	AzureDeploymentRoute = "POST /openai/deployments/{deployment}/chat/completions"
	AzureV1Route         = "POST /openai/v1/chat/completions"
)

// RawArgumentsKey holds a replayed call's arguments when they are not a
// JSON object (unparseable text, an array, a number): conv.Call.Arguments
// is always an object, and keeping the raw text under this reserved key
// lets the journal and the suite show what the client actually sent
// instead of silently dropping it.
const RawArgumentsKey = "_toolwire_unparsed_arguments"

// Dialect implements dialect.Dialect for Chat Completions.
type Dialect struct {
	rules []rules.Rule
}

// New returns the dialect.
func New() *Dialect { return &Dialect{rules: set.Rules()} }

var _ dialect.Dialect = (*Dialect)(nil)

func (d *Dialect) Name() conv.Dialect { return conv.OpenAIChat }
func (d *Dialect) Routes() []string {
	return []string{Route, AzureDeploymentRoute, AzureV1Route}
}
func (d *Dialect) Rules() []rules.Rule { return d.rules }

func (d *Dialect) Key(r *http.Request) (string, *wire.APIError) { return openaiwire.Key(r) }

func (d *Dialect) InvalidKey(key string) *wire.APIError { return openaiwire.InvalidKey(key) }

func (d *Dialect) NotFound(r *http.Request) *wire.APIError { return openaiwire.NotFound(r) }

func (d *Dialect) WriteError(w http.ResponseWriter, e *wire.APIError) { openaiwire.WriteError(w, e) }

func (d *Dialect) Fault(kind string) *wire.APIError { return openaiwire.Fault(kind) }

// Decode parses the body into *Request and the neutral conversation.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	lenient := x != nil && x.Env != nil && x.Env.Options.Lenient
	received := time.Now()
	var s *session.Session
	if x != nil {
		s = x.Session
	}
	req, err := decodeInSession(s, body, lenient)
	if err != nil {
		return nil, nil, err
	}
	req.received = received
	if x != nil && x.R != nil {
		if dep := x.R.PathValue("deployment"); dep != "" {
			// The deployment names the model; the body's model is optional.
			req.Deployment = dep
			if !req.HasModel {
				req.Model, req.HasModel = dep, true
			}
		}
	}
	return req, toConversation(req), nil
}

// Encode answers with a chat.completion, or a chunk stream when asked.
func (d *Dialect) Encode(x *dialect.Exchange, req any, c *conv.Conversation, reply *model.Reply) {
	r, _ := req.(*Request)
	if r == nil {
		r = &Request{}
	}
	out := buildOutput(x, r, c, reply)
	if r.received.IsZero() {
		r.received = time.Now()
	}
	openaiwire.ResponseHeaders(x.W.Header(), r.received, out.Usage.TotalTokens)
	if c.Stream {
		streamOutput(x, r, out)
		return
	}
	x.JSON(http.StatusOK, json.RawMessage(encodeCompletion(out)))
}

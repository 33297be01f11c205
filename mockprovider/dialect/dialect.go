// Package dialect is the seam between the server and the per-provider
// packages: each dialect decodes its wire request, owns its rules, and
// encodes replies and errors in its own shapes. The server runs the shared
// pipeline (auth, bounded body, rules, journal, model, faults) around it.
package dialect

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Dialect is one provider wire protocol.
type Dialect interface {
	Name() conv.Dialect
	Client
	// Routes are the POST endpoints served by the shared pipeline, as
	// net/http patterns ("POST /v1/messages").
	Routes() []string
	// Rules returns the dialect's catalog entries with their checks.
	Rules() []rules.Rule
	// Key extracts the API key that names the session, or returns the
	// provider's own 401/403 (Anthropic also demands anthropic-version).
	Key(r *http.Request) (string, *wire.APIError)
	// InvalidKey is the provider's answer to a key it does not accept (the
	// server refuses keys too long to name a session).
	InvalidKey(key string) *wire.APIError
	// NotFound is the provider's 404 for a path no route serves, so an SDK
	// pointed at a wrong base URL raises its own not-found error.
	NotFound(r *http.Request) *wire.APIError
	// ModelNotFound is the provider's 404 for a model id it does not
	// serve, worded for the endpoint of r (Gemini names the API version
	// and method), carrying the dialect's model-exists rule. It is nil
	// where the request's model is no model id (an Azure deployment
	// name), which the server then accepts unchecked.
	ModelNotFound(r *http.Request, model string) *wire.APIError
	// Decode parses a body into the dialect's request (the checks' input)
	// and the neutral conversation. A body that is not the dialect's JSON
	// gets the provider's 400. x gives access to the session (Responses
	// previous_response_id) and options.
	Decode(x *Exchange, body []byte) (req any, c *conv.Conversation, err *wire.APIError)
	// Encode answers with the reply: one JSON body, or a stream when the
	// conversation asked for one (c.Stream).
	Encode(x *Exchange, req any, c *conv.Conversation, reply *model.Reply)
	// WriteError renders an error in the dialect's envelope.
	WriteError(w http.ResponseWriter, e *wire.APIError)
	// StreamError writes the dialect's in-stream error event.
	StreamError(s *wire.SSE, e *wire.APIError)
	// Fault returns the provider's answer for an injected fault kind
	// ("rate_limit", "overloaded", "server_error"), headers included.
	Fault(kind string) *wire.APIError
}

// Extra is implemented by dialects with endpoints outside the pipeline
// (GET /v1/responses/{id}). h is a SocketHost when the server can host a
// WebSocket mode (GET /v1/responses).
type Extra interface {
	ExtraRoutes(h Host) map[string]http.HandlerFunc
}

// Host is what dialects may ask of the server outside a request.
type Host interface {
	Sessions() *session.Store
	WriteErrorFor(d conv.Dialect, w http.ResponseWriter, e *wire.APIError)
}

// Exchange is one request in flight.
type Exchange struct {
	W       http.ResponseWriter
	R       *http.Request
	Session *session.Session // nil when checking offline
	Env     *rules.Env
	// Stream holds the pacing for a streamed answer (scenario turn, then
	// request headers, override defaults).
	Stream wire.StreamConfig
	// StreamHook, when set, is installed on the SSE writer (faults).
	StreamHook func(s *wire.SSE, sent int) error

	status   int
	body     json.RawMessage
	events   []session.Event
	finished bool
}

// IDs mints the session's deterministic ids (or throwaway ones offline).
func (x *Exchange) IDs() *wire.IDs {
	if x.Session != nil {
		return x.Session.IDs
	}
	return wire.NewIDs("offline")
}

// JSON writes a JSON answer and keeps it for the journal. A
// json.RawMessage is written as it is (the dialect encoded it already).
func (x *Exchange) JSON(status int, body any) {
	b, ok := body.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(body); err != nil {
			status, b = http.StatusInternalServerError, []byte(`{"error":"toolwire: encoding failed"}`)
		}
	}
	x.status, x.body = status, b
	// Assigned rather than Set: the shared value saves an allocation per
	// answer, and nothing appends to or edits a header value in place.
	h := x.W.Header()
	h["Content-Type"] = jsonContentType
	// A body over net/http's 2 KiB buffer (a Responses object) has its
	// length declared, so it is not sent chunked, as the real APIs do
	// not; a smaller one gets the same header from net/http when the
	// handler returns, without a header map entry that would make the
	// map grow (Anthropic's answers carry fourteen others).
	if len(b) > chunkingThreshold {
		h["Content-Length"] = []string{strconv.Itoa(len(b))}
	}
	x.W.WriteHeader(status)
	_, _ = x.W.Write(b)
}

var jsonContentType = []string{"application/json"}

// chunkingThreshold is net/http's bufferBeforeChunkingSize: an answer
// written whole and no longer than this gets its Content-Length from the
// server itself.
const chunkingThreshold = 2048

// SSE starts a stream whose events are kept for the journal. sep is the
// event separator ("" = "\n\n").
func (x *Exchange) SSE(sep string) *wire.SSE {
	x.status = http.StatusOK
	s := wire.NewSSE(x.W, x.Stream, sep)
	s.Transcript = func(event string, data []byte) {
		x.events = append(x.events, session.Event{Event: event, Data: data})
	}
	if x.StreamHook != nil {
		s.Hook = func(sent int) error { return x.StreamHook(s, sent) }
	}
	return s
}

// Result is what was sent, for the journal.
func (x *Exchange) Result() (status int, body json.RawMessage, events []session.Event) {
	return x.status, x.body, x.events
}

// SetEvents records a stream written by other means (replay).
func (x *Exchange) SetEvents(evs []session.Event) { x.events = evs }

// SetResult records an answer written without JSON or SSE (errors).
func (x *Exchange) SetResult(status int, body json.RawMessage) { x.status, x.body = status, body }

// Catalogued is implemented by dialects whose model ids live in a model
// catalog namespace other than OpenAI's (the default).
type Catalogued interface {
	ModelAPI() models.API
}

// ModelAPI is the catalog namespace d's model ids live in.
func ModelAPI(d Dialect) models.API {
	if c, ok := d.(Catalogued); ok {
		return c.ModelAPI()
	}
	return models.OpenAI
}

// Stray is implemented by dialects that can tell a request no route
// serves was meant for them, so its 404 comes in their envelope and an
// SDK pointed at a wrong base URL raises its own not-found error.
type Stray interface {
	// StrayScore says how surely r was meant for this API: 0 not at all;
	// higher wins. The marks an SDK sends (its auth headers, its path
	// prefixes) score above a bare bearer key, which is OpenAI's.
	StrayScore(r *http.Request) int
}

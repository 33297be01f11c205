// Package anthropic is the Anthropic Messages dialect of the mock provider:
// POST /v1/messages with the real API's headers, request shapes, tool-use
// rules, error envelope, response body and server-sent events
// (https://docs.claude.com/en/api/messages).
package anthropic

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Dialect implements dialect.Dialect for the Anthropic Messages API.
type Dialect struct {
	// requestIDs mints request-id values for answers written without an
	// exchange (errors before a session exists); deterministic per process.
	requestIDs *wire.IDs
}

// New returns the dialect.
func New() *Dialect {
	return &Dialect{requestIDs: wire.NewIDs("anthropic-request-id")}
}

// Route is the Messages endpoint; CountTokensRoute counts a prompt's
// tokens with the same validation and journal (the reply the pipeline
// computes for it is not sent).
const (
	Route            = "POST /v1/messages"
	CountTokensRoute = "POST /v1/messages/count_tokens"
)

func (d *Dialect) Name() conv.Dialect { return conv.Anthropic }
func (d *Dialect) Routes() []string   { return []string{Route, CountTokensRoute, VertexRoute} }

// Error types of the Anthropic error envelope (errors page).
const (
	errInvalidRequest = "invalid_request_error"
	errAuthentication = "authentication_error"
	errRateLimit      = "rate_limit_error"
	errAPI            = "api_error"
	errOverloaded     = "overloaded_error"
	errTooLarge       = "request_too_large"
)

// Key reads the API key the SDKs send: x-api-key (WithAPIKey,
// ANTHROPIC_API_KEY) or Authorization: Bearer (WithAuthToken,
// ANTHROPIC_AUTH_TOKEN). The real API checks the key before the version
// header, so a request missing both gets the 401.
func (d *Dialect) Key(r *http.Request) (string, *wire.APIError) {
	key := strings.TrimSpace(r.Header.Get("X-Api-Key"))
	if key == "" {
		if auth := r.Header.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			key = strings.TrimSpace(auth[7:])
		}
	}
	if key == "" {
		return "", &wire.APIError{Status: http.StatusUnauthorized, Type: errAuthentication, Message: "x-api-key header is required"}
	}
	if _, _, vertex := vertexCall(r); vertex {
		return key, nil // Vertex reads the version from the body
	}
	if strings.TrimSpace(r.Header.Get("Anthropic-Version")) == "" {
		return "", &wire.APIError{Status: http.StatusBadRequest, Type: errInvalidRequest, Message: "anthropic-version: header is required"}
	}
	return key, nil
}

// InvalidKey is the API's answer to a key it does not accept.
func (d *Dialect) InvalidKey(string) *wire.APIError {
	return &wire.APIError{Status: http.StatusUnauthorized, Type: errAuthentication, Message: "invalid x-api-key"}
}

// NotFound is the API's 404 for a path it does not serve.
func (d *Dialect) NotFound(*http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: "not_found_error", Message: "Not Found"}
}

// errorBody is the Anthropic error envelope (https://docs.claude.com/en/api/errors).
type errorBody struct {
	Type      string      `json:"type"`
	Error     errorDetail `json:"error"`
	RequestID string      `json:"request_id,omitempty"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// WriteError renders e as {"type":"error","error":{type,message},
// "request_id":"req_…"} with the matching request-id header.
func (d *Dialect) WriteError(w http.ResponseWriter, e *wire.APIError) {
	typ := e.Type
	if typ == "" {
		typ = errorTypeFor(e.Status)
	}
	id := d.requestIDs.Next("req_011C", 20)
	w.Header().Set("Request-Id", id)
	setRateLimits(w.Header(), time.Now(), requestLimit-1)
	wire.WriteJSON(w, e.Status, errorBody{Type: "error", Error: errorDetail{Type: typ, Message: e.Message}, RequestID: id})
}

// errorTypeFor maps a status to the error type the errors page gives it,
// for errors raised without one.
func errorTypeFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return errAuthentication
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return errTooLarge
	case http.StatusTooManyRequests:
		return errRateLimit
	case 529:
		return errOverloaded
	}
	if status >= 500 {
		return errAPI
	}
	return errInvalidRequest
}

// StreamError writes the in-stream error event of the streaming page:
// event: error, data {"type":"error","error":{"type":"overloaded_error",
// "message":"Overloaded"}} (no request_id inside a stream).
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	typ := e.Type
	if typ == "" {
		typ = errorTypeFor(e.Status)
	}
	_ = s.Event("error", errorBody{Type: "error", Error: errorDetail{Type: typ, Message: e.Message}})
}

// rateLimitMessage is the shape of the real 429 text (organization limit
// wording of the rate-limits page).
const rateLimitMessage = "This request would exceed the rate limit for your organization of 50 requests per minute. " +
	"For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. " +
	"Please reduce the prompt length or the maximum tokens requested, or try again later. " +
	"You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."

// Fault returns the real API's answer for an injected fault kind.
func (d *Dialect) Fault(kind string) *wire.APIError {
	switch kind {
	case "rate_limit":
		return &wire.APIError{Status: http.StatusTooManyRequests, Type: errRateLimit, Message: rateLimitMessage, Headers: rateLimitHeaders(time.Now())}
	case "overloaded":
		return &wire.APIError{Status: 529, Type: errOverloaded, Message: "Overloaded"}
	case "server_error":
		return &wire.APIError{Status: http.StatusInternalServerError, Type: errAPI, Message: "Internal server error"}
	case "too_large":
		return &wire.APIError{Status: http.StatusRequestEntityTooLarge, Type: errTooLarge, Message: "Request exceeds the maximum allowed number of bytes."}
	case "bad_body":
		return &wire.APIError{Status: http.StatusBadRequest, Type: errInvalidRequest, Message: "The request body could not be read."}
	case "bad_request":
		return &wire.APIError{Status: http.StatusBadRequest, Type: errInvalidRequest, Message: "Invalid request."}
	}
	return &wire.APIError{Status: http.StatusInternalServerError, Type: errAPI, Message: "Internal server error"}
}

// rateLimitHeaders are the retry-after and anthropic-ratelimit-* headers of
// a 429 (rate-limits page): the request bucket is empty and refills in a
// second, so retrying clients do not wait long in tests.
func rateLimitHeaders(now time.Time) http.Header {
	h := http.Header{}
	h.Set("Retry-After", "1")
	setRateLimits(h, now, 0)
	return h
}

// setRateLimits writes the anthropic-ratelimit-* headers the API sends on
// every answer (rate-limits page); remaining is what the request bucket
// has left. Headers a fault already set are kept.
func setRateLimits(h http.Header, now time.Time, remaining int) {
	if _, ok := h["Anthropic-Ratelimit-Requests-Limit"]; ok {
		return
	}
	// Assigned rather than Set, from shared values: these headers go out
	// with every answer, and nothing edits a header value in place.
	reset := []string{now.Add(time.Second).UTC().Format(time.RFC3339)} // a second from now
	for _, b := range rateBuckets {
		h[b.limitKey] = b.limit
		h[b.remainingKey] = b.limit
		h[b.resetKey] = reset
	}
	h[rateBuckets[0].remainingKey] = requestsLeft
	if remaining != requestLimit-1 {
		h[rateBuckets[0].remainingKey] = []string{strconv.Itoa(remaining)}
	}
}

type rateBucket struct {
	limitKey, remainingKey, resetKey string
	limit                            []string
}

func bucket(name string, limit int) rateBucket {
	k := "Anthropic-Ratelimit-" + name + "-"
	return rateBucket{k + "Limit", k + "Remaining", k + "Reset", []string{strconv.Itoa(limit)}}
}

// rateBuckets: requests first (the bucket a request drains).
var (
	rateBuckets  = []rateBucket{bucket("Requests", requestLimit), bucket("Tokens", 50000), bucket("Input-Tokens", 40000), bucket("Output-Tokens", 10000)}
	requestsLeft = []string{strconv.Itoa(requestLimit - 1)}
)

// requestLimit is the request bucket's size; an answered request leaves
// one less.
const requestLimit = 50

// Package gemini is the Google Gemini API dialect (generativelanguage
// v1beta, v1, v1alpha, and the same methods on Vertex AI):
// generateContent and streamGenerateContent?alt=sse, the Google
// error envelope, and the function-calling rules the real API enforces
// (https://ai.google.dev/api/generate-content, https://platform.openai.com/docs/guides/function-calling).
package gemini

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

var _ dialect.Dialect = (*Dialect)(nil)

// Dialect implements dialect.Dialect for the Gemini API.
type Dialect struct {
	// EmitCallIDs adds a minted `id` to every functionCall the mock sends.
	// The Gemini API omits it on 2.5 responses (https://ai.google.dev/api/generate-content [R]),
	// so the default is off; a scenario call's own id is always sent.
	EmitCallIDs bool
}

// New returns the dialect with the reference defaults.
func New() *Dialect { return &Dialect{} }

// Name is the dialect name.
func (d *Dialect) Name() conv.Dialect { return conv.Gemini }

// Routes serves the generation methods under every prefix the official
// SDKs use. The method rides in the last path segment after the model
// ("MODEL:generateContent"), which net/http patterns cannot split, so
// Decode parses it.
//   - Gemini API: v1beta (go-genai, python-genai), v1 (the default of
//     @google/genai 3.x) and v1alpha, key in x-goog-api-key or ?key=.
//   - Vertex AI: /{v1,v1beta1}/projects/{p}/locations/{l}/publishers/
//     google/models/…, bearer token; express mode (an API key, no project)
//     drops the projects/… prefix.
//
// Only POST is routed, so GET /v1/models/{id} stays free for the dialects
// that list models there.
func (d *Dialect) Routes() []string {
	var out []string
	for _, v := range []string{"v1beta", "v1", "v1alpha"} {
		out = append(out, "POST /"+v+"/models/{action}")
	}
	for _, v := range []string{"v1", "v1beta1"} {
		out = append(out,
			"POST /"+v+"/projects/{project}/locations/{location}/publishers/google/models/{action}",
			"POST /"+v+"/publishers/google/models/{action}")
	}
	return out
}

// isVertexProject reports a Vertex AI path with a project, which takes
// OAuth bearer tokens.
func isVertexProject(r *http.Request) bool { return r.PathValue("project") != "" }

// Google's canonical status names for the HTTP codes the mock answers.
const (
	statusInvalidArgument   = "INVALID_ARGUMENT"
	statusPermissionDenied  = "PERMISSION_DENIED"
	statusNotFound          = "NOT_FOUND"
	statusResourceExhausted = "RESOURCE_EXHAUSTED"
	statusUnavailable       = "UNAVAILABLE"
	statusInternal          = "INTERNAL"
)

// msgUnregistered is the verbatim answer to a request without a key
// (https://ai.google.dev/gemini-api/docs/troubleshooting [V]).
const msgUnregistered = "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."

// msgUnauthenticated is Google Cloud's answer to a call without
// credentials (Vertex AI).
const msgUnauthenticated = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."

// Key reads the API key from x-goog-api-key (what the SDKs send) or the
// ?key= query parameter (REST and curl). An OAuth bearer token names the
// session too, so clients using access tokens are not locked out.
func (d *Dialect) Key(r *http.Request) (string, *wire.APIError) {
	if k := strings.TrimSpace(r.Header.Get("x-goog-api-key")); k != "" {
		return k, nil
	}
	if k := strings.TrimSpace(r.URL.Query().Get("key")); k != "" {
		return k, nil
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && strings.TrimSpace(tok) != "" {
		return strings.TrimSpace(tok), nil
	}
	if isVertexProject(r) {
		return "", &wire.APIError{Status: http.StatusUnauthorized, Type: "UNAUTHENTICATED", Message: msgUnauthenticated}
	}
	return "", &wire.APIError{Status: http.StatusForbidden, Type: statusPermissionDenied, Message: msgUnregistered}
}

// msgInvalidKey is the API's answer to a key it does not accept.
const msgInvalidKey = "API key not valid. Please pass a valid API key."

// InvalidKey answers with the API's 400 and its ErrorInfo and
// LocalizedMessage details.
func (d *Dialect) InvalidKey(string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, Message: msgInvalidKey, Details: []any{
		map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com",
			"metadata": map[string]any{"service": "generativelanguage.googleapis.com"}},
		map[string]any{"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": msgInvalidKey},
	}}
}

// NotFound is the 404 for a method the service lacks (inferred: Google's
// JSON 404).
func (d *Dialect) NotFound(*http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: statusNotFound, Message: "Method not found."}
}

// errorBody is the Google error envelope.
type errorBody struct {
	Error errorInfo `json:"error"`
}

type errorInfo struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []any  `json:"details,omitempty"`
}

func envelope(e *wire.APIError) errorBody {
	status := e.Type
	if status == "" {
		status = statusFor(e.Status)
	}
	details := e.Details
	if len(details) == 0 {
		details = parseErrorDetails(e.Message)
	}
	return errorBody{Error: errorInfo{Code: e.Status, Message: e.Message, Status: status, Details: details}}
}

// WriteError renders e in the Google envelope
// {"error":{"code","message","status"[,"details"]}}.
func (d *Dialect) WriteError(w http.ResponseWriter, e *wire.APIError) {
	wire.WriteJSON(w, e.Status, envelope(e))
}

// StreamError sends the error as one data-only event: go-genai yields an
// APIError for a data line whose JSON carries "error".
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	_ = s.Event("", envelope(e))
}

// statusFor maps an HTTP code to the canonical Google status name.
func statusFor(code int) string {
	switch code {
	case http.StatusBadRequest:
		return statusInvalidArgument
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return statusPermissionDenied
	case http.StatusNotFound:
		return statusNotFound
	case http.StatusTooManyRequests:
		return statusResourceExhausted
	case http.StatusServiceUnavailable:
		return statusUnavailable
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	}
	if code >= 500 {
		return statusInternal
	}
	return statusInvalidArgument
}

// parseErrorDetails adds the google.rpc.BadRequest detail the real API puts
// on JSON-parse errors ("Invalid JSON payload received. … at 'FIELD'…"),
// naming the offending field, as seen in captured answers.
func parseErrorDetails(msg string) []any {
	if !strings.HasPrefix(msg, invalidJSONPrefix) {
		return nil
	}
	field := ""
	if _, rest, ok := strings.Cut(msg, " at '"); ok {
		if f, _, ok := strings.Cut(rest, "'"); ok {
			field = f
		}
	}
	v := map[string]any{"description": msg}
	if field != "" {
		// A violation of an unknown name is reported on the parent field.
		v = map[string]any{"field": field, "description": msg}
	}
	return []any{map[string]any{
		"@type":           "type.googleapis.com/google.rpc.BadRequest",
		"fieldViolations": []any{v},
	}}
}

// Fault messages, as the Gemini API words them.
const (
	msgRateLimit   = "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
	msgOverloaded  = "The model is overloaded. Please try again later."
	msgInternal    = "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	msgTooLarge    = "Request payload size exceeds the limit: 20971520 bytes."
	msgBadBody     = invalidJSONPrefix + " Unexpected end of string."
	msgBadRequest  = "Request contains an invalid argument."
	retryDelaySecs = "1"
)

// Fault returns the Gemini API's answer for an injected failure.
func (d *Dialect) Fault(kind string) *wire.APIError {
	switch kind {
	case "rate_limit":
		h := http.Header{}
		h.Set("Retry-After", retryDelaySecs)
		return &wire.APIError{
			Status: http.StatusTooManyRequests, Type: statusResourceExhausted, Message: msgRateLimit, Headers: h,
			Details: []any{
				map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
					"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
					"quotaId":     "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
				}}},
				map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{
					"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
				}}},
				map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelaySecs + "s"},
			},
		}
	case "overloaded", "stream_error":
		return &wire.APIError{Status: http.StatusServiceUnavailable, Type: statusUnavailable, Message: msgOverloaded}
	case "server_error":
		return &wire.APIError{Status: http.StatusInternalServerError, Type: statusInternal, Message: msgInternal}
	case "too_large":
		return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, Message: msgTooLarge}
	case "bad_body":
		return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, Message: msgBadBody}
	default: // "bad_request" and anything new: a generic 400 the server rewords
		return &wire.APIError{Status: http.StatusBadRequest, Type: statusInvalidArgument, Message: msgBadRequest}
	}
}

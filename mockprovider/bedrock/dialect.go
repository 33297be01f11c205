// Package bedrock is the Amazon Bedrock Converse dialect of the mock
// provider: POST /model/{modelId}/converse and /converse-stream (the AWS
// event stream), SigV4 or bearer credentials, Bedrock's error shape
// (x-amzn-ErrorType, {"message"}) and the tool-use rules the Converse API
// enforces (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html).
package bedrock

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

var _ dialect.Dialect = (*Dialect)(nil)

// Dialect implements dialect.Dialect for the Bedrock Converse API.
type Dialect struct {
	requestIDs *wire.IDs
}

// New returns the dialect.
func New() *Dialect { return &Dialect{requestIDs: wire.NewIDs("bedrock-request-id")} }

// The Converse operations (schemas.Converse, schemas.ConverseStream).
const (
	Route       = "POST /model/{modelId}/converse"
	StreamRoute = "POST /model/{modelId}/converse-stream"
)

func (d *Dialect) Name() conv.Dialect   { return conv.Bedrock }
func (d *Dialect) Routes() []string     { return []string{Route, StreamRoute} }
func (d *Dialect) ModelAPI() models.API { return models.Bedrock }

// Exception names Bedrock answers with, in x-amzn-ErrorType
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors).
const (
	errValidation         = "ValidationException"
	errAccessDenied       = "AccessDeniedException"
	errThrottling         = "ThrottlingException"
	errServiceUnavailable = "ServiceUnavailableException"
	errInternal           = "InternalServerException"
	errModelNotReady      = "ModelNotReadyException"
	errNotFound           = "ResourceNotFoundException"
	errUnrecognizedClient = "UnrecognizedClientException"
)

// msgNoAuth is bedrock-runtime's 403 to a request without credentials,
// verbatim: https://github.com/anthropics/claude-code/issues/44929
// (403 {"Message":"Authorization header is missing"}).
const msgNoAuth = "Authorization header is missing"

// Key reads the credentials that name the session: the access key id of a
// SigV4 Authorization header (its signature is not checked: the mock has
// no secret to check it with), or a Bedrock API key sent as a bearer token
// (AWS_BEARER_TOKEN_BEDROCK).
func (d *Dialect) Key(r *http.Request) (string, *wire.APIError) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	if rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 "); ok {
		for _, part := range strings.Split(rest, ",") {
			if cred, ok := strings.CutPrefix(strings.TrimSpace(part), "Credential="); ok {
				if akid, _, _ := strings.Cut(cred, "/"); akid != "" {
					return akid, nil
				}
			}
		}
		return "", &wire.APIError{Status: http.StatusForbidden, Type: errUnrecognizedClient, Message: msgInvalidToken}
	}
	if tok, ok := strings.CutPrefix(auth, "Bearer "); ok && strings.TrimSpace(tok) != "" {
		return strings.TrimSpace(tok), nil
	}
	return "", &wire.APIError{Status: http.StatusForbidden, Type: errAccessDenied, Message: msgNoAuth}
}

// msgInvalidToken is AWS's answer to credentials it does not know,
// verbatim: https://github.com/Arize-ai/openinference/issues/2358
// (UnrecognizedClientException from client-bedrock-runtime's Converse).
const msgInvalidToken = "The security token included in the request is invalid."

// InvalidKey is the answer to an access key the service does not know.
func (d *Dialect) InvalidKey(string) *wire.APIError {
	return &wire.APIError{Status: http.StatusForbidden, Type: errUnrecognizedClient, Message: msgInvalidToken}
}

// NotFound is the answer to a path the service lacks [inferred: the
// UnknownOperationException of AWS's REST-JSON front end].
func (d *Dialect) NotFound(*http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: "UnknownOperationException", Message: "Unknown operation"}
}

// msgModelInvalid is the answer to a model id Bedrock does not serve,
// verbatim: https://github.com/iOfficeAI/AionCore/pull/377 (400
// {"message":"The provided model identifier is invalid."}).
const msgModelInvalid = "The provided model identifier is invalid."

// ModelNotFound answers an unknown model id with Bedrock's 400.
func (d *Dialect) ModelNotFound(_ *http.Request, _ string) *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: msgModelInvalid, RuleID: RuleModelExists}
}

// errorBody is Bedrock's error body.
type errorBody struct {
	Message string `json:"message"`
}

// WriteError renders e as Bedrock does: the exception's name in
// x-amzn-ErrorType, {"message": …} in the body, a request id header.
func (d *Dialect) WriteError(w http.ResponseWriter, e *wire.APIError) {
	typ := e.Type
	if typ == "" {
		typ = exceptionFor(e.Status)
	}
	h := w.Header()
	h.Set("X-Amzn-Errortype", typ)
	h.Set("X-Amzn-Requestid", requestID(d.requestIDs))
	wire.WriteJSON(w, e.Status, errorBody{Message: e.Message})
}

// requestID is a UUID-shaped request id.
func requestID(ids *wire.IDs) string {
	s := ids.Next("", 32)
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}

// exceptionFor names the exception of a status raised without one.
func exceptionFor(status int) string {
	switch status {
	case http.StatusForbidden, http.StatusUnauthorized:
		return errAccessDenied
	case http.StatusNotFound:
		return errNotFound
	case http.StatusTooManyRequests:
		return errThrottling
	case http.StatusServiceUnavailable:
		return errServiceUnavailable
	}
	if status >= 500 {
		return errInternal
	}
	return errValidation
}

// StreamError sends the error as an exception message of the event
// stream: :message-type exception, :exception-type the member of
// ConverseStreamOutput (throttlingException, serviceUnavailableException…).
func (d *Dialect) StreamError(s *wire.SSE, e *wire.APIError) {
	typ := e.Type
	if typ == "" {
		typ = exceptionFor(e.Status)
	}
	payload, _ := json.Marshal(errorBody{Message: e.Message})
	msg := eventstream.Message{Payload: payload}
	msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
	msg.Headers.Set(":exception-type", eventstream.StringValue(strings.ToLower(typ[:1])+typ[1:]))
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	_ = writeFrame(s, typ, msg)
}

// writeFrame encodes one event-stream message to the stream's writer and
// hands its payload to the transcript.
func writeFrame(s *wire.SSE, name string, msg eventstream.Message) error {
	var buf bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&buf, msg); err != nil {
		return err
	}
	w := s.Writer()
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if s.Transcript != nil {
		s.Transcript(name, msg.Payload)
	}
	return nil
}

// Fault messages, as Bedrock words them [inferred: the exception names are
// the API reference's; no capture quoted here shows each text].
const (
	msgThrottled     = "Too many requests, please wait before trying again."
	msgUnavailable   = "Bedrock is unable to process your request."
	msgInternal      = "The system encountered an unexpected error during processing. Try your request again."
	msgModelNotReady = "Model is not ready for inference. Wait and try your request again."
	msgTooLarge      = "Input is too long for requested model."
	msgBadRequest    = "Malformed input request, please reformat your input and try again."
)

// Fault returns Bedrock's answer for an injected failure.
func (d *Dialect) Fault(kind string) *wire.APIError {
	switch kind {
	case "rate_limit":
		return &wire.APIError{Status: http.StatusTooManyRequests, Type: errThrottling, Message: msgThrottled}
	case "overloaded", "stream_error":
		return &wire.APIError{Status: http.StatusServiceUnavailable, Type: errServiceUnavailable, Message: msgUnavailable}
	case "model_not_ready":
		return &wire.APIError{Status: http.StatusTooManyRequests, Type: errModelNotReady, Message: msgModelNotReady}
	case "server_error":
		return &wire.APIError{Status: http.StatusInternalServerError, Type: errInternal, Message: msgInternal}
	case "too_large":
		return &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: msgTooLarge}
	}
	return &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: msgBadRequest}
}

// StrayScore claims a stray request signed for AWS or under /model/.
func (d *Dialect) StrayScore(r *http.Request) int {
	if strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") || strings.HasPrefix(r.URL.Path, "/model/") {
		return 2
	}
	return 0
}

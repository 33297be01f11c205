package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/record"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// InvokeModel with an Anthropic body (anthropic_version
// "bedrock-2023-05-31", the model in the path, no model member) is the
// Anthropic Messages API behind Bedrock's front end
// (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html).
// The mock serves it as it serves Anthropic on Vertex AI, whose requests
// have the same shape: Bedrock's front end here (SigV4 names the session,
// the Bedrock model id is looked up, errors in Bedrock's shape), the
// request handed to the Anthropic dialect's Vertex route on the same
// server, so its rules, model and journal apply unchanged. The journal
// lists such an exchange under anthropic, on the Vertex path it went
// through (invokeProject names it).
const (
	InvokeRoute       = "POST /model/{modelId}/invoke"
	InvokeStreamRoute = "POST /model/{modelId}/invoke-with-response-stream"
)

// invokeProject is the Vertex project of the path an InvokeModel request
// is served on.
const invokeProject = "bedrock-invoke"

// invokeHost is what the InvokeModel routes need of the server: its own
// routes (the Anthropic dialect's) and its model catalog.
type invokeHost interface {
	http.Handler
	Models() *models.Catalog
	Dialect(conv.Dialect) (dialect.Dialect, bool)
}

// ExtraRoutes adds the InvokeModel routes when the server can hand a
// request on to its Anthropic dialect.
func (d *Dialect) ExtraRoutes(h dialect.Host) map[string]http.HandlerFunc {
	ih, ok := h.(invokeHost)
	if !ok {
		return nil
	}
	return map[string]http.HandlerFunc{
		InvokeRoute:       func(w http.ResponseWriter, r *http.Request) { d.invoke(ih, w, r, false) },
		InvokeStreamRoute: func(w http.ResponseWriter, r *http.Request) { d.invoke(ih, w, r, true) },
	}
}

// versionSuffix is the version a Bedrock model id ends with (-v1:0).
var versionSuffix = regexp.MustCompile(`-v\d+:\d+$`)

// anthropicModelID is the Anthropic API's id of a Claude model on Bedrock:
// anthropic.claude-sonnet-4-5-20250929-v1:0 is claude-sonnet-4-5-20250929.
func anthropicModelID(bedrockID string) (string, bool) {
	id, ok := strings.CutPrefix(bedrockID, "anthropic.")
	if !ok {
		return "", false
	}
	return versionSuffix.ReplaceAllString(id, ""), true
}

func (d *Dialect) invoke(h invokeHost, w http.ResponseWriter, r *http.Request, stream bool) {
	if _, ok := h.Dialect(conv.Anthropic); !ok {
		d.WriteError(w, d.NotFound(r))
		return
	}
	key, aerr := d.Key(r)
	if aerr != nil {
		d.WriteError(w, aerr)
		return
	}
	modelID := r.PathValue("modelId")
	m, ok := h.Models().Lookup(models.Bedrock, modelID)
	if !ok {
		d.WriteError(w, &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: msgModelInvalid, RuleID: RuleModelExists})
		return
	}
	id := modelID
	if !m.IsWildcard() {
		id = m.ID
	} else if _, rest, found := strings.Cut(id, ".anthropic."); found {
		id = "anthropic." + rest
	}
	claude, ok := anthropicModelID(id)
	if !ok {
		// The body is Anthropic's, the model is not Claude: the model's
		// own request schema refuses it [inferred wording: msgBadRequest].
		d.WriteError(w, &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: msgBadRequest})
		return
	}
	method := "rawPredict"
	if stream {
		method = "streamRawPredict"
	}
	// Record and replay modes send upstream, record and match the
	// client's own request to Bedrock, not the route it is served on.
	ctx := record.WithOriginal(r.Context(), record.Original{Dialect: conv.Bedrock, Method: r.Method, URI: r.URL.RequestURI(), Header: r.Header.Clone()})
	inner := r.Clone(ctx)
	inner.URL.Path = "/v1/projects/" + invokeProject + "/locations/us-east-1/publishers/anthropic/models/" + claude + ":" + method
	inner.URL.RawPath = ""
	inner.RequestURI = ""
	inner.Header.Set("Authorization", "Bearer "+key)
	iw := &invokeWriter{w: w, d: d, header: http.Header{}}
	h.ServeHTTP(iw, inner)
	iw.finish()
}

// invokeWriter turns the Anthropic dialect's answer into InvokeModel's: a
// JSON body as it is, an SSE stream as AWS event-stream chunk events
// (each event's JSON, base64, in {"bytes"}), an error in Bedrock's shape.
// An answer in Bedrock's shape already (record mode's upstream, replay
// mode's recording) passes as it is.
type invokeWriter struct {
	w           http.ResponseWriter
	d           *Dialect
	header      http.Header
	status      int
	stream      bool
	passthrough bool
	// pending holds SSE bytes up to the end of the event they begin;
	// errBody the body of an error answer.
	pending, errBody bytes.Buffer
	// err is the write that failed: the client is gone.
	err error
}

// maxErrorBody bounds the error answer kept for rewording (the dialect's
// error envelopes are small).
const maxErrorBody = 64 << 10

func (iw *invokeWriter) Header() http.Header { return iw.header }

func (iw *invokeWriter) WriteHeader(code int) {
	if iw.status != 0 {
		return
	}
	iw.status = code
	h := iw.w.Header()
	if iw.header.Get("X-Amzn-Errortype") != "" || iw.header.Get("X-Amzn-Requestid") != "" || strings.HasPrefix(iw.header.Get("Content-Type"), eventStreamType) {
		iw.passthrough = true
		for k, vs := range iw.header {
			h[k] = vs
		}
		iw.w.WriteHeader(code)
		return
	}
	if code != http.StatusOK {
		return // reworded in finish
	}
	h.Set("X-Amzn-Requestid", requestID(iw.d.requestIDs))
	if strings.HasPrefix(iw.header.Get("Content-Type"), "text/event-stream") {
		iw.stream = true
		h.Set("Content-Type", eventStreamType)
		h.Set("X-Amzn-Bedrock-Content-Type", "application/json")
	} else {
		h.Set("Content-Type", "application/json")
		if cl := iw.header.Get("Content-Length"); cl != "" {
			h.Set("Content-Length", cl)
		}
	}
	iw.w.WriteHeader(code)
}

func (iw *invokeWriter) Write(b []byte) (int, error) {
	if iw.status == 0 {
		iw.WriteHeader(http.StatusOK)
	}
	switch {
	case iw.passthrough:
		return iw.w.Write(b)
	case iw.status != http.StatusOK:
		if iw.errBody.Len() < maxErrorBody {
			iw.errBody.Write(b[:min(len(b), maxErrorBody-iw.errBody.Len())])
		}
		return len(b), nil
	case !iw.stream:
		return iw.w.Write(b)
	}
	if iw.err != nil {
		return 0, iw.err
	}
	iw.pending.Write(b)
	for {
		buf := iw.pending.Bytes()
		end := bytes.Index(buf, []byte("\n\n"))
		if end < 0 {
			return len(b), nil
		}
		if err := iw.event(buf[:end]); err != nil {
			iw.err = err
			return 0, err
		}
		iw.pending.Next(end + 2)
	}
}

// event writes one SSE event (its lines) as an event-stream message: a
// chunk, or, for the dialect's error event, the exception InvokeModel's
// stream carries.
func (iw *invokeWriter) event(raw []byte) error {
	name, data := "", []byte(nil)
	for _, line := range bytes.Split(raw, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("event: ")):
			name = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("data: ")):
			data = append(data, line[len("data: "):]...)
		}
	}
	if data == nil {
		return nil
	}
	var msg eventstream.Message
	if name == "error" {
		var e struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		typ, text := streamException(e.Error.Type, e.Error.Message)
		payload, _ := json.Marshal(errorBody{Message: text})
		msg = eventstream.Message{Payload: payload}
		msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
		msg.Headers.Set(":exception-type", eventstream.StringValue(typ))
	} else {
		payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
		msg = eventstream.Message{Payload: payload}
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
	}
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	var buf bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&buf, msg); err != nil {
		return err
	}
	_, err := iw.w.Write(buf.Bytes())
	return err
}

// streamException names the member of InvokeModelWithResponseStream's
// ResponseStream an Anthropic error event becomes, with its message: the
// Anthropic API's own for a model error, Bedrock's for the service's
// [inferred: the members are the API reference's, the pairing is the
// mock's].
func streamException(anthropicType, message string) (member, text string) {
	switch anthropicType {
	case "rate_limit_error":
		return "throttlingException", msgThrottled
	case "overloaded_error":
		return "serviceUnavailableException", msgUnavailable
	case "api_error":
		return "internalServerException", msgInternal
	}
	return "modelStreamErrorException", message
}

func (iw *invokeWriter) Flush() {
	if f, ok := iw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines,
// the disconnect fault's hijack).
func (iw *invokeWriter) Unwrap() http.ResponseWriter { return iw.w }

// finish rewords an error answer: Bedrock relays the Anthropic API's
// message under its own exception (a refused body is a
// ValidationException whose message is Anthropic's:
// https://github.com/konveyor/kai/issues/645, InvokeModel, "messages.0:
// all messages must have non-empty content except for the optional final
// assistant message").
func (iw *invokeWriter) finish() {
	if iw.status == 0 || iw.status == http.StatusOK || iw.passthrough {
		return
	}
	var e struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	_ = json.Unmarshal(iw.errBody.Bytes(), &e)
	var out *wire.APIError
	switch e.Error.Type {
	case "invalid_request_error", "request_too_large":
		out = &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: e.Error.Message}
	case "not_found_error":
		// The Claude model the Bedrock id names is one the Anthropic
		// catalog lacks.
		out = &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, Message: msgModelInvalid}
	case "rate_limit_error":
		out = iw.d.Fault("rate_limit")
	case "overloaded_error":
		out = iw.d.Fault("overloaded")
	default:
		out = iw.d.Fault("server_error")
	}
	if strings.HasPrefix(e.Error.Message, "toolwire ") {
		// The mock's own answer (record mode's upstream failure, replay
		// mode's missing recording): its status and words are the point.
		out.Status, out.Message = iw.status, e.Error.Message
	}
	if out.Message == "" {
		out.Message = msgBadRequest
	}
	iw.d.WriteError(iw.w, out)
}

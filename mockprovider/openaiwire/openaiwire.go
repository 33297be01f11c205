// Package openaiwire holds what OpenAI's two APIs (Chat Completions and
// Responses) share: bearer auth, the error envelope, fault answers, and the
// checks on function declarations (name pattern, schema validity, strict
// mode).
package openaiwire

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"

	"github.com/toolwire/toolwire/mockprovider/internal/localschema"
)

// InvalidRequest is OpenAI's error type for a bad request.
const InvalidRequest = "invalid_request_error"

// MissingKeyMessage is the verbatim 401 body message (https://platform.openai.com/docs/guides/error-codes).
const MissingKeyMessage = "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."

// InvalidJSONMessage is OpenAI's answer to a body that is not JSON.
const InvalidJSONMessage = "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)"

// AzurePrefix starts the paths of Azure OpenAI (/openai/deployments/{d}/…
// and /openai/v1/…), where the key may come in an api-key header instead
// of bearer auth (openai-go's azure.WithAPIKey sends Api-Key).
const AzurePrefix = "/openai/"

// Key reads the bearer token that names the session (or, on an Azure
// path, the api-key header).
func Key(r *http.Request) (string, *wire.APIError) {
	if strings.HasPrefix(r.URL.Path, AzurePrefix) {
		if key := strings.TrimSpace(r.Header.Get("Api-Key")); key != "" {
			return key, nil
		}
	}
	auth := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		key, ok = strings.CutPrefix(auth, "bearer ")
	}
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return "", &wire.APIError{Status: http.StatusUnauthorized, Type: InvalidRequest, Message: MissingKeyMessage}
	}
	return key, nil
}

// InvalidKey is the API's answer to a key it does not accept.
func InvalidKey(key string) *wire.APIError {
	return &wire.APIError{Status: http.StatusUnauthorized, Type: InvalidRequest, Code: "invalid_api_key",
		Message: "Incorrect API key provided: " + maskKey(key) + ". You can find your API key at https://platform.openai.com/account/api-keys."}
}

// maskKey shows a key the way OpenAI's invalid-key message does (a prefix,
// stars, the last four characters), with the stars capped so an oversized
// key is not echoed at length.
func maskKey(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:3] + strings.Repeat("*", min(len(key)-7, 32)) + key[len(key)-4:]
}

// NotFound is the API's 404 for a path it does not serve. Under /v1 it
// names the request (2023-25 captures, e.g.
// github.com/swordintent/chatgpt-web-api/issues/11); outside it the newer
// unknown_url text (github.com/InternLM/MindSearch/issues/150).
func NotFound(r *http.Request) *wire.APIError {
	e := &wire.APIError{Status: http.StatusNotFound, Type: InvalidRequest}
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		e.Message = "Invalid URL (" + r.Method + " " + r.URL.Path + ")"
	} else {
		e.Message = "Unknown request URL: " + r.Method + " " + r.URL.Path + ". Please check the URL for typos, or see the docs at https://platform.openai.com/docs/api-reference/."
		e.Code = "unknown_url"
	}
	return e
}

// WriteError renders {"error":{"message","type","param","code"}}; param and
// code are always present, null when unknown, as the real API sends them.
// The answer carries the headers of every OpenAI answer (ResponseHeaders).
func WriteError(w http.ResponseWriter, e *wire.APIError) {
	ResponseHeaders(w.Header(), time.Now(), 0)
	wire.WriteJSON(w, e.Status, struct {
		Error ErrorObject `json:"error"`
	}{NewErrorObject(e)})
}

// ErrorObject is the error member of OpenAI's envelope, fields in the
// order the API sends them (also the error of a WebSocket error event).
type ErrorObject struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    any    `json:"code"`
}

// NewErrorObject is e as the API words it.
func NewErrorObject(e *wire.APIError) ErrorObject {
	return ErrorObject{e.Message, e.Type, e.Param, e.Code}
}

// APIVersion is the openai-version header the API sends.
const APIVersion = "2020-10-01"

// Rate limits the headers report: a generous paid tier, so clients that
// pace themselves on x-ratelimit-remaining-* never wait.
const (
	RateLimitRequests = 10000
	RateLimitTokens   = 30000000
)

// ResponseHeaders sets, where the answer has not set them already, the
// headers OpenAI sends on every answer and the SDKs read: x-request-id
// (the Python and Node SDKs' _request_id; Go clients read it from the
// http.Response), openai-processing-ms since started, openai-version and
// the x-ratelimit-* family, the request counted and its tokens spent. A
// rate-limit fault sets its own exhausted values first; they are kept.
// Chat Completions and Responses both call it before writing an answer.
func ResponseHeaders(h http.Header, started time.Time, tokens int) {
	// Assigned rather than Set, constant values shared: these headers go
	// out with every answer, and nothing edits a header value in place.
	// The three that vary share one backing array.
	vary := make([]string, 3)
	set := func(k string, v []string) {
		if _, ok := h[k]; !ok {
			h[k] = v
		}
	}
	vary[0] = NewRequestID()
	vary[1] = strconv.FormatInt(max(time.Since(started).Milliseconds(), 1), 10)
	set("X-Request-Id", vary[0:1:1])
	set("Openai-Processing-Ms", vary[1:2:2])
	set("Openai-Version", apiVersionValue)
	set("X-Ratelimit-Limit-Requests", limitRequestsValue)
	set("X-Ratelimit-Limit-Tokens", limitTokensValue)
	set("X-Ratelimit-Remaining-Requests", remainingRequestsValue)
	if tokens > 0 {
		vary[2] = strconv.Itoa(RateLimitTokens - tokens)
		set("X-Ratelimit-Remaining-Tokens", vary[2:3:3])
	} else {
		set("X-Ratelimit-Remaining-Tokens", limitTokensValue)
	}
	set("X-Ratelimit-Reset-Requests", resetRequestsValue)
	set("X-Ratelimit-Reset-Tokens", resetTokensValue)
}

var (
	apiVersionValue        = []string{APIVersion}
	limitRequestsValue     = []string{strconv.Itoa(RateLimitRequests)}
	limitTokensValue       = []string{strconv.Itoa(RateLimitTokens)}
	remainingRequestsValue = []string{strconv.Itoa(RateLimitRequests - 1)}
	resetRequestsValue     = []string{"6ms"}
	resetTokensValue       = []string{"0s"}
)

// NewRequestID is a request id in the API's form: req_ and 32 hex digits.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var id [4 + 32]byte
	copy(id[:], "req_")
	hex.Encode(id[4:], b[:])
	return string(id[:])
}

// InvalidJSON is the answer to an unparseable body.
func InvalidJSON() *wire.APIError {
	return &wire.APIError{Status: http.StatusBadRequest, Type: InvalidRequest, Message: InvalidJSONMessage}
}

// Fault returns OpenAI's answer for an injected fault kind.
func Fault(kind string) *wire.APIError {
	switch kind {
	case "rate_limit":
		h := http.Header{}
		h.Set("Retry-After", "1")
		h.Set("retry-after-ms", "1000")
		h.Set("x-ratelimit-limit-requests", "500")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", "1s")
		h.Set("x-ratelimit-limit-tokens", "30000")
		h.Set("x-ratelimit-remaining-tokens", "0")
		h.Set("x-ratelimit-reset-tokens", "1s")
		return &wire.APIError{Status: http.StatusTooManyRequests, Type: "requests", Code: "rate_limit_exceeded", Headers: h,
			Message: "Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 1s. Visit https://platform.openai.com/account/rate-limits to learn more."}
	case "overloaded":
		return &wire.APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Message: "The engine is currently overloaded, please try again later"}
	case "server_error":
		return &wire.APIError{Status: http.StatusInternalServerError, Type: "server_error", Message: "The server had an error while processing your request. Sorry about that!"}
	case "too_large":
		return &wire.APIError{Status: http.StatusRequestEntityTooLarge, Type: InvalidRequest, Message: "Request too large: the request body exceeds the maximum size this endpoint accepts."}
	case "bad_body":
		return InvalidJSON()
	}
	return &wire.APIError{Status: http.StatusBadRequest, Type: InvalidRequest, Message: "Invalid request."}
}

// ToolDecl is one function declaration as the checks see it.
type ToolDecl struct {
	Name       string
	Parameters json.RawMessage // nil when absent
	Strict     bool
	// Path is the declaration's JSON path for param/path: "tools[0].function"
	// (Chat) or "tools[0]" (Responses).
	Path  string
	Order int
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// CheckNames: a function name must match ^[a-zA-Z0-9_-]+$ (and be at most
// 64 characters). Message verbatim from pasted 400s (e.g. ailoy PR #109).
func CheckNames(decls []ToolDecl) []rules.Violation {
	var out []rules.Violation
	for _, d := range decls {
		param := d.Path + ".name"
		switch {
		case !namePattern.MatchString(d.Name):
			out = append(out, rules.Violation{Path: param, Order: d.Order, Status: 400, ErrType: InvalidRequest, Param: param, Code: "invalid_value",
				Message: fmt.Sprintf("Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param)})
		case len(d.Name) > 64:
			out = append(out, rules.Violation{Path: param, Order: d.Order, Status: 400, ErrType: InvalidRequest, Param: param, Code: "string_above_max_length",
				Message: fmt.Sprintf("Invalid '%s': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", param, len(d.Name))})
		}
	}
	return out
}

// maxMetaCheckedBytes bounds the tool schemas of one request that are
// checked against the JSON Schema meta-schema, counted in request order
// (cached or not, so a request's verdict does not depend on earlier
// ones). The library costs a few microseconds a byte of new schemas
// (512 KiB of 30-property tools: about 1.3 s on a shared CI core), so a
// 32 MiB body of them would take over a minute. Past it only the mock's
// own checks run.
const maxMetaCheckedBytes = 512 << 10

// CheckSchemas: parameters must be a valid JSON Schema of an object.
func CheckSchemas(decls []ToolDecl) []rules.Violation {
	var out []rules.Violation
	seen := 0
	for _, d := range decls {
		if len(d.Parameters) == 0 {
			continue
		}
		seen += len(d.Parameters)
		check := schemaProblem
		if seen > maxMetaCheckedBytes {
			check = ownSchemaProblem
		}
		if msg := check(d.Parameters); msg != "" {
			param := d.Path + ".parameters"
			out = append(out, rules.Violation{Path: param, Order: d.Order, Status: 400, ErrType: InvalidRequest, Param: param, Code: "invalid_function_parameters",
				Message: fmt.Sprintf("Invalid schema for function '%s': %s", d.Name, msg)})
		}
	}
	return out
}

// schemaProblem is what compiling a tool schema finds wrong ("" for
// nothing), remembered by the schema's bytes (schemaVerdicts).
func schemaProblem(raw json.RawMessage) string { return schemaVerdicts.get(raw, compileProblem) }

func compileProblem(raw json.RawMessage) string { return schemaCheck(raw, true) }

// ownSchemaProblem is compileProblem without the meta-schema: the mock's
// own checks, linear in the schema.
func ownSchemaProblem(raw json.RawMessage) string { return schemaCheck(raw, false) }

func schemaCheck(raw json.RawMessage, meta bool) string {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return "schema must be a JSON object."
	}
	if _, ok := doc.(map[string]any); !ok {
		return fmt.Sprintf("%s is not of type 'object'.", pyRepr(doc))
	}
	// A schema too large for the library to check quickly is not
	// refused: no real API is known to refuse it (see the README's
	// Security section); the checks below still run, in linear time.
	if meta {
		// Nor is a reference outside the schema: the mock never follows
		// one, and no public capture shows the API refusing one.
		if _, err := localschema.Compile(doc, ""); err != nil && !errors.Is(err, localschema.ErrTooLarge) && !errors.Is(err, localschema.ErrNotLocal) {
			return "schema is not valid JSON Schema: " + strings.ReplaceAll(err.Error(), "\n", " ")
		}
	}
	m := doc.(map[string]any)
	if t, ok := m["type"]; ok && t != "object" {
		return fmt.Sprintf("schema must be a JSON Schema of 'type: \"object\"', got 'type: %q'.", fmt.Sprint(t))
	}
	return arrayItemsProblem(m, nil)
}

// arrayItemsProblem reproduces "In context=('properties', 'paths'), array
// schema missing items." (sigoden/aichat PR #1049).
func arrayItemsProblem(s map[string]any, ctx []string) string {
	if s["type"] == "array" {
		if _, ok := s["items"]; !ok {
			return fmt.Sprintf("In context=%s, array schema missing items.", pyTuple(ctx))
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			if sub, ok := props[k].(map[string]any); ok {
				if msg := arrayItemsProblem(sub, append(ctx, "properties", k)); msg != "" {
					return msg
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return arrayItemsProblem(items, append(ctx, "items"))
	}
	return ""
}

// CheckStrict: a strict function's object schemas need
// additionalProperties: false and every property required. Messages from
// pasted 400s (kevinwatt/mysql-mcp #5: code invalid_function_parameters,
// param tools[N].parameters).
func CheckStrict(decls []ToolDecl) []rules.Violation {
	return checkStrictFunctions(decls, func(raw json.RawMessage) string { return strictVerdict(raw) })
}

// checkStrictFunctions answers, for each strict function, what problem
// finds in its parameters ("" for nothing), as the API words it.
func checkStrictFunctions(decls []ToolDecl, problem func(json.RawMessage) string) []rules.Violation {
	var out []rules.Violation
	for _, d := range decls {
		if !d.Strict || len(d.Parameters) == 0 {
			continue
		}
		if msg := problem(d.Parameters); msg != "" {
			param := d.Path + ".parameters"
			out = append(out, rules.Violation{Path: param, Order: d.Order, Status: 400, ErrType: InvalidRequest, Param: param, Code: "invalid_function_parameters",
				Message: fmt.Sprintf("Invalid schema for function '%s': %s", d.Name, msg)})
		}
	}
	return out
}

// pyTuple renders a context path the way the API does: () or ('a', 'b').
func pyTuple(ctx []string) string {
	if len(ctx) == 0 {
		return "()"
	}
	q := make([]string, len(ctx))
	for i, c := range ctx {
		q[i] = "'" + c + "'"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SchemaProblem is what the API finds wrong with a JSON Schema it takes
// as an object's description — a function's parameters or a response
// format's schema — ("" for nothing); the caller words the context
// ("Invalid schema for function 'f': …", "… for response_format 'r': …").
func SchemaProblem(raw json.RawMessage) string { return schemaProblem(raw) }

// StrictProblem is what strict mode finds wrong with such a schema: an
// object without additionalProperties: false or with a property missing
// from required ("" for nothing).
func StrictProblem(raw json.RawMessage) string { return strictVerdict(raw) }

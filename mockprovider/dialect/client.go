package dialect

import "net/http"

// Client is how a dialect's official SDK reaches it: the tools that post to
// the mock themselves (toolwire check, ruletest, the load benchmark, the
// suite's format mode) ask the dialect instead of knowing every API.
type Client interface {
	// Endpoint is the path the SDK posts a generation request to. Only
	// Gemini names the model and the method in the path
	// (MODEL:generateContent, MODEL:streamGenerateContent?alt=sse); the
	// others carry both in the body and ignore model and stream.
	Endpoint(model string, stream bool) string
	// SetAuth sets the headers the SDK sends to authenticate key (and any
	// header the API demands of every request, such as anthropic-version).
	SetAuth(h http.Header, key string)
	// ErrorMessage checks that body is the dialect's error envelope for
	// status and returns the message in it.
	ErrorMessage(status int, body []byte) (string, error)
}

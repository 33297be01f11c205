package openairesp

import "github.com/toolwire/toolwire/mockprovider/dialect"

// The endpoints beside create that take a request body and go through the
// same validation: counting a request's input tokens, and compacting a
// conversation.
const (
	InputTokensPath = Path + "/input_tokens"
	CompactPath     = Path + "/compact"
)

// endpointOf is the path of the request in flight (Path offline).
func endpointOf(x *dialect.Exchange) string {
	if x == nil || x.R == nil {
		return Path
	}
	switch p := x.R.URL.Path; p {
	case InputTokensPath, CompactPath:
		return p
	}
	return Path
}

// endpointBody is a fresh value of the wire type an endpoint's body is
// judged by, nil for create (ResponseNewParams, decoded directly).
func endpointBody(endpoint string) any {
	switch endpoint {
	case InputTokensPath:
		return &InputTokenCountParams{}
	case CompactPath:
		return &ResponseCompactParams{}
	}
	return nil
}

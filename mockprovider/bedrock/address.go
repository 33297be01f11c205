package bedrock

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
)

// DefaultModel addresses a request that names no model: the model rides
// in the path.
const DefaultModel = "us.anthropic.claude-haiku-4-5-20251001-v1:0"

// Endpoint is where aws-sdk-go-v2 posts: the model id path-escaped
// (its ':' as %3A), /converse or /converse-stream.
func (d *Dialect) Endpoint(model string, stream bool) string {
	if model == "" {
		model = DefaultModel
	}
	p := "/model/" + url.PathEscape(model) + "/converse"
	if stream {
		p += "-stream"
	}
	return p
}

// SetAuth sets a SigV4 Authorization header whose access key id is key
// (the mock reads the id and does not check the signature).
func (d *Dialect) SetAuth(h http.Header, key string) {
	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+key+"/20250101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=0")
	h.Set("X-Amz-Date", "20250101T000000Z")
}

// ErrorMessage checks that body is {"message": …} and returns the message.
func (d *Dialect) ErrorMessage(status int, body []byte) (string, error) {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil {
		return "", errors.New("error body is not JSON")
	}
	raw, ok := env["message"]
	if !ok {
		raw, ok = env["Message"]
	}
	if !ok {
		return "", errors.New(`Bedrock error body must be {"message": …}`)
	}
	var msg string
	_ = json.Unmarshal(raw, &msg)
	return msg, nil
}

package record

import (
	"context"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Original is the request a client sent when the mock serves it on
// another of its routes: Bedrock's InvokeModel runs through the Anthropic
// dialect's Vertex route, but what goes upstream, and what a recording
// holds and replay matches, is the client's own request to Bedrock.
type Original struct {
	Dialect conv.Dialect
	Method  string
	URI     string // the request URI as the client sent it
	Header  http.Header
}

type originalKey struct{}

// WithOriginal marks a request's context with the client's own request.
func WithOriginal(ctx context.Context, o Original) context.Context {
	return context.WithValue(ctx, originalKey{}, o)
}

// original is the client's own request: the one marked in r's context,
// else r itself.
func original(d conv.Dialect, r *http.Request) Original {
	if o, ok := r.Context().Value(originalKey{}).(Original); ok {
		return o
	}
	return Original{Dialect: d, Method: r.Method, URI: r.URL.RequestURI(), Header: r.Header}
}

// FindRequest is Find for a request as the server got it: one marked with
// the client's own request (WithOriginal) is matched as that request.
func (rp *Replayer) FindRequest(d conv.Dialect, r *http.Request, body string) (*Exchange, string) {
	o := original(d, r)
	return rp.Find(o.Dialect, o.Method, o.URI, body)
}

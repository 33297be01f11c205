package refdriver

import (
	"context"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/toolwire/toolwire/mockprovider/bedrock"
	core "github.com/toolwire/toolwire/suite/refdriver"
)

// newClient is the SDK client of one run: the access key id names the
// session (the mock does not check the signature), the mistake's body
// rewrite wraps the transport.
func newClient(env core.Env, m *mistake) (*bedrockruntime.Client, error) {
	endpoint, key, err := env.Endpoint(bedrock.EnvEndpoint, bedrock.EnvKeyID)
	if err != nil {
		return nil, err
	}
	return bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		HTTPClient:   HTTPClient(core.HTTPClient(env, m.Body)),
		// The access key id names the session; the mock does not check
		// the signature.
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: "toolwire"}, nil
		}),
	}), nil
}

// plainBodyClient hands net/http a request body without WriteTo.
//
// smithy-go closes the request body as soon as Client.Do returns
// (transport/http/client.go, ClientHandler.Handle), which is when the
// answer's headers arrive; net/http's transport may still be finishing the
// request then: after the Content-Length bytes it copies what is left of
// the body to io.Discard, and that copy goes through the body's WriteTo.
// smithy-go's closed body answers WriteTo with io.EOF
// (transport/http/internal/io/safe.go, safeWriteToReadCloser: so at
// v1.28.9 and on its main branch of 2026-08), which io.Copy passes on as
// an error, so the transport takes the request write as failed and closes
// the connection under the answer being read: "decode event: read tcp …:
// use of closed network connection" in a ConverseStream, a few streams in
// a thousand when the server answers as soon as it has the body (the mock
// on loopback, under load). The same writeLoop close is in
// aws/aws-sdk-go-v2#2737.
// Through Read, the closed body gives (0, io.EOF), the end of a body that
// io.Copy takes as success.
type plainBodyClient struct{ c *http.Client }

// HTTPClient is c as bedrockruntime.Options.HTTPClient, without the race
// plainBodyClient describes: for any client of the SDK against the mock.
func HTTPClient(c *http.Client) bedrockruntime.HTTPClient { return plainBodyClient{c} }

func (p plainBodyClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = readOnlyBody{r.Body}
	}
	return p.c.Do(r)
}

// readOnlyBody hides every method of a body but Read and Close.
type readOnlyBody struct{ io.ReadCloser }

package record

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// AWSSigning is what the recorder signs Bedrock requests with when the
// client signed its own with SigV4: that signature covers the mock's host,
// not the upstream's, and the mock never sees the client's secret, so the
// request is signed again with the serve process's own credentials.
type AWSSigning struct {
	Credentials aws.Credentials
	// Region is used when the upstream's host names none
	// (bedrock-runtime.<region>.amazonaws.com does).
	Region string
}

// AWSSigningFromEnv reads the variables the AWS SDKs read for static
// credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// and AWS_REGION (else AWS_DEFAULT_REGION).
func AWSSigningFromEnv(getenv func(string) string) AWSSigning {
	if getenv == nil {
		getenv = os.Getenv
	}
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	return AWSSigning{
		Credentials: aws.Credentials{
			AccessKeyID:     getenv("AWS_ACCESS_KEY_ID"),
			SecretAccessKey: getenv("AWS_SECRET_ACCESS_KEY"),
			SessionToken:    getenv("AWS_SESSION_TOKEN"),
			Source:          "toolwire serve environment",
		},
		Region: region,
	}
}

// ErrNoAWSCredentials is the answer to a SigV4-signed Bedrock request when
// the serve process has no credentials to sign it again with.
var ErrNoAWSCredentials = errors.New("a SigV4-signed Bedrock request is signed again before it is forwarded (its signature covers this mock's host): " +
	"set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials) in toolwire serve's environment, " +
	"or send a Bedrock API key instead (Authorization: Bearer, AWS_BEARER_TOKEN_BEDROCK in the SDKs), which is forwarded as it is")

// ErrNoAWSRegion is the answer when the region to sign for is nowhere.
var ErrNoAWSRegion = errors.New("no region to sign the Bedrock request for: give an upstream host naming it (https://bedrock-runtime.us-east-1.amazonaws.com) or set AWS_REGION in toolwire serve's environment")

// bedrockService is Bedrock's SigV4 signing name (bedrock-runtime is only
// its host's): the credential scope the SDK writes,
// …/<region>/bedrock/aws4_request.
const bedrockService = "bedrock"

// regionInHost finds the region of a Bedrock runtime endpoint, including
// the FIPS and VPC endpoint forms
// (https://docs.aws.amazon.com/general/latest/gr/bedrock.html).
var regionInHost = regexp.MustCompile(`(?:^|\.)bedrock-runtime(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.`)

// isSigV4 tells whether a request carries an AWS Signature Version 4.
func isSigV4(h http.Header) bool {
	return strings.HasPrefix(strings.TrimSpace(h.Get("Authorization")), "AWS4-HMAC-SHA256 ")
}

// scopeRegion is the region of a SigV4 Authorization header's credential
// scope (Credential=AKID/date/region/service/aws4_request).
func scopeRegion(auth string) string {
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(strings.TrimSpace(cred), "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[2]
}

// resign replaces the client's SigV4 signature on an upstream request by
// one made with the serve process's credentials, for the upstream's host.
// The client's Authorization and X-Amz-* headers (its date, session token)
// are dropped first, whatever happens next: nothing of the client's
// signature leaves the mock.
func (s AWSSigning) resign(req *http.Request, clientAuth string, body []byte, now time.Time) error {
	req.Header.Del("Authorization")
	for k := range req.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-amz-") {
			delete(req.Header, k)
		}
	}
	if !s.Credentials.HasKeys() {
		return ErrNoAWSCredentials
	}
	region := s.Region
	if m := regionInHost.FindStringSubmatch(req.URL.Hostname()); m != nil {
		region = m[1]
	}
	if region == "" {
		region = scopeRegion(clientAuth)
	}
	if region == "" {
		return ErrNoAWSRegion
	}
	sum := sha256.Sum256(body)
	return v4.NewSigner().SignHTTP(context.Background(), s.Credentials, req, hex.EncodeToString(sum[:]), bedrockService, region, now)
}

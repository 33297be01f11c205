package record

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// seenRequest is what a fake upstream received.
type seenRequest struct {
	host   string
	uri    string
	header http.Header
	body   []byte
}

// bedrockUpstream is a fake Bedrock runtime: it keeps every request it
// gets and answers with answer.
func bedrockUpstream(t *testing.T, answer http.HandlerFunc) (*httptest.Server, func() []seenRequest) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []seenRequest
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, seenRequest{r.Host, r.URL.RequestURI(), r.Header.Clone(), body})
		mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(up.Close)
	return up, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

// dialingTo is a client that reaches addr whatever host a URL names, so a
// test upstream can stand in for bedrock-runtime.<region>.amazonaws.com.
func dialingTo(addr string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// bedrockFront forwards every request through rc as the Bedrock dialect,
// under the session key the request's credentials name.
func bedrockFront(t *testing.T, rc *Recorder, key string) (*httptest.Server, func() error) {
	t.Helper()
	var (
		mu   sync.Mutex
		last error
	)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ex, err := rc.Forward(conv.Bedrock, key, w, r, body)
		if err != nil && ex.Status == 0 {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, err.Error())
		}
		mu.Lock()
		last = err
		mu.Unlock()
	}))
	t.Cleanup(front.Close)
	return front, func() error { mu.Lock(); defer mu.Unlock(); return last }
}

const converseBody = `{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]}]}`

func postConverse(t *testing.T, url string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse", strings.NewReader(converseBody))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A Bedrock API key is the caller's own key: forwarded as it came, and
// nowhere in the recording, even where the upstream echoes it.
func TestBedrockAPIKeyIsForwardedAsItIs(t *testing.T) {
	const apiKey = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleS1mb3ItdGVzdHM="
	up, seen := bedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-Requestid", "req-1")
		_, _ = io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"you said `+r.Header.Get("Authorization")+`"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`)
	})
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"bedrock": up.URL})
	if err != nil {
		t.Fatal(err)
	}
	rc.AWS = AWSSigning{} // a bearer key needs no credentials of the mock's
	front, _ := bedrockFront(t, rc, apiKey)
	code, body := postConverse(t, front.URL, map[string]string{"Authorization": "Bearer " + apiKey})
	if code != 200 || !strings.Contains(body, apiKey) {
		t.Fatalf("the client should get the upstream's answer as sent: %d %s", code, body)
	}
	got := seen()
	if len(got) != 1 || got[0].header.Get("Authorization") != "Bearer "+apiKey {
		t.Fatalf("upstream saw %+v, want the caller's bearer key", got)
	}
	raw := readRecordings(t, dir)
	if strings.Contains(raw, apiKey) || !strings.Contains(raw, "you said Bearer REDACTED") {
		t.Fatalf("the recording must hold the answer with the key redacted:\n%s", raw)
	}
	if exs := recordedExchanges(t, dir); exs[0].Headers["X-Amzn-Requestid"] != "req-1" {
		t.Errorf("Bedrock's request id not kept: %+v", exs[0].Headers)
	}
}

func readRecordings(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+RecordingExt))
	var all bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

// A SigV4-signed request is signed again with the serve process's
// credentials, for the upstream's host and the region it names: the
// upstream gets a valid signature (checked by signing what it received
// again) and nothing of the client's.
func TestBedrockSigV4IsSignedAgainWithTheServeCredentials(t *testing.T) {
	serve := aws.Credentials{AccessKeyID: "AKIASERVEEXAMPLE0001", SecretAccessKey: "serve/secret/EXAMPLEKEY", SessionToken: "serve-session-token"}
	up, seen := bedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`)
	})
	const host = "bedrock-runtime.eu-west-3.amazonaws.com"
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"bedrock": "http://" + host})
	if err != nil {
		t.Fatal(err)
	}
	rc.Client = dialingTo(up.Listener.Addr().String())
	// The host's region wins over both the environment's and the client's.
	rc.AWS = AWSSigning{Credentials: serve, Region: "ap-south-1"}
	const clientSig = "Signature=c1i3n7c1i3n7c1i3n7c1i3n7c1i3n7c1i3n7c1i3n7c1i3n7c1i3n7c1i3n7abcd"
	front, _ := bedrockFront(t, rc, "AKIACLIENTEXAMPLE001")
	code, body := postConverse(t, front.URL, map[string]string{
		"Authorization":        "AWS4-HMAC-SHA256 Credential=AKIACLIENTEXAMPLE001/20250101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, " + clientSig,
		"X-Amz-Date":           "20250101T000000Z",
		"X-Amz-Security-Token": "client-session-token",
		"Amz-Sdk-Request":      "attempt=1; max=3",
	})
	if code != 200 {
		t.Fatalf("forward: %d %s", code, body)
	}
	got := seen()
	if len(got) != 1 {
		t.Fatalf("upstream got %d requests", len(got))
	}
	r := got[0]
	auth, date := r.header.Get("Authorization"), r.header.Get("X-Amz-Date")
	if r.host != host || len(date) != len("20060102T150405Z") {
		t.Fatalf("upstream saw host %q, X-Amz-Date %q", r.host, date)
	}
	wantPrefix := "AWS4-HMAC-SHA256 Credential=" + serve.AccessKeyID + "/" + date[:8] + "/eu-west-3/bedrock/aws4_request, "
	if !strings.HasPrefix(auth, wantPrefix) || strings.Contains(auth, clientSig) {
		t.Fatalf("upstream Authorization %q, want the prefix %q", auth, wantPrefix)
	}
	if tok := r.header.Get("X-Amz-Security-Token"); tok != serve.SessionToken {
		t.Errorf("upstream X-Amz-Security-Token %q, want the serve process's", tok)
	}
	if r.header.Get("Amz-Sdk-Request") != "attempt=1; max=3" {
		t.Errorf("the client's other headers must be forwarded: %v", r.header)
	}
	if r.uri != "/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse" {
		t.Errorf("the path must reach the upstream as the client escaped it (it is signed so): %q", r.uri)
	}

	// What the upstream received, signed again with the same key and
	// time, gives the same header: the signature is valid for it.
	check, _ := http.NewRequest(http.MethodPost, "http://"+r.host+r.uri, bytes.NewReader(r.body))
	for k, vs := range r.header {
		if k != "Authorization" {
			check.Header[k] = vs
		}
	}
	at, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		t.Fatal(err)
	}
	if err := v4.NewSigner().SignHTTP(context.Background(), serve, check, sha256Hex(r.body), "bedrock", "eu-west-3", at); err != nil {
		t.Fatal(err)
	}
	if check.Header.Get("Authorization") != auth {
		t.Fatalf("the signature does not cover what the upstream received:\n got %s\nwant %s", auth, check.Header.Get("Authorization"))
	}
	if raw := readRecordings(t, dir); strings.Contains(raw, "AKIACLIENTEXAMPLE001") || strings.Contains(raw, serve.SecretAccessKey) || strings.Contains(raw, "session-token") {
		t.Fatalf("the recording holds credentials:\n%s", raw)
	}
}

// Without credentials of its own the mock cannot sign a SigV4 request
// again: the client is told what to set, and nothing reaches the upstream.
func TestBedrockSigV4WithoutServeCredentialsIsNotForwarded(t *testing.T) {
	up, seen := bedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {})
	rc, err := NewRecorder(t.TempDir(), Upstreams{"bedrock": up.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, aws := range []AWSSigning{
		AWSSigningFromEnv(func(string) string { return "" }),
		{Credentials: aws.Credentials{AccessKeyID: "AKIASERVEEXAMPLE0001"}, Region: "us-east-1"}, // no secret
	} {
		rc.AWS = aws
		front, lastErr := bedrockFront(t, rc, "AKIACLIENTEXAMPLE001")
		code, body := postConverse(t, front.URL, map[string]string{
			"Authorization": "AWS4-HMAC-SHA256 Credential=AKIACLIENTEXAMPLE001/20250101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=00",
		})
		if code != http.StatusBadGateway || !errors.Is(lastErr(), ErrNoAWSCredentials) {
			t.Fatalf("want the missing-credentials error, got %d %s (%v)", code, body, lastErr())
		}
		for _, want := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"} {
			if !strings.Contains(body, want) {
				t.Errorf("the error should say to set %s: %s", want, body)
			}
		}
	}
	if n := len(seen()); n != 0 {
		t.Fatalf("the upstream got %d requests, want none", n)
	}
}

// With no region in the upstream's host, the serve environment's
// AWS_REGION is signed for, else the client's own credential scope's.
func TestBedrockSigningRegionFallsBack(t *testing.T) {
	up, seen := bedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {})
	rc, err := NewRecorder(t.TempDir(), Upstreams{"bedrock": up.URL})
	if err != nil {
		t.Fatal(err)
	}
	creds := aws.Credentials{AccessKeyID: "AKIASERVEEXAMPLE0001", SecretAccessKey: "s"}
	clientAuth := map[string]string{"Authorization": "AWS4-HMAC-SHA256 Credential=AKIACLIENTEXAMPLE001/20250101/eu-central-1/bedrock/aws4_request, SignedHeaders=host, Signature=00"}
	for _, c := range []struct{ env, want string }{{"us-west-2", "/us-west-2/bedrock/"}, {"", "/eu-central-1/bedrock/"}} {
		rc.AWS = AWSSigning{Credentials: creds, Region: c.env}
		front, _ := bedrockFront(t, rc, "AKIACLIENTEXAMPLE001")
		postConverse(t, front.URL, clientAuth)
		got := seen()
		if auth := got[len(got)-1].header.Get("Authorization"); !strings.Contains(auth, c.want) {
			t.Errorf("AWS_REGION %q: signed %q, want %s", c.env, auth, c.want)
		}
	}
	rc.AWS = AWSSigning{Credentials: creds}
	front, lastErr := bedrockFront(t, rc, "AKIACLIENTEXAMPLE001")
	postConverse(t, front.URL, map[string]string{"Authorization": "AWS4-HMAC-SHA256 Credential=AKIACLIENTEXAMPLE001, Signature=00"})
	if !errors.Is(lastErr(), ErrNoAWSRegion) {
		t.Errorf("no region anywhere: %v", lastErr())
	}
}

func TestAWSSigningFromEnv(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "t", "AWS_DEFAULT_REGION": "eu-west-1"}
	s := AWSSigningFromEnv(func(k string) string { return env[k] })
	if s.Credentials.AccessKeyID != "AKIA1" || s.Credentials.SecretAccessKey != "s" || s.Credentials.SessionToken != "t" || s.Region != "eu-west-1" {
		t.Fatalf("got %+v", s)
	}
	env["AWS_REGION"] = "us-east-2"
	if s := AWSSigningFromEnv(func(k string) string { return env[k] }); s.Region != "us-east-2" {
		t.Fatalf("AWS_REGION must win over AWS_DEFAULT_REGION: %q", s.Region)
	}
}

// frameBytes encodes messages as an upstream sends them.
func frameBytes(t *testing.T, msgs ...eventstream.Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, m := range msgs {
		if err := enc.Encode(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func bedrockFrame(event, payload string) eventstream.Message {
	m := eventstream.Message{Payload: []byte(payload)}
	m.Headers.Set(":event-type", eventstream.StringValue(event))
	m.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	m.Headers.Set(":message-type", eventstream.StringValue("event"))
	return m
}

// A ConverseStream answer is recorded frame by frame, readable (event
// name, payload JSON, other headers), and replayed as the same bytes;
// an exception frame and a binary payload survive too.
func TestEventStreamIsRecordedFrameByFrameAndReplayedAsSent(t *testing.T) {
	exception := eventstream.Message{Payload: []byte(`{"message":"Too many requests, please wait before trying again."}`)}
	exception.Headers.Set(":exception-type", eventstream.StringValue("throttlingException"))
	exception.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	exception.Headers.Set(":message-type", eventstream.StringValue("exception"))
	stream := frameBytes(t,
		bedrockFrame("messageStart", `{"role":"assistant"}`),
		bedrockFrame("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello AKIACLIENTEXAMPLE001"}}`),
		bedrockFrame("metadata", "\xff\x00binary"),
		exception)
	up, _ := bedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", EventStreamType)
		// Frame by frame, split mid-frame: the recording must not care.
		for i := 0; i < len(stream); i += 7 {
			_, _ = w.Write(stream[i:min(i+7, len(stream))])
			w.(http.Flusher).Flush()
		}
	})
	dir := t.TempDir()
	rc, err := NewRecorder(dir, Upstreams{"bedrock": up.URL})
	if err != nil {
		t.Fatal(err)
	}
	front, _ := bedrockFront(t, rc, "AKIACLIENTEXAMPLE001")
	code, live := postConverse(t, front.URL, map[string]string{"Authorization": "Bearer AKIACLIENTEXAMPLE001"})
	if code != 200 || live != string(stream) {
		t.Fatalf("the client must get the stream as sent: %d", code)
	}
	exs := recordedExchanges(t, dir)
	if len(exs) != 1 || len(exs[0].Events) != 4 || exs[0].Incomplete {
		t.Fatalf("recorded %+v", exs)
	}
	evs := exs[0].Events
	if evs[0].Event != "messageStart" || evs[0].Data != `{"role":"assistant"}` || evs[0].Headers[":message-type"] != "event" ||
		evs[1].Data != `{"contentBlockIndex":0,"delta":{"text":"Hello REDACTED"}}` ||
		!evs[2].Base64 || evs[3].Event != "" || evs[3].Headers[":exception-type"] != "throttlingException" {
		js, _ := json.MarshalIndent(evs, "", " ")
		t.Fatalf("events not recorded frame by frame:\n%s", js)
	}

	// Replayed: the same frames (the redacted text aside).
	rec := httptest.NewRecorder()
	exs[0].Write(rec)
	want := frameBytes(t,
		bedrockFrame("messageStart", `{"role":"assistant"}`),
		bedrockFrame("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello REDACTED"}}`),
		bedrockFrame("metadata", "\xff\x00binary"),
		exception)
	if rec.Header().Get("Content-Type") != EventStreamType || !bytes.Equal(rec.Body.Bytes(), want) {
		t.Fatalf("replayed stream differs: %q\nwant %q", rec.Body.Bytes(), want)
	}
}

// A stream that ends inside a frame keeps the frames before it and says
// why the recording is incomplete.
func TestEventStreamCutMidFrameIsMarkedIncomplete(t *testing.T) {
	whole := frameBytes(t, bedrockFrame("messageStart", `{"role":"assistant"}`), bedrockFrame("messageStop", `{"stopReason":"end_turn"}`))
	evs, cut := parseFrames(whole[:len(whole)-5])
	if len(evs) != 1 || evs[0].Event != "messageStart" || !strings.Contains(cut, "frame 2") {
		t.Fatalf("events %+v, cut %q", evs, cut)
	}
}

func TestRedactRemovesAWSCredentials(t *testing.T) {
	in := `{"note":"keys AKIAIOSFODNN7EXAMPLE and ASIAIOSFODNN7EXAMPLE","key2":"ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleQ==",` +
		`"key3":"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29tLz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbg==",` +
		`"SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY","aws_session_token":"FwoGZXIvYXdzEXAMPLE","x-amz-security-token":"IQoJEXAMPLE"}`
	out := Redact(in, "")
	for _, leak := range []string{"AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", "ABSKQmVk", "bedrock-api-key-YmVk", "wJalrXUtnFEMI", "FwoGZXIv", "IQoJEXAMPLE"} {
		if strings.Contains(out, leak) {
			t.Errorf("redacted body still contains %q: %s", leak, out)
		}
	}
	if !json.Valid([]byte(out)) {
		t.Errorf("redaction broke the JSON: %s", out)
	}
}

func TestParseUpstreamsBedrock(t *testing.T) {
	up, err := ParseUpstreams("bedrock=https://bedrock-runtime.us-east-1.amazonaws.com/")
	if err != nil || up["bedrock"] != "https://bedrock-runtime.us-east-1.amazonaws.com" || Family(conv.Bedrock) != "bedrock" {
		t.Fatalf("got %v, %v", up, err)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

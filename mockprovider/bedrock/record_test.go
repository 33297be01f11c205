package bedrock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/auth/bearer"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/bedrock/refdriver"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// bearerClient is the official client with a Bedrock API key, as
// AWS_BEARER_TOKEN_BEDROCK sets it up (bedrockruntime's
// resolveEnvBearerToken: the token provider, httpBearerAuth preferred).
// The SDK's own bearer signer refuses plain HTTP ("bearer token with HTTP
// request requires HTTPS") and the test servers are HTTP: plainBearer sets
// the same header without that check.
func bearerClient(ts *mockprovider.TestServer, token string) *bedrockruntime.Client {
	return bedrockruntime.New(bedrockruntime.Options{
		Region:                  "us-east-1",
		BaseEndpoint:            aws.String(ts.URL),
		RetryMaxAttempts:        1,
		HTTPClient:              refdriver.HTTPClient(&http.Client{}),
		BearerAuthTokenProvider: bearer.StaticTokenProvider{Token: bearer.Token{Value: token}},
		BearerAuthSigner:        plainBearer{},
		AuthSchemePreference:    []string{"httpBearerAuth"},
	})
}

type plainBearer struct{}

func (plainBearer) SignWithBearerToken(_ context.Context, tok bearer.Token, m bearer.Message) (bearer.Message, error) {
	req, ok := m.(*smithyhttp.Request)
	if !ok {
		return nil, fmt.Errorf("unexpected message %T", m)
	}
	req.Header.Set("Authorization", "Bearer "+tok.Value)
	return req, nil
}

// streamLoop runs a streamed tool loop (a toolUse, its result, the final
// text) and returns every event the SDK read, typed and in order.
func streamLoop(t *testing.T, client *bedrockruntime.Client) []string {
	t.Helper()
	ctx := context.Background()
	msgs := []types.Message{ask()}
	var transcript []string
	for turn := 0; turn < 2; turn++ {
		out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(sdkModel), Messages: msgs, ToolConfig: weatherConfig()})
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		stream := out.GetStream()
		var id, name, input string
		for ev := range stream.Events() {
			js, _ := json.Marshal(ev)
			transcript = append(transcript, fmt.Sprintf("%T %s", ev, js))
			switch v := ev.(type) {
			case *types.ConverseStreamOutputMemberContentBlockStart:
				if u, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
					id, name = aws.ToString(u.Value.ToolUseId), aws.ToString(u.Value.Name)
				}
			case *types.ConverseStreamOutputMemberContentBlockDelta:
				if d, ok := v.Value.Delta.(*types.ContentBlockDeltaMemberToolUse); ok {
					input += aws.ToString(d.Value.Input)
				}
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		stream.Close()
		if turn == 0 {
			var args map[string]any
			if id == "" || json.Unmarshal([]byte(input), &args) != nil {
				t.Fatalf("no tool call streamed: id %q input %q", id, input)
			}
			msgs = append(msgs, types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: aws.String(id), Name: aws.String(name), Input: document.NewLazyDocument(args),
			}}}}, resultFor(id))
		}
	}
	return transcript
}

// converseText asks once, unstreamed, and returns the answer's text.
func converseText(t *testing.T, client *bedrockruntime.Client) string {
	t.Helper()
	out, err := client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Say hello."}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, b := range out.Output.(*types.ConverseOutputMemberMessage).Value.Content {
		if tb, ok := b.(*types.ContentBlockMemberText); ok {
			text += tb.Value
		}
	}
	if text == "" {
		t.Fatal("no text answered")
	}
	return text
}

// TestRecordThenReplayThroughTheSDK: the official client's streamed tool
// loop (SigV4) and an unstreamed Converse (Bedrock API key) go through a
// recording mock to an upstream (a second mock, on its own port), then
// through a replaying mock: the SDK reads the replayed event streams as it
// read the live ones, event for event. The upstream got requests signed
// with the serve credentials (its session is named by their key id) and
// the caller's API key as it was; the recordings hold none of the keys.
func TestRecordThenReplayThroughTheSDK(t *testing.T) {
	const (
		serveKeyID  = "AKIASERVEEXAMPLE0001"
		serveSecret = "serve/secret/EXAMPLEKEY+abcdefghijklmno"
		clientKeyID = "AKIACLIENTEXAMPLE001"
		apiKey      = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleS1mb3ItdGVzdHM="
	)
	var (
		mu    sync.Mutex
		auths []string
	)
	upstreamMock := mockprovider.New(mockprovider.Options{Dialects: []dialect.Dialect{bedrock.New()}})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		upstreamMock.ServeHTTP(w, r)
	}))
	defer upstream.Close()

	dir := t.TempDir()
	rec, err := record.NewRecorder(dir, record.Upstreams{"bedrock": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	rec.AWS = record.AWSSigning{Credentials: aws.Credentials{AccessKeyID: serveKeyID, SecretAccessKey: serveSecret}, Region: "us-west-2"}
	recording := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{bedrock.New()}, Recorder: rec})

	live := streamLoop(t, newClient(recording, clientKeyID))
	liveText := converseText(t, bearerClient(recording, apiKey))

	mu.Lock()
	seen := append([]string(nil), auths...)
	mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("upstream got %d requests, want 3", len(seen))
	}
	for _, a := range seen[:2] {
		if !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential="+serveKeyID+"/") || !strings.Contains(a, "/us-west-2/bedrock/aws4_request") {
			t.Errorf("SigV4 request reached the upstream signed %q, want the serve credentials'", a)
		}
	}
	if seen[2] != "Bearer "+apiKey {
		t.Errorf("the API key reached the upstream as %q", seen[2])
	}
	if vs := recording.Violations(clientKeyID); len(vs) != 0 {
		t.Fatalf("the honest loop broke rules: %v", vs)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"+record.RecordingExt))
	if len(files) != 2 {
		t.Fatalf("want one recording per session (access key, API key), got %v", files)
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		for _, secret := range []string{serveKeyID, serveSecret, clientKeyID, apiKey} {
			if bytes.Contains(raw, []byte(secret)) {
				t.Fatalf("%s holds %q", f, secret)
			}
		}
	}

	rp, err := record.LoadReplayer(dir)
	if err != nil {
		t.Fatal(err)
	}
	replaying := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{bedrock.New()}, Replayer: rp})
	replayed := streamLoop(t, newClient(replaying, "AKIAREPLAYEXAMPLE001"))
	if strings.Join(replayed, "\n") != strings.Join(live, "\n") {
		t.Fatalf("the replayed stream differs from the live one:\n live %q\n replayed %q", live, replayed)
	}
	if got := converseText(t, bearerClient(replaying, "ABSKcmVwbGF5LWtleS1mb3ItdGVzdHMtMTIzNDU2Nzg=")); got != liveText {
		t.Fatalf("replayed Converse %q, live %q", got, liveText)
	}
	entries := replaying.Journal("AKIAREPLAYEXAMPLE001")
	if len(entries) != 2 || len(entries[0].Events) == 0 || entries[0].Events[0].Event != "messageStart" {
		t.Fatalf("the replayed streams are not journaled event for event: %+v", entries)
	}
	for _, e := range entries {
		if len(e.Response) != 0 {
			t.Errorf("a replayed stream's binary frames went into the journal as its response: %.80s", e.Response)
		}
	}
}

// TestRecordSigV4WithoutServeCredentials: with no AWS credentials in the
// serve environment a SigV4 request is not forwarded; the SDK gets
// Bedrock's error shape (x-amzn-ErrorType, {"message"}) saying what to set.
func TestRecordSigV4WithoutServeCredentials(t *testing.T) {
	var (
		mu    sync.Mutex
		count int
	)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count++
		mu.Unlock()
	}))
	defer upstream.Close()
	rec, err := record.NewRecorder(t.TempDir(), record.Upstreams{"bedrock": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	rec.AWS = record.AWSSigningFromEnv(func(string) string { return "" })
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New(), bedrock.New()}, Recorder: rec})
	client := newClient(ts, "AKIACLIENTEXAMPLE001")
	_, converseErr := client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String(sdkModel), Messages: []types.Message{ask()}})
	_, invokeErr := client.InvokeModel(context.Background(), &bedrockruntime.InvokeModelInput{ModelId: aws.String(sdkModel), ContentType: aws.String("application/json"),
		Body: invokeBody(t, map[string]any{"role": "user", "content": "hi"})})
	for _, err := range []error{converseErr, invokeErr} {
		var ae smithy.APIError
		var re *awshttp.ResponseError
		if !errors.As(err, &ae) || ae.ErrorCode() != "InternalServerException" || !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusBadGateway {
			t.Fatalf("want Bedrock's error shape, a 502, got %v", err)
		}
		for _, want := range []string{"toolwire record: ", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_BEARER_TOKEN_BEDROCK"} {
			if !strings.Contains(ae.ErrorMessage(), want) {
				t.Errorf("the message should name %s: %q", want, ae.ErrorMessage())
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if count != 0 {
		t.Fatalf("the upstream got %d requests, want none", count)
	}
}

// invokeChunks reads InvokeModelWithResponseStream's chunks as sent.
func invokeChunks(t *testing.T, out *bedrockruntime.InvokeModelWithResponseStreamOutput) []string {
	t.Helper()
	s := out.GetStream()
	defer s.Close()
	var chunks []string
	for ev := range s.Events() {
		chunk, ok := ev.(*types.ResponseStreamMemberChunk)
		if !ok {
			t.Fatalf("event %T", ev)
		}
		chunks = append(chunks, string(chunk.Value.Bytes))
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return chunks
}

// TestRecordThenReplayInvokeModel: InvokeModel and its streaming form
// (served through the Anthropic dialect's route) go upstream as the
// client's own Bedrock request, signed again, are recorded under bedrock
// on the path the client used, and replay to the SDK as they came.
func TestRecordThenReplayInvokeModel(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
	)
	upstreamMock := mockprovider.New(mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New(), bedrock.New()}})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		upstreamMock.ServeHTTP(w, r)
	}))
	defer upstream.Close()
	dir := t.TempDir()
	rec, err := record.NewRecorder(dir, record.Upstreams{"bedrock": upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	rec.AWS = record.AWSSigning{Credentials: aws.Credentials{AccessKeyID: "AKIASERVEEXAMPLE0001", SecretAccessKey: "s"}, Region: "us-west-2"}
	servers := func(o mockprovider.Options) *mockprovider.TestServer {
		o.Dialects = []dialect.Dialect{anthropic.New(), bedrock.New()}
		return mockprovider.NewTestServer(t, o)
	}
	ask := map[string]any{"role": "user", "content": "What is the weather in Paris?"}
	run := func(ts *mockprovider.TestServer, akid string) (string, []string) {
		t.Helper()
		client := newClient(ts, akid)
		out, err := client.InvokeModel(context.Background(), &bedrockruntime.InvokeModelInput{ModelId: aws.String(sdkModel), ContentType: aws.String("application/json"), Body: invokeBody(t, ask)})
		if err != nil {
			t.Fatal(err)
		}
		sout, err := client.InvokeModelWithResponseStream(context.Background(), &bedrockruntime.InvokeModelWithResponseStreamInput{ModelId: aws.String(sdkModel),
			ContentType: aws.String("application/json"), Body: invokeBody(t, ask)})
		if err != nil {
			t.Fatal(err)
		}
		return string(out.Body), invokeChunks(t, sout)
	}

	liveBody, liveChunks := run(servers(mockprovider.Options{Recorder: rec}), "AKIACLIENTEXAMPLE001")
	if !strings.Contains(liveBody, `"tool_use"`) || len(liveChunks) < 3 {
		t.Fatalf("live answers: %s %q", liveBody, liveChunks)
	}
	mu.Lock()
	got := append([]string(nil), seen...)
	mu.Unlock()
	wantPaths := []string{"/model/" + sdkModel + "/invoke", "/model/" + sdkModel + "/invoke-with-response-stream"}
	if len(got) != 2 {
		t.Fatalf("upstream got %q", got)
	}
	for i, g := range got {
		if !strings.HasPrefix(g, wantPaths[i]+" AWS4-HMAC-SHA256 Credential=AKIASERVEEXAMPLE0001/") {
			t.Errorf("upstream got %q, want %s signed with the serve credentials", g, wantPaths[i])
		}
	}
	rp, err := record.LoadReplayer(dir)
	if err != nil {
		t.Fatal(err)
	}
	exs := recordedInvokes(t, dir)
	if len(exs) != 2 || exs[0].Dialect != "bedrock" || !strings.HasSuffix(exs[0].Path, "/invoke") || len(exs[1].Events) == 0 || exs[1].Events[0].Event != "chunk" {
		t.Fatalf("recorded %+v", exs)
	}

	replayBody, replayChunks := run(servers(mockprovider.Options{Replayer: rp}), "AKIAREPLAYEXAMPLE001")
	if replayBody != liveBody || strings.Join(replayChunks, "\n") != strings.Join(liveChunks, "\n") {
		t.Fatalf("replayed answers differ:\n live %s %q\n replayed %s %q", liveBody, liveChunks, replayBody, replayChunks)
	}
}

func recordedInvokes(t *testing.T, dir string) []record.Exchange {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+record.RecordingExt))
	var out []record.Exchange
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exs, err := record.ReadJSONL(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, exs...)
	}
	return out
}

package refdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/toolwire/toolwire/mockprovider/bedrock"
	core "github.com/toolwire/toolwire/suite/refdriver"
)

// hangGuard only keeps a broken expectation from hanging the test.
const hangGuard = 30 * time.Second

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatalf("never happened: %s", what)
	}
}

// gatedConn holds the transport's writer right after the last byte of the
// request body has gone out, until release: the server answers, Client.Do
// returns and the SDK closes the request body while net/http has yet to
// finish writing the request, which is the order a loaded machine makes
// about once in a hundred streams.
type gatedConn struct {
	net.Conn
	release      <-chan struct{}
	closed       chan struct{}
	closeOnce    sync.Once
	head         []byte
	length, sent int
	gated        bool
}

func (c *gatedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if c.length == 0 {
		c.head = append(c.head, p[:n]...)
		if i := bytes.Index(c.head, []byte("\r\n\r\n")); i >= 0 {
			for _, line := range strings.Split(string(c.head[:i]), "\r\n") {
				if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
					c.length, _ = strconv.Atoi(v)
				}
			}
			c.sent = len(c.head) - i - 4
		}
	} else {
		c.sent += n
	}
	if !c.gated && c.length > 0 && c.sent >= c.length {
		c.gated = true
		select {
		case <-c.release:
		case <-time.After(hangGuard):
		}
	}
	return n, err
}

func (c *gatedConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// TestStreamSurvivesEarlyAnswer is the "decode event: … use of closed
// network connection" seen under load: smithy-go closes the request body
// when Client.Do returns, and its closed body answered net/http's last
// copy of the body (through WriteTo) with io.EOF, a write error that made
// the transport close the connection under the event stream being read.
// The steps are forced in that order (no timing); the stream must still
// be read to its end, and the request write must not have failed.
func TestStreamSurvivesEarlyAnswer(t *testing.T) {
	release := make(chan struct{})
	rest := make(chan struct{})
	var conns []*gatedConn
	var mu sync.Mutex

	const deltas = 64
	word := strings.Repeat("x", 200)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		frame := func(name string, payload any) {
			b, _ := json.Marshal(payload)
			msg := eventstream.Message{Payload: b}
			msg.Headers.Set(":event-type", eventstream.StringValue(name))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Headers.Set(":message-type", eventstream.StringValue("event"))
			_ = eventstream.NewEncoder().Encode(w, msg)
			w.(http.Flusher).Flush()
		}
		frame("messageStart", map[string]any{"role": "assistant"})
		// The rest only once the client's request write is settled, so
		// that it has to come through the connection.
		select {
		case <-rest:
		case <-r.Context().Done():
			return
		}
		for range deltas {
			frame("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": word}})
		}
		frame("contentBlockStop", map[string]any{"contentBlockIndex": 0})
		frame("messageStop", map[string]any{"stopReason": "end_turn"})
		frame("metadata", map[string]any{"usage": map[string]any{"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": map[string]any{"latencyMs": 1}})
	}))
	defer srv.Close()

	var dialer net.Dialer
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		gc := &gatedConn{Conn: c, release: release, closed: make(chan struct{})}
		mu.Lock()
		conns = append(conns, gc)
		mu.Unlock()
		return gc, nil
	}}
	defer transport.CloseIdleConnections()
	vars := map[string]string{bedrock.EnvEndpoint: srv.URL, bedrock.EnvKeyID: "AKIDEARLY"}
	env := core.Env{Get: func(k string) string { return vars[k] }, HTTPClient: &http.Client{Transport: transport}}
	client, err := newClient(env, lookup(core.None))
	if err != nil {
		t.Fatal(err)
	}

	wrote := make(chan error, 1)
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote <- i.Err },
	})
	out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId:  aws.String("us.anthropic.claude-haiku-4-5-20251001-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "hello"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// ConverseStream has returned: the SDK has closed the request body.
	close(release)
	var writeErr error
	select {
	case writeErr = <-wrote:
	case <-time.After(hangGuard):
		t.Fatal("the request write never finished")
	}
	mu.Lock()
	gc := conns[0]
	mu.Unlock()
	if !gc.gated {
		t.Fatal("the request write was never held after its body: the test did not force the order")
	}
	if writeErr != nil {
		// The transport closes the connection on a failed write: let it
		// happen before the rest of the answer is read.
		wait(t, gc.closed, "the connection closed after the failed write")
	}
	close(rest)

	s := out.GetStream()
	defer s.Close()
	var acc accumulator
	for ev := range s.Events() {
		acc.add(ev)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v (request write: %v)", err, writeErr)
	}
	if writeErr != nil {
		t.Fatalf("request write failed: %v", writeErr)
	}
	msg, _ := acc.message()
	text := msg.Content[0].(*types.ContentBlockMemberText).Value
	if text != strings.Repeat(word, deltas) || acc.stop != types.StopReasonEndTurn {
		t.Fatalf("text of %d bytes, stop %q", len(text), acc.stop)
	}
}

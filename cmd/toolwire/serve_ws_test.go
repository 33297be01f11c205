package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/toolwire/toolwire/mockprovider"
)

// TestServeClosesSocketsOnShutdown: a WebSocket-mode response in flight
// when serve is stopped is cut at the end of --drain, the client gets a
// 1001 close, and the exchange is in the journal by the time serve
// returns. Before, serve returned at once (http.Server.Shutdown does not
// wait for hijacked connections) while the socket streamed on, unclosed
// and unjournaled, into a process about to exit.
func TestServeClosesSocketsOnShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := mockprovider.New(mockprovider.Options{})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, srv, ln, 200*time.Millisecond) }()

	// A hang guard for the whole exchange, not a timing assertion.
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const key = "sk-serve-ws"
	conn, _, err := websocket.Dial(rctx, "ws://"+ln.Addr().String()+"/v1/responses", &websocket.DialOptions{HTTPHeader: http.Header{
		"Authorization":           {"Bearer " + key},
		mockprovider.StreamHeader: {"fragment_size=1;chunk_delay_ms=200"}, // ~10 s in all
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.CloseNow() }()
	if err := conn.Write(rctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-4.1","input":"Say hello."}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := conn.Read(rctx); err != nil || !strings.Contains(string(b), "response.created") {
		t.Fatalf("first event %s, %v", b, err)
	}
	stop()
	var events int
	for {
		_, b, err := conn.Read(rctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusGoingAway {
				t.Fatalf("after %d more events: %v, want a 1001 close", events, err)
			}
			break
		}
		if strings.Contains(string(b), `"response.completed"`) {
			t.Fatal("the response ran to its end: --drain did not cut it")
		}
		events++
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve = %v", err)
		}
	case <-rctx.Done():
		t.Fatal("serve did not return")
	}
	entries, _ := srv.Sessions().Get(key).Journal()
	if len(entries) != 1 || entries[0].Status != http.StatusOK || len(entries[0].Events) != events+1 {
		t.Errorf("journal when serve returned: %+v, want the cut response with its %d events", entries, events+1)
	}
}

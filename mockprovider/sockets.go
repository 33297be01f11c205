package mockprovider

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// A dialect's WebSocket mode (dialect.SocketHost: the Responses API's,
// served by its package) runs each message through the pipeline; the
// server bounds the sockets and ends them on Shutdown.

// WebSocketOptions bound WebSocket mode. The zero value of each field
// takes its default.
type WebSocketOptions struct {
	// IdleTimeout closes a socket (1000) no message has come on for this
	// long while none was being answered (default 10 minutes).
	IdleTimeout time.Duration
	// MaxLifetime closes a socket this long after it opened, once the
	// response in flight is done, with the API's
	// websocket_connection_limit_reached error event (default 60 minutes,
	// the API's limit: "Connection duration is limited to 60 minutes",
	// https://developers.openai.com/api/docs/guides/websocket-mode,
	// "Connection behavior and limits").
	MaxLifetime time.Duration
	// MaxSockets caps the sockets open at once; an upgrade beyond it is
	// answered 503 in the API's envelope (default 256).
	MaxSockets int
}

// The defaults of WebSocketOptions.
const (
	DefaultSocketIdleTimeout = 10 * time.Minute
	DefaultSocketLifetime    = 60 * time.Minute
	DefaultMaxSockets        = 256
)

func (o WebSocketOptions) withDefaults() WebSocketOptions {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultSocketIdleTimeout
	}
	if o.MaxLifetime <= 0 {
		o.MaxLifetime = DefaultSocketLifetime
	}
	if o.MaxSockets <= 0 {
		o.MaxSockets = DefaultMaxSockets
	}
	return o
}

// socketSet counts the open sockets (for MaxSockets) and tells them of a
// shutdown. Its zero value is ready.
type socketSet struct {
	mu      sync.Mutex
	open    int
	closing bool
	// drain closes when Shutdown begins: answer no further message.
	// cut ends when its grace period does: stop the responses in flight.
	drain     chan struct{}
	cut       context.Context
	cancelCut context.CancelFunc
	handlers  sync.WaitGroup
}

func (ss *socketSet) initLocked() {
	if ss.drain == nil {
		ss.drain = make(chan struct{})
		ss.cut, ss.cancelCut = context.WithCancel(context.Background())
	}
}

// admit takes a place for one more socket, or says why there is none; a
// socket admitted calls leave when it is done.
func (ss *socketSet) admit(max int) *wire.APIError {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	if ss.closing {
		return &wire.APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Message: "toolwire: the server is shutting down"}
	}
	if ss.open >= max {
		h := http.Header{}
		h.Set("Retry-After", "1")
		return &wire.APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Headers: h,
			Message: fmt.Sprintf("toolwire: %d WebSocket connections are open, as many as the server allows (--ws-max-sockets); close one and retry", ss.open)}
	}
	ss.open++
	ss.handlers.Add(1)
	return nil
}

func (ss *socketSet) leave() {
	ss.mu.Lock()
	ss.open--
	ss.mu.Unlock()
	ss.handlers.Done()
}

func (ss *socketSet) signals() (drain <-chan struct{}, cut context.Context) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	return ss.drain, ss.cut
}

// socketCloseWait bounds how long Shutdown waits, once the grace period is
// over, for the sockets' handlers to stop their responses and close: the
// library gives a close frame 5 s to be written and the client's reply 5 s
// to come.
const socketCloseWait = 10 * time.Second

// Shutdown ends WebSocket mode for a server shutdown. http.Server.Shutdown
// does not wait for hijacked connections, which sockets are, so without
// this the process exits under them: streams cut without a close frame
// and unjournaled. No socket is accepted from now on and no further
// message answered; an idle socket is closed with 1001 (going away) at
// once, one with a response in flight once the response is done. When ctx
// ends first, the responses still in flight are stopped — the journal
// entry keeps the events sent, and a recording is written marked
// incomplete — and their sockets closed with 1001. Shutdown returns when
// every socket's handler has (ctx's error if responses had to be
// stopped), or socketCloseWait after ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	ss := &s.sockets
	ss.mu.Lock()
	ss.initLocked()
	if !ss.closing {
		ss.closing = true
		close(ss.drain)
	}
	ss.mu.Unlock()
	done := make(chan struct{})
	go func() { ss.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	ss.cancelCut()
	t := time.NewTimer(socketCloseWait)
	defer t.Stop()
	select {
	case <-done:
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("toolwire: WebSocket connections still open %s after the grace period", socketCloseWait)
	}
}

// Pipeline is the handler of d's POST routes (dialect.SocketHost).
func (s *Server) Pipeline(d dialect.Dialect) http.HandlerFunc { return s.pipeline(d) }

// SessionKey reads the key naming the session, answering d's error when
// there is none or it is invalid (dialect.SocketHost).
func (s *Server) SessionKey(d dialect.Dialect, w http.ResponseWriter, r *http.Request) (string, bool) {
	return sessionKey(d, w, r)
}

// NotFound answers a path no route serves (dialect.SocketHost).
func (s *Server) NotFound(w http.ResponseWriter, r *http.Request) { s.notFound(w, r) }

// AdmitSocket takes a place for one more socket (dialect.SocketHost).
func (s *Server) AdmitSocket() (dialect.SocketPlace, *wire.APIError) {
	if aerr := s.sockets.admit(s.opts.WebSocket.withDefaults().MaxSockets); aerr != nil {
		return dialect.SocketPlace{}, aerr
	}
	drain, cut := s.sockets.signals()
	return dialect.SocketPlace{Drain: drain, Cut: cut, Leave: s.sockets.leave}, nil
}

// SocketLimits bound each socket (dialect.SocketHost).
func (s *Server) SocketLimits() dialect.SocketLimits {
	o := s.opts.WebSocket.withDefaults()
	return dialect.SocketLimits{IdleTimeout: o.IdleTimeout, MaxLifetime: o.MaxLifetime, ReadLimit: s.opts.BodyLimit, WriteTimeout: s.opts.StreamWriteTimeout}
}

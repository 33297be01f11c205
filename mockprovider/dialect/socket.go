package dialect

import (
	"context"
	"net/http"
	"time"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// SocketHost is what a dialect's WebSocket mode (the Responses API's)
// asks of the server beyond Host: the pipeline each message runs through,
// and a place among the sockets the server bounds and shuts down
// (http.Server.Shutdown does not wait for hijacked connections, so the
// server counts them itself). Extra.ExtraRoutes gets one when the server
// offers it.
type SocketHost interface {
	Host
	// Pipeline is the handler of d's POST routes: decoding, rules,
	// scenarios, faults and the journal.
	Pipeline(d Dialect) http.HandlerFunc
	// SessionKey reads the API key that names the session, answering d's
	// error (and false) when there is none or it is invalid.
	SessionKey(d Dialect, w http.ResponseWriter, r *http.Request) (string, bool)
	// NotFound answers a path or method no route serves.
	NotFound(w http.ResponseWriter, r *http.Request)
	// AdmitSocket takes a place for one more socket, or returns why there
	// is none (in no dialect's envelope yet); a socket admitted calls
	// Leave when it is done.
	AdmitSocket() (SocketPlace, *wire.APIError)
	// SocketLimits bound each socket.
	SocketLimits() SocketLimits
}

// SocketPlace is an admitted socket's link to the server's shutdown.
type SocketPlace struct {
	// Drain closes when a shutdown begins: answer no further message.
	Drain <-chan struct{}
	// Cut ends when the shutdown's grace period does: stop the responses
	// in flight.
	Cut context.Context
	// Leave gives the place back.
	Leave func()
}

// SocketLimits bound one socket.
type SocketLimits struct {
	// IdleTimeout closes a socket no message has come on for this long;
	// MaxLifetime one open this long.
	IdleTimeout, MaxLifetime time.Duration
	// ReadLimit caps a message (the body limit of a POST).
	ReadLimit int64
	// WriteTimeout bounds each write.
	WriteTimeout time.Duration
}

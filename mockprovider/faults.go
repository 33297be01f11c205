package mockprovider

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// FaultKinds are the failures the mock can inject.
var FaultKinds = []string{"rate_limit", "overloaded", "server_error", "latency", "disconnect", "malformed_chunk", "stream_error"}

// maxFaultSpec bounds a fault spec: a valid one is a few dozen bytes, and
// each distinct header spec names a per-session counter.
const maxFaultSpec = 256

// ParseFault reads "KIND[;count=N][;after=N][;ms=N]".
func ParseFault(spec string) (*session.Fault, error) {
	if len(spec) > maxFaultSpec {
		return nil, fmt.Errorf("toolwire fault spec longer than %d bytes", maxFaultSpec)
	}
	parts := strings.Split(spec, ";")
	f := &session.Fault{Kind: strings.TrimSpace(parts[0]), Remaining: -1}
	known := false
	for _, k := range FaultKinds {
		known = known || k == f.Kind
	}
	if !known {
		return nil, fmt.Errorf("unknown toolwire fault kind %q (known: %s)", f.Kind, strings.Join(FaultKinds, ", "))
	}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("bad toolwire fault parameter %q in %q (want count=N, after=N or ms=N)", p, spec)
		}
		switch strings.TrimSpace(k) {
		case "count":
			f.Remaining = n
		case "after":
			f.After = n
		case "ms":
			f.MS = n
		default:
			return nil, fmt.Errorf("bad toolwire fault parameter %q in %q (want count=N, after=N or ms=N)", p, spec)
		}
	}
	return f, nil
}

// headerFaults counts the requests each X-Toolwire-Fault value has failed
// in a session.
var headerFaults = session.NewCounter(func(spec string) int { return len(spec) })

// scenarioFaults counts the attempts at a scenario turn whose script
// fails it: a scripted fault with count N fails the first N.
var scenarioFaults = session.NewCounter(func(t scenarioTurn) int { return len(t.scenario) })

type scenarioTurn struct {
	scenario string
	turn     int
}

// faultFor picks the fault for this request: the header first (count=N
// fails the first N requests of the session carrying that header), then
// faults queued on the session through the admin API.
func (s *Server) faultFor(r *http.Request, sess *session.Session) (*session.Fault, *wire.APIError) {
	if spec := r.Header.Get(FaultHeader); spec != "" {
		f, err := ParseFault(spec)
		if err != nil {
			return nil, &wire.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()}
		}
		if f.Remaining >= 0 && headerFaults.Count(sess, spec) > f.Remaining {
			return nil, nil
		}
		return f, nil
	}
	return sess.TakeFault(), nil
}

// applyEarlyFault answers status faults at once and sleeps for latency.
// It reports whether the request is finished.
func (s *Server) applyEarlyFault(d dialect.Dialect, f *session.Fault, x *dialect.Exchange, fail func(*wire.APIError)) bool {
	switch f.Kind {
	case "rate_limit", "overloaded", "server_error":
		fail(d.Fault(f.Kind))
		return true
	case "latency":
		select {
		case <-time.After(time.Duration(f.MS) * time.Millisecond):
		case <-x.R.Context().Done():
		}
	}
	return false
}

var errFaultStop = errors.New("toolwire: stream stopped by fault")

// streamFault returns the SSE hook that breaks a stream after f.After
// events: close the connection, send one broken event, or send the
// dialect's in-stream error and stop.
func streamFault(d dialect.Dialect, f *session.Fault) func(s *wire.SSE, sent int) error {
	done := false
	return func(s *wire.SSE, sent int) error {
		if done || sent < f.After {
			return nil
		}
		switch f.Kind {
		case "disconnect":
			done = true
			closeConn(s.Writer())
			return errFaultStop
		case "malformed_chunk":
			done = true
			return s.BrokenEvent("", []byte(`{"toolwire": malformed`))
		case "stream_error":
			done = true
			d.StreamError(s, d.Fault("overloaded"))
			return errFaultStop
		}
		return nil
	}
}

// closeConn drops the connection without finishing the response.
func closeConn(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler) // HTTP/2 or a recorder: abort the stream
}

package mockprovider

import (
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// AdminTokenHeader carries Options.AdminToken on admin requests. It is not
// Authorization: the RAP admin routes read a session key from there.
const AdminTokenHeader = "X-Toolwire-Admin-Token"

// Default deadlines against slow clients (Options.BodyReadTimeout and
// Options.StreamWriteTimeout).
const (
	DefaultBodyReadTimeout    = 30 * time.Second
	DefaultStreamWriteTimeout = 30 * time.Second
)

// isAdminPath reports whether a request path is on the control plane: all
// of /_toolwire/ except the RAP callback URLs, which tools reach with their
// per-invocation capability instead.
func isAdminPath(p string) bool {
	if !strings.Contains(p, "_toolwire") {
		return false // no cleaning makes an admin path of it (the common case, without garbage)
	}
	p = path.Clean("/" + p)
	if p != "/_toolwire" && !strings.HasPrefix(p, AdminPrefix) {
		return false
	}
	cb := strings.TrimSuffix(rap.CallbackPrefix, "/")
	return p != cb && !strings.HasPrefix(p, rap.CallbackPrefix)
}

// guardAdmin closes the control plane: with an admin token, every admin
// request but the health check must carry it; without one, only loopback
// Host names (no DNS rebinding) and loopback Origins (no cross-site pages)
// are served. Writes must be application/json either way, which a web page
// cannot send cross-origin without a preflight the mock never grants. It
// reports whether the request may go on.
func (s *Server) guardAdmin(w http.ResponseWriter, r *http.Request) bool {
	if token := s.opts.AdminToken; token != "" {
		got := r.Header.Get(AdminTokenHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 && !(r.Method == http.MethodGet && path.Clean(r.URL.Path) == "/_toolwire/health") {
			adminError(w, http.StatusUnauthorized, "the toolwire admin API needs the "+AdminTokenHeader+" header (see --admin-token)")
			return false
		}
	} else {
		if !loopbackHost(r.Host) {
			adminError(w, http.StatusForbidden, "the toolwire admin API answers loopback host names only; start the server with --admin-token to reach it by another name")
			return false
		}
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			adminError(w, http.StatusForbidden, "the toolwire admin API refuses cross-origin requests")
			return false
		}
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			adminError(w, http.StatusUnsupportedMediaType, "toolwire admin writes take Content-Type: application/json")
			return false
		}
	}
	return true
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface: localhost (or a name under .localhost), 127.0.0.0/8 or ::1.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Host)
}

// IsLoopbackAddr reports whether a listen address binds loopback only.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// deadlines bound how long a slow client can hold a model request: the
// body must arrive within BodyReadTimeout, and each write of the answer
// (every SSE event) must be taken within StreamWriteTimeout.
type deadlines struct {
	rc    *http.ResponseController
	write time.Duration
	// written: a Write has just pushed the deadline out, and the Flush
	// that follows it (one per SSE event) needs no deadline of its own.
	written bool
}

// readBodyBy reads the request body under a deadline, then lifts it so
// the server's background read (which notices a client leaving) is not
// cut short. A body that failed (too slow, too large) closes the
// connection after the answer: net/http would otherwise wait for the rest
// of it before answering.
func (s *Server) readBodyBy(w http.ResponseWriter, rc *http.ResponseController, r *http.Request) ([]byte, error) {
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.BodyReadTimeout))
	body, err := wire.ReadBody(r, s.opts.BodyLimit)
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, err
	}
	_ = rc.SetReadDeadline(time.Time{})
	return body, nil
}

// extend pushes the write deadline out before a write or flush.
func (d *deadlines) extend() {
	if d.rc != nil && d.write > 0 {
		_ = d.rc.SetWriteDeadline(time.Now().Add(d.write))
	}
}

// extendForWrite is extend before a Write.
func (d *deadlines) extendForWrite() {
	d.extend()
	d.written = true
}

// extendForFlush is extend before a Flush, unless a Write just did.
func (d *deadlines) extendForFlush() {
	if !d.written {
		d.extend()
	}
	d.written = false
}

// sessionFor finds the session an admin path names by key or ID, creating
// it (by key) when new.
func (s *Server) sessionFor(keyOrID string) *session.Session {
	if sess, ok := s.store.LookupKeyOrID(keyOrID); ok {
		return sess
	}
	return s.store.Get(keyOrID)
}

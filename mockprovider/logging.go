package mockprovider

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// SessionTag is how logs, the admin API and the journal page name a
// session (session.ID): a hash of its API key, so the key itself never
// reaches a log line.
func SessionTag(key string) string {
	if key == "" {
		return ""
	}
	return session.ID(key)
}

// statusRecorder remembers the status an answer was sent with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming working through the recorder.
func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines,
// hijacking for disconnect faults).
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequest serves r and logs one line: session, dialect, method, path,
// status, the rule that answered it if any, and the time it took. 4xx and
// 5xx answers log at warn, so --log-level warn keeps only the failures.
func (s *Server) logRequest(w http.ResponseWriter, r *http.Request, next func(http.ResponseWriter, *http.Request)) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	next(rec, r)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	level := slog.LevelInfo
	if status >= 400 {
		level = slog.LevelWarn
	}
	if !s.opts.Logger.Enabled(r.Context(), level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Duration("took", time.Since(start)),
	}
	if !strings.HasPrefix(r.URL.Path, "/_toolwire/") {
		d := s.loggedDialect(r)
		if dl, ok := s.dialects[d]; ok {
			attrs = append(attrs, slog.String("dialect", string(d)))
			if key, aerr := dl.Key(r); aerr == nil {
				attrs = append(attrs, slog.String("session", SessionTag(key)))
			}
		}
	}
	if rule := rec.Header().Get(wire.RuleHeader); rule != "" {
		attrs = append(attrs, slog.String("rule", rule))
	}
	s.opts.Logger.LogAttrs(r.Context(), level, "request", attrs...)
}

// loggedDialect is the dialect whose route served r (the mux has set
// r.Pattern by the time the line is logged), so Responses requests and
// its WebSocket upgrade (GET on the same path as its POST) are not taken
// for Chat; a route no dialect owns (model lists, a 404) is guessed from
// its headers and path as the 404 answer is.
func (s *Server) loggedDialect(r *http.Request) conv.Dialect {
	if d, ok := s.routeDialects[patternPath(r.Pattern)]; ok {
		return d
	}
	if dl := s.strayDialect(r); dl != nil {
		return dl.Name()
	}
	return ""
}

// patternPath is a ServeMux pattern without its method.
func patternPath(pattern string) string {
	if method, path, ok := strings.Cut(pattern, " "); ok && !strings.Contains(method, "/") {
		return strings.TrimSpace(path)
	}
	return pattern
}

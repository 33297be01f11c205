package mockprovider

import (
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// notFound answers a path no route serves, or a method a route does not
// take, in the envelope of the provider the request was meant for, so an
// SDK pointed at a wrong base URL raises its own NotFoundError with the
// real API's text instead of choking on Go's plain-text "404 page not
// found".
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	dl := s.strayDialect(r)
	if dl == nil || strings.HasPrefix(r.URL.Path, "/_toolwire/") {
		wire.WriteJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"message": "toolwire: no such endpoint: " + r.Method + " " + r.URL.Path}})
		return
	}
	dl.WriteError(w, dl.NotFound(r))
}

// strayDialect picks the provider a stray request was meant for: each
// dialect scores it by its auth headers and path (dialect.Stray), the
// highest wins; nil when none claims it.
func (s *Server) strayDialect(r *http.Request) dialect.Dialect {
	var best dialect.Dialect
	top := 0
	for _, d := range s.opts.Dialects {
		sd, ok := d.(dialect.Stray)
		if !ok {
			continue
		}
		if n := sd.StrayScore(r); n > top {
			best, top = d, n
		}
	}
	return best
}

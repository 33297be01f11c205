package mockprovider

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/journalpage"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// AdminPrefix is where the admin API lives.
const AdminPrefix = "/_toolwire/"

// routeAdmin serves the admin API: health, sessions, journals, reset,
// scenario choice, queued faults, the rule catalog and the scenario list.
func (s *Server) routeAdmin() {
	// The journal page: what the mock saw, for a person.
	s.mux.Handle("GET /_toolwire/{$}", journalpage.Handler(s.store, s.catalog))
	s.mux.HandleFunc("GET /_toolwire/health", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": Version, "sessions": s.store.Len(), "decodes": s.Decodes()})
	})
	s.mux.HandleFunc("GET /_toolwire/rules", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, s.catalog.All())
	})
	s.mux.HandleFunc("GET /_toolwire/scenarios", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, s.opts.Scenarios.All())
	})
	s.mux.HandleFunc("GET /_toolwire/sessions", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, s.store.List())
	})
	// What the journal dropped (its cap, the budget) is counted beside
	// it, violations by level, so a reader never takes a trimmed journal
	// for a clean one.
	s.mux.HandleFunc("GET /_toolwire/sessions/{key}", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *session.Session) {
		entries, dropped := sess.JournalDropped()
		wire.WriteJSON(w, http.StatusOK, map[string]any{"session": sess.Info(), "journal": entries,
			"dropped_entries": dropped.Entries, "dropped_violations": droppedViolations(dropped)})
	}))
	s.mux.HandleFunc("GET /_toolwire/sessions/{key}/journal", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *session.Session) {
		entries, dropped := sess.JournalDropped()
		wire.WriteJSON(w, http.StatusOK, map[string]any{"entries": entries,
			"dropped_entries": dropped.Entries, "dropped_violations": droppedViolations(dropped)})
	}))
	s.mux.HandleFunc("POST /_toolwire/sessions/{key}/reset", func(w http.ResponseWriter, r *http.Request) {
		if !keyFits(w, r) {
			return
		}
		s.sessionFor(r.PathValue("key")).Reset()
		wire.WriteJSON(w, http.StatusOK, map[string]any{"reset": r.PathValue("key")})
	})
	s.mux.HandleFunc("DELETE /_toolwire/sessions/{key}", func(w http.ResponseWriter, r *http.Request) {
		s.store.Delete(r.PathValue("key"))
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("PUT /_toolwire/sessions/{key}/scenario", s.setScenario)
	s.mux.HandleFunc("POST /_toolwire/sessions/{key}/scenario", s.setScenario)
	s.mux.HandleFunc("POST /_toolwire/sessions/{key}/faults", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Fault string `json:"fault"` // "KIND;count=N;after=N;ms=N"
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil || body.Fault == "" {
			adminError(w, http.StatusBadRequest, `want {"fault": "KIND[;count=N][;after=N][;ms=N]"}`)
			return
		}
		f, err := ParseFault(body.Fault)
		if err != nil {
			adminError(w, http.StatusBadRequest, err.Error())
			return
		}
		if !keyFits(w, r) {
			return
		}
		if err := s.sessionFor(r.PathValue("key")).AddFault(*f); err != nil {
			adminError(w, http.StatusTooManyRequests, err.Error()+" (at most "+strconv.Itoa(session.MaxQueuedFaults)+"; reset the session to clear them)")
			return
		}
		wire.WriteJSON(w, http.StatusOK, f)
	})
}

func (s *Server) setScenario(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil {
		adminError(w, http.StatusBadRequest, `want {"name": "SCENARIO"} ("" for the default model)`)
		return
	}
	if body.Name != "" {
		if _, ok := s.opts.Scenarios.Get(body.Name); !ok {
			adminError(w, http.StatusNotFound, "unknown scenario "+quote(body.Name)+"; closest: "+quote(s.opts.Scenarios.Closest(body.Name)))
			return
		}
	}
	if !keyFits(w, r) {
		return
	}
	s.sessionFor(r.PathValue("key")).SetScenario(body.Name)
	wire.WriteJSON(w, http.StatusOK, map[string]any{"session": r.PathValue("key"), "scenario": body.Name})
}

func (s *Server) withSession(h func(http.ResponseWriter, *http.Request, *session.Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok := s.store.LookupKeyOrID(r.PathValue("key"))
		if !ok {
			// The name is not echoed: it may be a key.
			adminError(w, http.StatusNotFound, "no such session")
			return
		}
		h(w, r, sess)
	}
}

// keyFits refuses an admin path naming a session by a key longer than
// any session may have (session.MaxKeyLength).
func keyFits(w http.ResponseWriter, r *http.Request) bool {
	if len(r.PathValue("key")) > session.MaxKeyLength {
		adminError(w, http.StatusBadRequest, "session key longer than "+strconv.Itoa(session.MaxKeyLength)+" bytes")
		return false
	}
	return true
}

func droppedViolations(d session.Dropped) map[string]int {
	return map[string]int{"must": d.MustViolations, "should": d.ShouldViolations}
}

func adminError(w http.ResponseWriter, status int, msg string) {
	wire.WriteJSON(w, status, map[string]any{"error": msg})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// routeModels serves the Models APIs each dialect answers from the model
// catalog (dialect.ModelServer). Where two share a path (OpenAI and
// Anthropic share GET /v1/models), the route that claims the request
// serves it, else the one that claims none.
func (s *Server) routeModels() {
	byPattern := map[string][]dialect.ModelRoute{}
	var patterns []string
	for _, d := range s.opts.Dialects {
		ms, ok := d.(dialect.ModelServer)
		if !ok {
			continue
		}
		for _, rt := range ms.ModelRoutes(s, s.models) {
			if _, seen := byPattern[rt.Pattern]; !seen {
				patterns = append(patterns, rt.Pattern)
			}
			byPattern[rt.Pattern] = append(byPattern[rt.Pattern], rt)
		}
	}
	for _, p := range patterns {
		routes := byPattern[p]
		s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			var unclaimed http.HandlerFunc
			for _, rt := range routes {
				switch {
				case rt.Claims == nil:
					if unclaimed == nil {
						unclaimed = rt.Handler
					}
				case rt.Claims(r):
					rt.Handler(w, r)
					return
				}
			}
			if unclaimed == nil {
				unclaimed = http.NotFound
			}
			unclaimed(w, r)
		})
	}
}

package mockprovider

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/journalpage"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
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

// routeModels serves the Models APIs from the model catalog. GET
// /v1/models is shared by OpenAI and Anthropic; the anthropic-version
// header tells them apart, as it does for the real clients. An unknown id
// gets each API's not-found answer.
func (s *Server) routeModels() {
	// OpenAI and Anthropic share the path: the Anthropic SDKs always send
	// anthropic-version, the OpenAI ones never do.
	openaiGet := openaiwire.GetModelFrom(s.models)
	var anthropicGet http.HandlerFunc
	if d, ok := s.dialects[conv.Anthropic].(*anthropic.Dialect); ok {
		anthropicGet = d.GetModelFrom(s.models)
	}
	s.mux.HandleFunc("GET /v1/models/{id}", func(w http.ResponseWriter, r *http.Request) {
		if anthropicGet != nil && (r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "") {
			anthropicGet(w, r)
			return
		}
		openaiGet(w, r)
	})
	s.mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("anthropic-version") != "" {
			if !s.authorized(conv.Anthropic, w, r) {
				return
			}
			list := s.models.List(models.Anthropic)
			data := make([]any, 0, len(list))
			for _, m := range list {
				data = append(data, anthropic.ModelInfo(m.ID, m))
			}
			page := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
			if len(list) > 0 {
				page["first_id"], page["last_id"] = list[0].ID, list[len(list)-1].ID
			}
			wire.WriteJSON(w, http.StatusOK, page)
			return
		}
		if !s.authorized(conv.OpenAIChat, w, r) {
			return
		}
		data := []openaiwire.Model{}
		for _, m := range s.models.List(models.OpenAI) {
			data = append(data, openaiwire.ModelObject(m.ID, m))
		}
		wire.WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	})
	s.mux.HandleFunc("GET /v1beta/models", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(conv.Gemini, w, r) {
			return
		}
		var list []map[string]any
		for _, m := range s.models.List(models.Gemini) {
			list = append(list, geminiModelInfo(m.ID, m))
		}
		wire.WriteJSON(w, http.StatusOK, map[string]any{"models": list})
	})
	s.mux.HandleFunc("GET /v1beta/models/{model}", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(conv.Gemini, w, r) {
			return
		}
		id := strings.TrimPrefix(r.PathValue("model"), "models/")
		m, ok := s.models.Lookup(models.Gemini, id)
		if !ok {
			// Worded as the generation methods' 404, naming models.get [I].
			writeError(s.dialects[conv.Gemini], w, &wire.APIError{Status: http.StatusNotFound, Type: "NOT_FOUND",
				Message: "models/" + id + " is not found for API version v1beta, or is not supported for getModel. Call ModelService.ListModels to see the list of available models and their supported methods."})
			return
		}
		wire.WriteJSON(w, http.StatusOK, geminiModelInfo(id, m))
	})
}

func geminiModelInfo(id string, m *models.Model) map[string]any {
	name := id
	in, out := int64(1048576), int64(65536)
	if m != nil && !m.IsWildcard() {
		if m.DisplayName != "" {
			name = m.DisplayName
		}
		if m.InputTokenLimit > 0 {
			in = m.InputTokenLimit
		}
		if m.MaxOutputTokens > 0 {
			out = m.MaxOutputTokens
		}
	}
	info := map[string]any{
		"name": "models/" + id, "version": "001", "displayName": name, "description": "toolwire mock of " + id,
		"inputTokenLimit": in, "outputTokenLimit": out,
		"supportedGenerationMethods": []string{"generateContent", "streamGenerateContent", "countTokens"},
	}
	if m != nil && m.Reasoning != nil && *m.Reasoning {
		info["thinking"] = true
	}
	return info
}

func (s *Server) authorized(d conv.Dialect, w http.ResponseWriter, r *http.Request) bool {
	dl, ok := s.dialects[d]
	if !ok {
		http.NotFound(w, r)
		return false
	}
	if _, aerr := dl.Key(r); aerr != nil {
		writeError(dl, w, aerr)
		return false
	}
	return true
}
